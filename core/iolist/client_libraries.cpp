// The IO-list experiment's client variants: one writer appends the same events through libpq
// (EventStore) and through libpqxx 6.4 (PqxxEventStore), builders and libraries interleaved.
#include <map>
#include <utility>

#include "common/alloc_counter.h"
#include "common/clock.h"
#include "iolist/iolist_run.h"
#include "iolist/pqxx_store.h"

namespace perflab::iolist {

// Time and the allocations the writer's thread makes per append (operator new: libpqxx's and
// Perflab's; libpq's own malloc calls are not counted).
void run_client(IoListRun& r) {
  RunContext& ctx = r.ctx;
  const int reps = r.settings.reps, warmup = r.settings.warmup;
  std::vector<Builder> bs;
  for (Builder b : r.settings.builders)
    if (PqxxEventStore::supports(b)) bs.push_back(b);
  if (bs.empty()) {
    return;
  }
  ctx.add_group({"client_time", "Append through libpq and libpqxx (single writer)", "us/op", "",
                 false, true,
                 "The same statements and rows through libpq directly (the builder's pointers, "
                 "data in binary) and through libpqxx 6.4 (pqxx::work, exec_params / "
                 "exec_prepared with dynamic parameters: every value converted to a string of "
                 "its own, bytea as hex text), four round trips."});
  ctx.add_group({"client_allocs", "Allocations per append: libpq and libpqxx", "allocations/append",
                 "", false, true,
                 "Heap allocations (operator new) of the writer's thread during one append: "
                 "Perflab's and libpqxx's; libpq allocates with malloc, not counted here."});
  ctx.progress(r.begin_point(PointKind::Client), "client libraries: connecting");
  const PgTarget& pg = r.pg();
  PgConnection conn = pg.connect(ctx.stop_token());
  EventStore libpq(conn, pg.schema, r.ids());
  PqxxEventStore libpqxx(pg.conninfo, pg.limits, pg.schema, r.ids(), ctx.stop_token());
  const auto batch = make_events(r.settings.events, r.settings.seed);
  struct Measured {
    Samples time;
    std::vector<double> allocs;
  };
  std::map<std::pair<Builder, bool>, Measured> m;  // (builder, libpqxx)
  // Variant j: builder bs[j / 2], through libpqxx when j is odd; the precision watches
  // libpqxx / libpq for each builder.
  const std::size_t k = bs.size() * 2;
  PointRounds rounds(ctx, warmup, reps, k);
  for (std::size_t j = 0; j < k; j += 2) rounds.track_ratio(j + 1, j);
  auto publish = [&] {
    for (auto& [key, v] : m) {
      if (v.time.wall.empty()) continue;
      const char* series = key.second ? "libpqxx" : "libpq";
      Point t = make_point(to_string(key.first), v.time);
      t.precision = rounds.precision();
      ctx.add_point("client_time", series, std::move(t));
      Point a;
      a.label = to_string(key.first);
      a.samples = v.allocs;
      ctx.add_point("client_allocs", series, std::move(a));
      AppendSamples as;
      as.total = v.time;
      r.measured.appends[{series, std::string("client ") + to_string(key.first)}] = as;
      r.measured.client_allocs[{series, to_string(key.first)}] = v.allocs;
    }
  };
  publish_after(publish, [&] {
    while (rounds.next()) {
      std::vector<double> round(k);
      for (std::size_t i = 0; i < k; ++i) {
        ctx.check_stop();
        const std::size_t j = (i + static_cast<std::size_t>(rounds.round())) % k;
        const Builder b = bs[j / 2];
        const bool pqxx = j % 2 == 1;
        const std::string uuid = make_uuid(r.uuid_state());
        AllocScope scope;
        Stopwatch sw;
        if (pqxx)
          libpqxx.append_to_stream(uuid, 0, batch, b);
        else
          libpq.append_to_stream(uuid, 0, batch, b);
        const double wall = double(sw.wall_elapsed_ns()) / 1000.0;
        const double cpu = double(sw.cpu_elapsed_ns()) / 1000.0;
        const double allocs = double(scope.delta().allocations);
        round[j] = wall;
        if (rounds.warmup()) continue;
        Measured& x = m[{b, pqxx}];
        x.time.wall.push_back(wall);
        x.time.cpu.push_back(cpu);
        x.allocs.push_back(allocs);
      }
      rounds.record(round);
      r.step(rounds, "client libraries: " + rounds.progress_text());
    }
  });
}

}  // namespace perflab::iolist
