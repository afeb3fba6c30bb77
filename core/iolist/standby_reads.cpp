// The IO-list experiment's standby reads: 1, 10, 100 concurrent readers reading streams forward
// from the primary, and the same readers spread over the hot standbys, round by round; the
// readers driven as pool_driver says.
#include <algorithm>
#include <memory>
#include <stdexcept>

#include "iolist/iolist_run.h"
#include "targets/replication.h"

namespace perflab::iolist {

std::string standbys_series(std::size_t n) {
  return n == 1 ? "1 hot standby" : std::to_string(n) + " hot standbys";
}

std::vector<PgTarget> start_standbys(IoListRun& r) {
  RunContext& ctx = r.ctx;
  const auto n = static_cast<std::size_t>(r.settings.standbys);
  ctx.progress(r.begin_point(PointKind::StandbyStreams),
               "starting or checking " + standbys_series(n));
  return ctx.targets().postgres_standbys(n, ctx.stop_token());
}

void run_standby_reads(IoListRun& r) {
  RunContext& ctx = r.ctx;
  const IoListSettings& set = r.settings;
  const std::vector<PgTarget> standbys = start_standbys(r);
  const std::string spread = standbys_series(standbys.size());
  Group g{"standby_read",
          "Read " + std::to_string(set.events) + " events: primary vs hot standbys",
          "events/s",
          "",
          false,
          false,
          "Events read per second by every reader together, each reading a stream forward and "
          "decoding it: all readers on the primary, or spread evenly over the hot standbys "
          "(streaming replication), round by round. A standby answers from what it has "
          "replayed: what was just written on the primary may not be there yet (see the lag)."};
  g.baseline_series = "primary";
  g.interleaved = true;
  ctx.add_group(g);
  const std::int64_t max_readers = *std::max_element(set.readers.begin(), set.readers.end());
  ctx.progress(r.fraction(), "writing the streams to read and waiting for the standbys");
  std::vector<std::string> streams;
  {
    PgConnection conn = r.pg().connect(ctx.stop_token());
    EventStore store(conn, r.pg().schema, r.ids());
    for (std::int64_t rd = 0; rd < max_readers; ++rd) {
      ctx.check_stop();
      streams.push_back(make_uuid(r.uuid_state()));
      store.append_to_stream(streams.back(), 0,
                             make_events(set.events, set.seed + 2000 + std::uint64_t(rd)),
                             Builder::IoList);
    }
    for (const PgTarget& s : standbys) {
      PgConnection sc = s.connect(ctx.stop_token());
      pg_wait_replayed(conn, sc, r.pg().limits.reply_timeout(), ctx.stop_token());
    }
  }
  r.step("streams written and replayed");
  for (auto n64 : set.readers) {
    const auto n = static_cast<std::size_t>(n64);
    ctx.progress(r.begin_point(PointKind::StandbyRead, n64),
                 "opening " + std::to_string(2 * n) + " connections");
    const std::unique_ptr<ClientDriver> on_primary = make_clients(r, n, {r.pg()});
    const std::unique_ptr<ClientDriver> on_standbys = make_clients(r, n, standbys);
    ClientDriver* pools[] = {on_primary.get(), on_standbys.get()};
    const std::string names[] = {"primary", spread};
    Samples samples[2], reads[2];  // events/s; the readers' wall (µs) and CPU
    PointRounds rounds(ctx, set.warmup, set.reps, 2);
    rounds.track_ratio(1, 0);
    const std::string label = writers_label(n64, true);
    auto publish = [&] {
      if (samples[0].wall.empty() || samples[1].wall.size() != samples[0].wall.size()) return;
      for (int i = 0; i < 2; ++i) {
        Point p = make_point(label, samples[i]);
        p.precision = rounds.precision();
        add_client_use(p, reads[i], n, pools[i]->threads());
        ctx.add_point("standby_read", names[i], std::move(p));
      }
      ComparisonSpec spec{"standby_read_" + std::to_string(n64) + ".standbys_vs_primary",
                          label_cap(label),
                          {"reads from " + spread, "reads from the primary",
                           "events read per second", Quantity::Throughput, Better::Higher},
                          true};
      spec.group = "standby_read";
      ctx.add_comparison(spec, samples[1].wall, samples[0].wall);
    };
    std::vector<ClientRead> jobs;
    for (std::size_t w = 0; w < n; ++w)
      jobs.push_back({streams[w], 1, static_cast<int>(set.events)});
    std::vector<std::vector<RecordedEvent>> got;
    publish_after(publish, [&] {
      while (rounds.next()) {
        double round[2] = {0, 0};
        for (int k = 0; k < 2; ++k) {
          ctx.check_stop();
          const int i = (k + rounds.round()) % 2;
          const ClientPoolSample s = pools[i]->read(jobs, got);
          for (const auto& g : got)
            if (g.size() != set.events)
              throw std::runtime_error("read " + std::to_string(g.size()) + " events of " +
                                       std::to_string(set.events) + " from " + names[i]);
          round[i] = double(n * set.events) / (s.wall_us / 1e6);
          if (!rounds.warmup()) {
            samples[i].wall.push_back(round[i]);
            reads[i].add(s);
          }
        }
        rounds.record(round);
        r.step(rounds, "standby reads, " + label + ": " + rounds.progress_text());
      }
    });
  }
}

}  // namespace perflab::iolist
