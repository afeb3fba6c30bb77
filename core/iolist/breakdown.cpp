// Where an append's time goes: the round-trip phases of one append (BEGIN, check, build, INSERT,
// COMMIT) as a stacked group, one stack per builder and writer count.
#include "iolist/iolist_run.h"

namespace perflab::iolist {

namespace {

// The phases of the round-trip transport, in the order they run.
constexpr Phase kRoundTripPhases[] = {Phase::Begin, Phase::Check, Phase::Build, Phase::Insert,
                                      Phase::Commit};

// "iolist, 10 writers, RTT 1 ms": short, as a stack's label stands under it, and never a
// measured figure: a point's label is its identity (Compare matches on it).
std::string breakdown_label(Builder b, std::int64_t writers, const std::string& rtt) {
  return std::string(to_string(b)) + ", " + std::to_string(writers) +
         (writers == 1 ? " writer" : " writers") + rtt_suffix(rtt);
}

}  // namespace

Group breakdown_group(std::size_t events) {
  Group g{"append_breakdown",
          "Where an append's time goes (" + std::to_string(events) + " events)",
          "% of one append",
          "",
          false,
          true,
          "Each phase of one append as timed by the writer (wall clock, mean over the writers): "
          "BEGIN, the expected-version check, building the INSERT (the builder's work: text and "
          "parameters), sending the INSERT, COMMIT — each its own round trip. A part is its "
          "phase's median time; the stack (100%) is the sum of the five medians, which is close "
          "to the median append (the append group). A point's figures also hold each phase's µs "
          "and thread CPU. The findings' shares are ratios of "
          "medians over the same repetitions, with their intervals."};
  g.stacked = true;
  g.y_label = "% of one append (its phases stacked)";  // a share: no better direction
  return g;
}

// The phases' shares of one append: each repetition's phase time in % of the sum of the phases'
// medians, so a part's median is its phase's median time in % of that sum and the parts add up
// to exactly 100%.
void publish_breakdown(RunContext& ctx, Builder builder, std::int64_t writers,
                       const std::string& rtt, const AppendSamples& s) {
  const double whole = s.median_sum(kRoundTripPhases);
  if (!(whole > 0)) return;
  const std::string stack = breakdown_label(builder, writers, rtt);
  for (Phase ph : kRoundTripPhases) {
    Point q;
    q.label = stack;
    for (double us : s.wall(ph)) q.samples.push_back(100.0 * us / whole);
    q.extra["us"] = summarize(s.wall(ph)).median;
    q.extra["cpu_us"] = summarize(s.cpu(ph)).median;
    ctx.add_point("append_breakdown", to_string(ph), std::move(q));
  }
}

}  // namespace perflab::iolist
