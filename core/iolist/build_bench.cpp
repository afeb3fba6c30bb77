// The IO-list experiment's build micro-benchmark: building one INSERT of N events by
// interpolation and as an IO list, its time and its allocations; no server.
#include <algorithm>

#include "common/alloc_counter.h"
#include "common/clock.h"
#include "iolist/builders.h"
#include "iolist/iolist_run.h"

namespace perflab::iolist {

void run_build(IoListRun& r) {
  RunContext& ctx = r.ctx;
  ctx.add_group({"build_time", "Build one INSERT statement (no server)", "ns/statement",
                 "events per statement", true, true,
                 "Time to build the statement text for N events; log-log shows the growth.", true,
                 true});
  ctx.add_group({"build_allocs", "Allocations per statement", "allocations/statement",
                 "events per statement", true, true,
                 "Heap allocations made while building one statement.", true, true});
  ctx.add_group({"build_bytes", "Bytes allocated per statement", "bytes/statement",
                 "events per statement", true, true,
                 "Bytes requested from the heap while building one statement.", true, true});
  const std::string head = insert_head("\"perflab\".events");
  const std::int64_t sample_ns = r.settings.build_sample_ns;
  std::size_t sink = 0;
  for (auto n64 : r.settings.build_sizes) {
    const auto n = static_cast<std::size_t>(n64);
    for (Builder b : {Builder::Interpolate, Builder::IoList}) {
      r.begin_point(PointKind::Build, n64, to_string(b));
      ctx.check_stop();
      auto build = [&] {
        if (b == Builder::Interpolate) return build_interpolate(head, n);
        return build_iolist(head, n).flatten();
      };
      // Allocations are deterministic: count one build.
      AllocCount allocs;
      {
        AllocScope scope;
        sink += build().size();
        allocs = scope.delta();
      }
      // Calibrate the statements per sample on the thread's CPU time of a tenth of a sample's
      // builds (the number doubled until they take that long): a wall clock counts the time
      // the thread waited on a loaded machine, and one build timed alone carries the clock's
      // own cost, so samples came out from a tenth to three times their length. Then take
      // `reps` samples.
      std::int64_t calls = 1, one = 1;
      for (;; calls *= 2) {
        Stopwatch sw;
        for (std::int64_t k = 0; k < calls; ++k) sink += build().size();
        const std::int64_t cpu = sw.cpu_elapsed_ns();
        if (cpu >= sample_ns / 10 || calls >= 10'000'000) {
          one = std::max<std::int64_t>(1, cpu / calls);
          break;
        }
      }
      const std::int64_t per_sample = std::clamp<std::int64_t>(sample_ns / one, 1, 10'000'000);
      Samples s;
      const std::string label = std::to_string(n);
      for (int rep = 0; rep < r.settings.reps; ++rep) {
        ctx.check_stop();
        Stopwatch sw;
        for (std::int64_t k = 0; k < per_sample; ++k) sink += build().size();
        s.wall.push_back(double(sw.wall_elapsed_ns()) / double(per_sample));
        s.cpu.push_back(double(sw.cpu_elapsed_ns()) / double(per_sample));
        // A step per sample: a sample takes about as long as an append round, so the progress
        // follows the time.
        if (rep + 1 < r.settings.reps)
          r.step("building " + label + "-event statements with " + to_string(b) + ": sample " +
                 std::to_string(rep + 1) + "/" + std::to_string(r.settings.reps));
      }
      Point t = make_point(label, s);
      t.x = double(n);
      t.extra["statements_per_sample"] = double(per_sample);
      ctx.add_point("build_time", to_string(b), std::move(t));
      Point a;
      a.label = label;
      a.x = double(n);
      a.samples = {double(allocs.allocations)};
      ctx.add_point("build_allocs", to_string(b), std::move(a));
      Point by;
      by.label = label;
      by.x = double(n);
      by.samples = {double(allocs.bytes)};
      ctx.add_point("build_bytes", to_string(b), std::move(by));
      r.step("built " + label + "-event statements with " + to_string(b));
    }
  }
  if (sink == 42) ctx.progress(r.fraction(), "");  // keeps the builds observable
}

}  // namespace perflab::iolist
