// The rules of finding_rules.h: each word of a finding's sentence against its numbers.
#include "finding_rules.h"

#include <cmath>
#include <regex>

namespace perflab::test {

namespace {

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

bool starts(const std::string& text, const std::string& what) {
  return text.rfind(what, 0) == 0;
}

// The adjective a quantity's better side is called by (independent of the generator's table).
std::string better_word(Quantity q) {
  switch (q) {
    case Quantity::Time:
    case Quantity::Throughput:
      return "faster";
    case Quantity::Cpu:
      return "cheaper";
    case Quantity::Count:
      return "lower";
  }
  return "better";
}

}  // namespace

std::vector<std::string> finding_rule_violations(const Finding& f) {
  std::vector<std::string> out;
  auto fail = [&](const std::string& why) { out.push_back(f.id + ": " + why); };
  const std::string sentence = finding_sentence(f);
  const bool interval = f.ci && f.ci->has_interval();
  const double lo = interval ? f.ci->lo : f.value, hi = interval ? f.ci->hi : f.value;

  // A figure lies inside its own interval.
  if (interval && !(lo <= f.value && f.value <= hi)) fail("value outside its interval");

  // What a finding is about carries no direction: only the verdict, generated, says who wins.
  static const std::regex direction(R"(\b(faster|slower|cheaper|costlier|better|worse)\b)",
                                    std::regex::icase);
  if (std::regex_search(f.text, direction)) fail("direction word in the title: " + f.text);

  // An interval's label states its real level.
  static const std::regex level(R"(\((≤?)([0-9.]+)% CI)");
  for (std::sregex_iterator it(sentence.begin(), sentence.end(), level), end; it != end; ++it) {
    const double said = std::stod((*it)[2].str()) / 100;
    if (!f.ci || std::abs(said - f.ci->level) > 0.0006)
      fail("interval labelled " + (*it)[2].str() + "% but its level is " +
           std::to_string(f.ci ? f.ci->level : 0));
  }

  // A comparison is judged on its interval, or an exact one on its value.
  const bool exact_comparison = f.kind == FindingKind::Comparison && !f.ci;
  if (f.kind == FindingKind::Comparison && (interval || exact_comparison) &&
      f.not_judged_because.empty()) {
    const ComparedPair& c = f.comparison;
    const double t = f.threshold;
    const bool lower = c.better == Better::Lower;
    const std::string verdict = finding_verdict(f);
    const std::string word = better_word(c.quantity);
    const bool beyond_low = hi<1 - t, beyond_high = lo> 1 + t;
    const bool inside = 1 - t <= lo && hi <= 1 + t, holds_one = lo <= 1 && 1 <= hi;
    // The subject wins when its ratio lies on the better side of 1.
    const bool subject_side = lower ? hi < 1 : lo > 1;
    const bool subject_wins_beyond = lower ? beyond_low : beyond_high;
    const bool baseline_wins_beyond = lower ? beyond_high : beyond_low;
    if (verdict == c.subject + " " + word) {
      if (!subject_wins_beyond) fail("says " + c.subject + " " + word + " short of the band");
    } else if (verdict == c.baseline + " " + word) {
      if (!baseline_wins_beyond) fail("says " + c.baseline + " " + word + " short of the band");
    } else if (starts(verdict, "equivalent within")) {
      if (!inside) fail("equivalent, but the interval leaves the band");
    } else if (starts(verdict, "no significant difference")) {
      if (!holds_one) fail("no significant difference, but the interval excludes 1");
      if (inside) fail("no significant difference, but the interval is inside the band");
    } else if (has(verdict, "not shown beyond")) {
      if (holds_one) fail("leans one way, but the interval holds 1");
      if (beyond_low || beyond_high) fail("not shown beyond the band, but it is");
      const bool names_subject = starts(verdict, c.subject + " " + word);
      const bool names_baseline = starts(verdict, c.baseline + " " + word);
      if (names_subject == names_baseline || names_subject != subject_side)
        fail("leans toward the wrong side: " + verdict);
    } else {
      fail("a comparison with an interval and no verdict: " + sentence);
    }
  }

  if (f.claim && interval) {
    const Claim& band = *f.claim;
    const bool in = band.lo <= lo && hi <= band.hi;
    const bool outside = hi < band.lo || lo > band.hi;
    if (has(sentence, ": not reproduced")) {
      if (!outside) fail("not reproduced, but the interval meets the claim's band");
    } else if (has(sentence, ": reproduced")) {
      if (!in) fail("reproduced, but the interval leaves the claim's band");
    } else if (has(sentence, ": inconclusive")) {
      if (in || outside) fail("inconclusive, but the interval settles the claim");
    } else {
      fail("a claim with an interval and no judgement: " + sentence);
    }
  }

  // A verdict judged beside a tool's own error holds at both ends the error allows; one withheld
  // for it would change at an end.
  if (f.kind == FindingKind::Comparison && f.tool_error) {
    const Better b = f.comparison.better;
    const auto low = judge_ratio(f.tool_error->low, b, f.threshold);
    const auto high = judge_ratio(f.tool_error->high, b, f.threshold);
    if (const auto v = f.verdict(); v && (low != *v || high != *v))
      fail("judged, though " + f.tool_error->what + " changes the verdict at an end: " + sentence);
    if (has(f.not_judged_because, "could change it") && f.ci &&
        low == judge_ratio(*f.ci, b, f.threshold) && high == judge_ratio(*f.ci, b, f.threshold))
      fail("withheld for " + f.tool_error->what + ", which changes nothing: " + sentence);
  }

  if (f.kind == FindingKind::Share) {
    // Every percentage of a share lies in 0..100%, and none is negative.
    static const std::regex percent(R"((-?[0-9.]+)%)");
    const std::string figure = finding_figure(f);
    for (std::sregex_iterator it(figure.begin(), figure.end(), percent), end; it != end; ++it) {
      const double v = std::stod((*it)[1].str());
      if (v < 0 || v > 100.0001) fail("share outside 0..100%: " + figure);
    }
    if (interval && lo <= 0 && !has(figure, "below what this run can measure"))
      fail("a share whose interval reaches 0 is stated as a figure: " + figure);
  }
  return out;
}

}  // namespace perflab::test
