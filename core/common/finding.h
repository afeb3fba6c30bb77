#pragma once
// A finding: one figure a run states about what it measured, with the model every sentence
// about it is generated from (docs/verdicts.md). No finding's words are written beside its
// number: the subject, the baseline, the metric and which way is better go in, the text comes out.
//
// Three kinds:
//   - Comparison: subject / baseline of one metric, a ratio with its interval and a verdict
//     ("document, wall time per get: Redis GET / PostgreSQL SELECT = 2.46 [2.01–10.2] (95% CI,
//     n = 10) — PostgreSQL SELECT faster");
//   - Share: part / whole of the same repetitions, between 0 and 100% ("share of one append
//     that waits for the WAL flush: 12% [8.1%–15%]", or "below what this run can measure
//     (≤ 19%)" when its interval reaches 0);
//   - Figure: a count or a figure with a unit, exact or with an interval, no verdict;
//   - Note: a statement about the run with no figure ("twemproxy left out: not installed").
// An article's claim (significance.h Claim) can stand beside any of them.
#include <optional>
#include <span>
#include <string>

#include "common/confidence.h"
#include "common/significance.h"

namespace perflab {

// What a compared figure is, for the words that name the winner: times and throughput are
// "faster", CPU "cheaper in CPU", counts (allocations, bytes) "needs fewer"/"needs more".
enum class Quantity { Time, Throughput, Cpu, Count };
const char* to_string(Quantity q);  // "time", "throughput", "cpu", "count": run files

// What a comparison compares: the ratio subject / baseline of one metric.
struct ComparedPair {
  std::string subject{}, baseline{};  // "Redis GET", "PostgreSQL SELECT"
  std::string metric{};               // "wall time per get"
  Quantity quantity = Quantity::Time;
  Better better = Better::Lower;
};

enum class FindingKind { Comparison, Share, Figure, Note };
const char* to_string(FindingKind k);  // "comparison", "share", "figure", "note"

// A known error of the measuring tool itself (an open-loop generator's own lag): the ratio with
// it taken out on the side where it helps the subject most and where it helps the baseline most.
// A comparison carrying one is judged only when both ends give the verdict the measured ratio
// gives; its sentence says how far the error moves the ratio either way.
struct ToolError {
  std::string what{};  // "the generator's own lag"
  Estimate low{}, high{};
};

struct Finding {
  std::string id;  // stable key, e.g. "append_1.iolist_vs_interpolate"; never a measured value
  FindingKind kind = FindingKind::Figure;
  // What was measured, e.g. "document" or "Append 100 events, 10 writers"; may be empty.
  std::string context;
  // The chart (Group::id) whose series the finding is computed from, e.g. "append"; empty when
  // it is about no single chart of the run.
  std::string group;
  ComparedPair comparison;  // kind Comparison
  // kind Share: what part of what whole ("waiting for the WAL flush", "one append");
  // kind Figure: what the figure is ("MOVED redirections the client followed"); kind Note: the
  // statement.
  std::string part, whole;
  std::string unit;  // kind Figure: the figure's unit ("", "s", "%", "keys")
  // Why no verdict is given although there is an interval (e.g. a peer's run was too short);
  // empty when the finding is judged as its kind is.
  std::string not_judged_because;
  std::optional<ToolError> tool_error = std::nullopt;  // kind Comparison

  double value = 0;  // the ratio, the share (0..1) or the figure
  // The figure's interval; absent for exact figures (counts: a comparison without one is judged
  // on its value) and in old run files.
  std::optional<Estimate> ci = std::nullopt;
  // The run's threshold of practical significance (comparisons).
  double threshold = 0.02;
  std::optional<Claim> claim = std::nullopt;  // what the article published about this figure

  // Generated from the model (finding.cpp); for run files written before the model, the text
  // they stored.
  std::string text;

