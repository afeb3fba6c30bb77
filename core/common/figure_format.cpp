#include "common/figure_format.h"
#include <cctype>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace perflab {

namespace {
std::string printf_double(const char* format, int decimals, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, decimals, v);
  return buf;
}

// Decimals for the value and ends of an interval (see format_estimate).
int interval_decimals(const Estimate& e) {
  // Two significant digits, and two decimals at least below 10 as format_figure() writes
  // ratios ("0.78", "1.20").
  const double magnitude = std::abs(e.value);
  int d = 0;
  if (magnitude != 0) d = 1 - static_cast<int>(std::floor(std::log10(magnitude)));
  if (magnitude >= 0.1 && magnitude < 10) d = std::max(d, 2);
  const double width = e.hi - e.lo;
  if (std::isfinite(width) && width > 0)
    d = std::max(d, static_cast<int>(std::ceil(std::log10(5 / width))));
  else if (e.value != 0)
    d += 1;  // a zero-width interval: three significant digits
  return std::clamp(d, 0, 8);
}
}  // namespace

std::string format_figure(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[64];
  if (v != 0 && (std::abs(v) >= 1e7 || std::abs(v) < 0.1))
    std::snprintf(buf, sizeof buf, "%.3g", v);
  else
    std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string unit_text(std::string_view unit) {
  std::string out;
  const auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  for (std::size_t i = 0; i < unit.size();) {
    const bool starts = i == 0 || !word(unit[i - 1]);
    if (starts && unit.substr(i, 2) == "us" && (i + 2 == unit.size() || !word(unit[i + 2]))) {
      out += "µs";
      i += 2;
    } else {
      out += unit[i++];
    }
  }
  return out;
}

bool is_count_unit(std::string_view unit) {
  // The things Perflab's figures count, as their groups and findings name them.
  static constexpr std::string_view kCounts[] = {
      "appends",  "backends", "clients",      "connections", "errors",      "events",  "keys",
      "nodes",    "requests", "servers",      "slots",       "standbys",    "writers", "readers",
      "failures", "writes",   "redirections", "rounds",      "repetitions", "runs",    "samples",
      "rows",     "records",  "pauses",       "bytes"};
  return std::find(std::begin(kCounts), std::end(kCounts), unit) != std::end(kCounts);
}

namespace {
bool whole(double v) {
  return std::isfinite(v) && std::abs(v) < 1e15 && v == std::round(v);
}
}  // namespace

std::string format_figure(double v, std::string_view unit) {
  if (is_count_unit(unit) && whole(v)) return printf_double("%.*f", 0, v);
  return format_figure(v);
}

namespace {
// An estimate with `after` written right after its value: format_estimate (nothing) and
// format_relative ("× interpolate"); `count`: whole numbers with no decimals.
std::string estimate_text(const Estimate& e, const std::string& after, bool count = false) {
  if (!e.has_interval())
    return (count ? printf_double("%.*f", 0, e.value) : format_figure(e.value)) + after +
           " (no interval)";
  std::string out;
  // Appended piece by piece: GCC 12 at -O3 flags "literal" + std::string&& as -Wrestrict.
  const bool huge = std::abs(e.value) >= 1e7;
  const int d = huge || count ? 0 : interval_decimals(e);
  // A huge value: every number in exponent notation with three significant digits, the ends
  // too (an end below 1e7 would otherwise be written in full beside "1.75e+07").
  auto number = [&](double v) {
    return huge ? printf_double("%.*e", 2, v) : printf_double("%.*f", d, v);
  };
  out += number(e.value);
  out += after;
  out += " [";
  out += number(e.lo);
  out += e.lo < 0 || e.hi < 0 ? ", " : "–";  // a negative end would read as a range sign
  out += number(e.hi);
  out += "] (";
  out += format_level(e);
  out += ")";
  return out;
}
}  // namespace

std::string format_estimate(const Estimate& e) {
  return estimate_text(e, "");
}

std::string format_estimate(const Estimate& e, std::string_view unit) {
  const bool count =
      is_count_unit(unit) && whole(e.value) && (!e.has_interval() || (whole(e.lo) && whole(e.hi)));
  return estimate_text(e, "", count);
}

std::string format_relative(const Estimate& ratio, const std::string& baseline) {
  return estimate_text(ratio, "× " + baseline);
}

std::string format_level(const Estimate& e) {
  if (!e.has_interval()) return "no interval";
  // An exact level (order statistics) as it is, a bootstrap's short of the nominal one as the
  // bound it is: "95.9% CI", "75% CI", "≤93.8% CI".
  std::string pct = printf_double("%.*f", 1, e.level * 100);
  if (pct.size() > 2 && pct.compare(pct.size() - 2, 2, ".0") == 0) pct.resize(pct.size() - 2);
  std::string out = !e.full_level && e.method != CiMethod::OrderStatistic ? "≤" : "";
  out += pct;
  out += "% CI";
  if (e.n > 0) {
    out += ", n = ";
    out += std::to_string(e.n);
  }
  return out;
}

std::string format_percent(double share) {
  const double pct = share * 100;
  char buf[64];
  if (!std::isfinite(pct)) return "n/a";
  if (std::abs(pct) >= 10)
    std::snprintf(buf, sizeof buf, "%.0f%%", pct);
  else
    std::snprintf(buf, sizeof buf, "%.2g%%", pct);
  return buf;
}

std::string format_p_value(double p) {
  if (p < 0.0001) return "p < 0.0001";
  std::string out = "p = ";
  out += printf_double("%.*f", 4, p);
  return out;
}

std::string verdict_text(Verdict v, double threshold) {
  switch (v) {
    case Verdict::Faster:
    case Verdict::Slower:
    case Verdict::NoDifference:
      return to_string(v);
    case Verdict::Equivalent:
      return "equivalent within ±" + format_percent(threshold);
    case Verdict::LeansFaster:
    case Verdict::LeansSlower: {
      std::string out = v == Verdict::LeansFaster ? "faster" : "slower";
      out += ", not shown beyond ±";
      out += format_percent(threshold);
      return out;
    }
    case Verdict::TooFewSamples:
      return "too few repetitions to judge";
  }
  return to_string(v);
}

std::string describe_machine(const MachineNoise& m) {
  std::string out;
  if (m.loaded && m.busy_share_before) {
    out += "CPUs ";
    out += format_percent(*m.busy_share_before);
    out += " busy with other work just before the run";
  } else if (m.loaded && m.load_per_core_before) {
    out += "load ";
    out += printf_double("%.*f", 1, *m.load_per_core_before);
    out += " per core before the run";
  }
  if (m.stolen && m.steal_share) {
    if (!out.empty()) out += ", ";
    out += "CPU steal ";
    out += format_percent(*m.steal_share);
    out += " during the run";
  }
  return out;
}

std::optional<std::string> noise_warning(double cv, const MachineNoise* machine,
                                         const NoiseThresholds& t) {
  const bool noisy = noisy_point(cv, t);
  const bool busy = machine && machine->busy();
  if (!noisy && !busy) return std::nullopt;
  std::string out;
  if (noisy) {
    out += "this figure is noisy (CV ";
    out += format_percent(cv);
    out += ")";
    if (busy) out += ": ";
  } else {
    out += "this figure may be noisy: ";
  }
  if (busy) {
    out += "the machine was busy (";
    out += describe_machine(*machine);
    out += ")";
  }
  out += " — rerun, or raise repetitions";
  return out;
}

}  // namespace perflab
