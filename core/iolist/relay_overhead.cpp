// The relay's own cost: iolist appends of one writer, four round trips, straight to the server
// and through the delaying relay set to 0 ms, interleaved repetition by repetition.
#include <chrono>
#include <utility>

#include "iolist/iolist_run.h"
#include "targets/delay_relay.h"
#include "targets/pg_conninfo.h"

namespace perflab::iolist {

void run_relay_overhead(IoListRun& r) {
  RunContext& ctx = r.ctx;
  const int reps = r.settings.reps, warmup = r.settings.warmup;
  ctx.add_group({"relay_overhead", "The relay's own cost (iolist, single writer)", "us/op", "",
                 false, true,
                 "One append through the delaying relay set to 0 ms against the same append "
                 "straight to the server: what the relay itself adds to every figure measured "
                 "through it."});
  DelayRelay relay(r.server_host(), r.server_port(), std::chrono::nanoseconds(0));
  PgTarget via = r.pg();
  via.conninfo = conninfo_with_address(r.pg().conninfo, "127.0.0.1", relay.port());
  ClientPool direct(1, r.pg(), r.ids(), ctx.stop_token()),
      relayed(1, via, r.ids(), ctx.stop_token());
  for (ClientPool* p : {&direct, &relayed})
    p->run([&](std::size_t, EventStore& store) {
      store.reserve_stream_ids(std::size_t(warmup + reps));
    });
  const std::vector<std::vector<EventData>> batch{make_events(r.settings.events, r.settings.seed)};
  const AppendOptions iolist{Builder::IoList};
  std::vector<AppendTiming> timings(1);
  AppendSamples a, b;  // direct, relayed
  PointRounds rounds(ctx, warmup, reps, 2);
  rounds.track_ratio(1, 0);  // relay.overhead: through the relay / straight to the server
  auto publish = [&] {
    for (const auto& [s, name] : {std::pair{&a, "direct"}, std::pair{&b, "relay at 0 ms"}}) {
      if (s->total.wall.empty()) continue;
      Point p = make_point(writers_label(1, false), s->total);
      p.precision = rounds.precision();
      ctx.add_point("relay_overhead", name, std::move(p));
      r.measured.appends[{name, "relay"}] = *s;
    }
  };
  publish_after(publish, [&] {
    while (rounds.next()) {
      std::vector<double> round(2);
      for (int k = 0; k < 2; ++k) {
        ctx.check_stop();
        const int i = (k + rounds.round()) % 2;  // order rotated
        const ClientPoolSample s =
            append_once(r, i == 0 ? direct : relayed, iolist, batch, timings);
        if (!rounds.warmup()) (i == 0 ? a : b).add(s, timings, -1.0);
        round[std::size_t(i)] = s.wall_us;
      }
      rounds.record(round);
      r.step(rounds, "relay overhead: " + rounds.progress_text());
    }
  });
}

}  // namespace perflab::iolist
