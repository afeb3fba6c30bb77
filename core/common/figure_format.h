#pragma once
// How Perflab writes its figures for people: one set of functions for the CLI, the window, the
// charts' tooltips and the exports, so that a figure reads the same everywhere.
#include <optional>
#include <string>
#include <string_view>

#include "common/confidence.h"
#include "common/machine_noise.h"
#include "common/significance.h"

namespace perflab {

// A unit as a reader reads it: the word "us" as "µs" ("us/get" → "µs/get"), the rest as it is.
std::string unit_text(std::string_view unit);

// A figure alone: two decimals from 0.1 up ("0.78", "1234.57"), three significant digits below
// ("0.0078", "0.00781"), exponent notation from 1e7 ("1.23e+07"); "n/a" when not finite.
std::string format_figure(double v);

// Whether a unit counts things ("backends", "connections", "clients", "appends", "keys"…): a
// whole figure in it is written as the integer it is ("20 backends", never "20.00").
bool is_count_unit(std::string_view unit);
// A figure in its unit: a count that is whole as an integer ("20", "1000"), anything else as
// format_figure(v) writes it (a median of two counts may be "20.50").
std::string format_figure(double v, std::string_view unit);

// An estimate with its interval and the interval's real level: "1.02 [0.97–1.06] (95% CI,
// n = 21)", "0.0078 [0.0071–0.0085] (75% CI, n = 3)"; from 1e7 on all three numbers in exponent
// notation, "1.75e+07 [5.57e+06–2.55e+07] (95.9% CI, n = 20)". Below that, the value and both ends
// get the same decimals: enough for the value to keep two significant digits (and two decimals
// from 0.1 to 10, as ratios are written) and for the ends to differ by at least 5 in the last
// one shown. Without an interval: "0.78 (no interval)".
std::string format_estimate(const Estimate& e);
// An estimate in its unit: a count whose value and ends are whole as integers ("20 [18–20] (95%
// CI, n = 10)", "20 (no interval)"); anything else as format_estimate(e) writes it.
std::string format_estimate(const Estimate& e, std::string_view unit);

// A ratio to a baseline with its interval, as format_estimate writes it: "0.93× interpolate
// [0.88–0.99] (95% CI, n = 6)"; "1.20× native (no interval)".
std::string format_relative(const Estimate& ratio, const std::string& baseline);

// An interval's level as every view labels it: "95% CI, n = 21", "95.9% CI, n = 20" (an exact
// order-statistic level), "≤93.8% CI, n = 5" (a bootstrap that few samples keep below its
// nominal level: the bound); "no interval".
std::string format_level(const Estimate& e);

// A share as a percentage with two significant digits: 0.123 → "12%", 0.024 → "2.4%",
// 0.02 → "2%", 0.0051 → "0.51%".
std::string format_percent(double share);

// "p = 0.0432" (four decimals, as compare.py prints it), "p < 0.0001".
std::string format_p_value(double p);

// A verdict alone, for a table whose row names both sides (compare: new vs old): "faster",
// "slower", "equivalent within ±2%", "no significant difference", "faster, not shown beyond
// ±2%", "too few repetitions to judge". A finding's verdict names its sides: finding_verdict().
std::string verdict_text(Verdict v, double threshold);

// "load 1.8 per core before the run, CPU steal 7% during it"; empty when neither was high.
std::string describe_machine(const MachineNoise& m);

// The warning a noisy figure carries, nullopt when it is calm:
// "this figure is noisy (CV 14%): the machine was busy (load 1.8 per core before the run) —
// rerun, or raise repetitions". machine may be null (not measured).
std::optional<std::string> noise_warning(double cv, const MachineNoise* machine,
                                         const NoiseThresholds& t = {});

}  // namespace perflab