  // The verdict on a comparison with an interval (judge_ratio); nullopt for other kinds, without
  // an interval, or not judged.
  std::optional<Verdict> verdict() const;
  // The article's claim judged against the interval (NotJudged without either).
  Reproduction reproduction() const;
  // The ratio with its verdict, when the finding is a judged comparison.
  std::optional<RatioJudgement> judgement() const;
};

// An exact figure as an estimate: the interval is the value itself, its level 1.
Estimate exact_estimate(double value);

// The finding "subject / baseline" over two series' samples: the ratio of their medians with its
// interval (paired bootstrap when `interleaved`: sample r of each was measured in the same
// round). nullopt when there is no ratio (a side without samples, a zero median below).
struct ComparisonSpec {
  std::string id{};
  std::string context{};
  ComparedPair what{};
  bool interleaved = false;
  std::string not_judged_because{};  // non-empty: no verdict, and this says why
  std::optional<Claim> claim = std::nullopt;
  // Both sides are exact (deterministic counts): the ratio has no interval and is judged as it
  // is.
  bool exact = false;
  std::string group{};  // Finding::group
};
std::optional<Finding> comparison_finding(const ComparisonSpec& spec, double threshold,
                                          std::span<const double> subject,
                                          std::span<const double> baseline);

// subject / baseline as comparison_finding, each side also measured per repetition with the
// tool's own error taken out (`*_less`, the same length as its side; no error: the side itself).
// The true ratio lies between subject_less / baseline and subject / baseline_less; when either
// end would give a different verdict, the finding is not judged and says so with both ends.
struct SidesLessError {
  std::span<const double> subject, subject_less, baseline, baseline_less;
};
std::optional<Finding> bounded_comparison_finding(const ComparisonSpec& spec, double threshold,
                                                  const std::string& error,
                                                  const SidesLessError& sides);

// The share part / whole over the same repetitions (paired): its interval, no verdict.
struct ShareSpec {
  std::string id{};
  std::string context{};
  std::string part{}, whole{};
  std::optional<Claim> claim = std::nullopt;
  std::string group{};  // Finding::group
};
std::optional<Finding> share_finding(const ShareSpec& spec, std::span<const double> part,
                                     std::span<const double> whole);

// A figure: exact (no interval) or with one.
struct FigureSpec {
  std::string id{};
  std::string context{};
  std::string what{};
  std::string unit{};
  std::string group{};  // Finding::group
};
Finding figure_finding(const FigureSpec& spec, double value,
                       std::optional<Estimate> ci = std::nullopt);
// A statement without a figure (FigureSpec::what; no unit).
Finding note_finding(const FigureSpec& spec);

// The words, generated from the model only:
// - the title: what is compared or measured, no number and no verdict
//   ("document, wall time per get: Redis GET / PostgreSQL SELECT");
std::string finding_title(const Finding& f);
// - the figure with its interval and its real level ("2.46 [2.01–10.2] (95% CI, n = 10)"), a
//   share as a percentage, a figure with its unit;
std::string finding_figure(const Finding& f);
// - the verdict, naming the winner ("PostgreSQL SELECT faster", "equivalent within ±2%",
//   "no significant difference: Redis GET could be 21% slower or 19% faster"); empty when the
//   finding has none;
std::string finding_verdict(const Finding& f);
// - how far a tool's own error moves a judged comparison's ratio ("the generator's own lag
//   taken out: 43 [40–46]", "... taken out: the same" when it moves nothing that can be read);
//   empty without one or when the finding is not judged (its reason says it);
std::string finding_error(const Finding& f);
// - the article's claim and what this run says of it ("article 2 (2 ± 0.5): not reproduced",
//   "article 0.78 (0.78 ± 0.05): inconclusive — about 40 repetitions (now 10) might settle it");
//   empty without a claim;
std::string finding_claim(const Finding& f);
// - all of it in one line: "title: figure — verdict; error; claim".
std::string finding_sentence(const Finding& f);

// Sets f.text from the model (what every constructor above does; run_io after reading).
void generate_text(Finding& f);

}  // namespace perflab
