// Findings: their construction from samples and every word said about them (finding.h).
#include "common/finding.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/figure_format.h"

namespace perflab {

const char* to_string(Quantity q) {
  switch (q) {
    case Quantity::Time:
      return "time";
    case Quantity::Throughput:
      return "throughput";
    case Quantity::Cpu:
      return "cpu";
    case Quantity::Count:
      return "count";
  }
  return "time";
}

const char* to_string(FindingKind k) {
  switch (k) {
    case FindingKind::Comparison:
      return "comparison";
    case FindingKind::Share:
      return "share";
    case FindingKind::Figure:
      return "figure";
    case FindingKind::Note:
      return "note";
  }
  return "figure";
}

std::optional<Verdict> Finding::verdict() const {
  if (kind != FindingKind::Comparison || !not_judged_because.empty()) return std::nullopt;
  return judge_ratio(ci ? *ci : exact_estimate(value), comparison.better, threshold);
}

Estimate exact_estimate(double value) {
  Estimate e;
  e.value = e.lo = e.hi = value;
  e.level = 1;
  e.full_level = true;
  e.method = CiMethod::OrderStatistic;
  return e;
}

Reproduction Finding::reproduction() const {
  if (!claim || !ci) return Reproduction::NotJudged;
  return judge_claim(*claim, *ci);
}

std::optional<RatioJudgement> Finding::judgement() const {
  const auto v = verdict();
  if (!v) return std::nullopt;
  return RatioJudgement{ci ? *ci : exact_estimate(value), *v, threshold, comparison.better};
}

namespace {
// A finding of `kind` whose figure is the ratio a / b of two series (its interval, paired when
// `interleaved`), the rest of it left to the caller; nullopt when there is no ratio.
std::optional<Finding> ratio_of(FindingKind kind, const std::string& id, const std::string& context,
                                bool interleaved, std::span<const double> a,
                                std::span<const double> b) {
  RatioOptions opt;
  opt.interleaved = interleaved;
  const std::optional<Estimate> r = ratio_ci(a, b, opt);
  if (!r) return std::nullopt;
  Finding f;
  f.id = id;
  f.kind = kind;
  f.context = context;
  f.value = r->value;
  f.ci = *r;
  return f;
}
}  // namespace

std::optional<Finding> comparison_finding(const ComparisonSpec& spec, double threshold,
                                          std::span<const double> subject,
                                          std::span<const double> baseline) {
  auto f =
      ratio_of(FindingKind::Comparison, spec.id, spec.context, spec.interleaved, subject, baseline);
  if (!f) return std::nullopt;
  f->group = spec.group;
  f->comparison = spec.what;
  f->not_judged_because = spec.not_judged_because;
  if (spec.exact) f->ci.reset();
  f->threshold = threshold;
  f->claim = spec.claim;
  generate_text(*f);
  return f;
}

namespace {
// "43 [40–46]": a ratio with its interval as the finding's figure writes it, without the level
// (the figure states it).
std::string compact_ratio(const Estimate& e) {
  const std::string full = format_estimate(e);
  return full.substr(0, full.find(" ("));
}

// "43.2 [40.1–46.0] to 44.0 [41.0–47.1]", one end when the other reads as the measured ratio.
std::string error_range_text(const Finding& f) {
  const ToolError& e = *f.tool_error;
  // An end that reads as the measured ratio moved nothing that can be seen.
  const auto same = [&](const Estimate& x) {
    return f.ci && compact_ratio(x) == compact_ratio(*f.ci);
  };
  if (same(e.low) && same(e.high)) return {};
  if (same(e.low)) return compact_ratio(e.high);
  if (same(e.high)) return compact_ratio(e.low);
  return compact_ratio(e.low) + " to " + compact_ratio(e.high);
}
}  // namespace

std::optional<Finding> bounded_comparison_finding(const ComparisonSpec& spec, double threshold,
                                                  const std::string& error,
                                                  const SidesLessError& sides) {
  auto f = comparison_finding(spec, threshold, sides.subject, sides.baseline);
  if (!f || !f->ci) return f;
  ComparisonSpec plain = spec;
  plain.not_judged_because.clear();
  auto low = comparison_finding(plain, threshold, sides.subject_less, sides.baseline);
  auto high = comparison_finding(plain, threshold, sides.subject, sides.baseline_less);
  if (!low || !high || !low->ci || !high->ci) return f;
  f->tool_error = ToolError{error, *low->ci, *high->ci};
  if (f->not_judged_because.empty()) {
    const auto v = f->verdict();
    if (low->verdict() != v || high->verdict() != v)
      f->not_judged_because = error + " could change it (taken out: " + error_range_text(*f) + ")";
  }
  return f;
}

std::string finding_error(const Finding& f) {
  if (f.kind != FindingKind::Comparison || !f.tool_error || !f.not_judged_because.empty())
    return {};
  const std::string range = error_range_text(f);
  return f.tool_error->what + " taken out: " + (range.empty() ? "the same" : range);
}

std::optional<Finding> share_finding(const ShareSpec& spec, std::span<const double> part,
                                     std::span<const double> whole) {
  auto f = ratio_of(FindingKind::Share, spec.id, spec.context, true, part, whole);
  if (!f) return std::nullopt;
  f->group = spec.group;
  f->part = spec.part;
  f->whole = spec.whole;
  f->claim = spec.claim;
  generate_text(*f);
  return f;
}

Finding figure_finding(const FigureSpec& spec, double value, std::optional<Estimate> ci) {
  Finding f;
  f.id = spec.id;
  f.kind = FindingKind::Figure;
  f.context = spec.context;
  f.group = spec.group;
  f.part = spec.what;
  f.unit = spec.unit;
  f.value = value;
  f.ci = ci;
  generate_text(f);
  return f;
}

Finding note_finding(const FigureSpec& spec) {
  Finding f = figure_finding(spec, 0);
  f.kind = FindingKind::Note;
  generate_text(f);
  return f;
}

namespace {

// The adjectives of a quantity: what its better and its worse side are called.
struct Words {
  const char *better, *worse;
};
Words words(Quantity q) {
  switch (q) {
    case Quantity::Time:
    case Quantity::Throughput:
      return {"faster", "slower"};
    case Quantity::Cpu:
      return {"cheaper", "costlier"};
    case Quantity::Count:
      return {"lower", "higher"};
  }
  return {"better", "worse"};
}

// How much better or worse a ratio r of the two says one side is: "A is k% faster than B" means
// B takes (1 + k) times as long as A (or A achieves 1 + k times B's throughput), so either side
// of 1 the amount is max(r, 1/r) - 1.
double amount(double r) {
  return (r >= 1 ? r : 1 / r) - 1;
}

// The amount in words: a percentage below 100% ("21%"), a factor from there on ("2.95×": a
// "2681% faster" reads as nothing a room can hold).
std::string amount_text(double r) {
  const double a = amount(r);
  if (a < 1) return format_percent(a);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g×", 1 + a);
  return buf;
}

std::string with_context(const Finding& f, const std::string& rest) {
  return f.context.empty() ? rest : f.context + ", " + rest;
}

std::string percent_share(double v) {
  return format_percent(std::clamp(v, 0.0, 1.0));
}

}  // namespace

std::string finding_title(const Finding& f) {
  switch (f.kind) {
    case FindingKind::Comparison:
      return with_context(
          f, f.comparison.metric + ": " + f.comparison.subject + " / " + f.comparison.baseline);
    case FindingKind::Share:
      return with_context(f, "share of " + f.whole + " " + f.part);
    case FindingKind::Figure:
    case FindingKind::Note:
      return with_context(f, f.part);
  }
  return f.text;
}

std::string finding_figure(const Finding& f) {
  switch (f.kind) {
    case FindingKind::Comparison:
      return f.ci ? format_estimate(*f.ci) : format_figure(f.value) + " (exact)";
    case FindingKind::Share: {
      if (!f.ci || !f.ci->has_interval()) return percent_share(f.value);
      const Estimate& e = *f.ci;
      // A difference of two noisy times can come out below zero: a share cannot.
      if (e.lo <= 0)
        return "below what this run can measure (≤ " + percent_share(e.hi) + ", " +
               format_level(e) + ")";
      return percent_share(e.value) + " [" + percent_share(e.lo) + "–" + percent_share(e.hi) +
             "] (" + format_level(e) + ")";
    }
    case FindingKind::Figure: {
      std::string out = f.ci ? format_estimate(*f.ci, f.unit) : format_figure(f.value, f.unit);
      if (!f.unit.empty()) {
        out += f.unit == "%" ? "" : " ";
        out += f.unit;
      }
      return out;
    }
    case FindingKind::Note:
      return {};
  }
  return format_figure(f.value);
}

std::string finding_verdict(const Finding& f) {
  if (f.kind != FindingKind::Comparison) return {};
  if (!f.not_judged_because.empty()) return "not judged: " + f.not_judged_because;
  const auto v = f.verdict();
  if (!v) return {};
  const ComparedPair& c = f.comparison;
  const Words w = words(c.quantity);
  const double lo = f.ci ? f.ci->lo : f.value, hi = f.ci ? f.ci->hi : f.value;
  const bool lower = c.better == Better::Lower;
  switch (*v) {
    case Verdict::Faster:
      return c.subject + " " + w.better;
    case Verdict::Slower:
      return c.baseline + " " + w.better;
    case Verdict::Equivalent:
      return "equivalent within ±" + format_percent(f.threshold);
    case Verdict::NoDifference: {
      // The interval holds 1: the subject could be worse by its worse end, or better by the other.
      // An end at 1 itself (a knee on the same offered rate in every round) is "equal", not
      // "0% faster".
      const double worse_end = lower ? hi : lo, better_end = lower ? lo : hi;
      std::vector<std::string> could;
      if (amount(worse_end) > 0) could.push_back(amount_text(worse_end) + " " + w.worse);
      if (amount(better_end) > 0) could.push_back(amount_text(better_end) + " " + w.better);
      if (could.size() < 2) could.push_back("equal");
      return "no significant difference: " + c.subject + " could be " + could[0] + " or " +
             could[1];
    }
    case Verdict::LeansFaster:
    case Verdict::LeansSlower: {
      const std::string& winner = *v == Verdict::LeansFaster ? c.subject : c.baseline;
      const double a = amount(lo), b = amount(hi);
      return winner + " " + w.better + ", by between " + format_percent(std::min(a, b)) + " and " +
             format_percent(std::max(a, b)) + " — not shown beyond ±" + format_percent(f.threshold);
    }
    case Verdict::TooFewSamples:
      return "too few repetitions to judge";
  }
  return {};
}

std::string finding_claim(const Finding& f) {
  if (!f.claim) return {};
  const Claim& c = *f.claim;
  const bool share = f.kind == FindingKind::Share;
  std::string out = "article ";
  out += share ? percent_share(c.figure) : format_figure(c.figure);
  if (!share) {
    out += " (";
    out += c.yardstick();
    out += ")";
  }
  const Reproduction r = f.reproduction();
  out += ": ";
  out += to_string(r);
  if (r == Reproduction::Inconclusive) {
    if (auto n = repetitions_to_settle(c, *f.ci))
      out += " — about " + std::to_string(*n) + " repetitions (now " + std::to_string(f.ci->n) +
             ") might settle it";
    else
      out += " — the estimate sits on the claim's edge";
  }
  return out;
}

std::string finding_sentence(const Finding& f) {
  std::string out = f.text.empty() ? finding_title(f) : f.text;
  if (const std::string figure = finding_figure(f); !figure.empty()) {
    out += ": ";
    out += figure;
  }
  if (const std::string v = finding_verdict(f); !v.empty()) {
    out += " — ";
    out += v;
  }
  if (const std::string e = finding_error(f); !e.empty()) {
    out += "; ";
    out += e;
  }
  if (const std::string c = finding_claim(f); !c.empty()) {
    out += "; ";
    out += c;
  }
  return out;
}

void generate_text(Finding& f) {
  f.text = finding_title(f);
}

}  // namespace perflab
