#include <gtest/gtest.h>

#include <cmath>

#include "common/figure_format.h"

using namespace perflab;

namespace {
Estimate figure_interval(double value, double lo, double hi,
                         CiMethod m = CiMethod::PairedBootstrap) {
  Estimate e;
  e.value = value, e.lo = lo, e.hi = hi, e.level = 0.95, e.full_level = true, e.method = m;
  return e;
}
}  // namespace

TEST(FigureFormat, Figures) {
  EXPECT_EQ(format_figure(0.78), "0.78");
  EXPECT_EQ(format_figure(0.0078), "0.0078");
  EXPECT_EQ(format_figure(0.00781234), "0.00781");
  EXPECT_EQ(format_figure(1234.567), "1234.57");
  EXPECT_EQ(format_figure(0), "0.00");
  EXPECT_EQ(format_figure(1.234e8), "1.23e+08");
  EXPECT_EQ(format_figure(NAN), "n/a");
}

TEST(FigureFormat, EstimatesWithTheirIntervalsAndTheirRealLevel) {
  EXPECT_EQ(format_estimate(figure_interval(1.0213, 0.9712, 1.0634)), "1.02 [0.97–1.06] (95% CI)");
  EXPECT_EQ(format_estimate(figure_interval(0.00781, 0.00712, 0.00853)),
            "0.0078 [0.0071–0.0085] (95% CI)");
  EXPECT_EQ(format_estimate(figure_interval(0.7812, 0.7751, 0.7893)),
            "0.781 [0.775–0.789] (95% CI)");
  EXPECT_EQ(format_estimate(figure_interval(12345, 12001, 12702)), "12345 [12001–12702] (95% CI)");
  // A huge value: its ends in the same notation, also an end below 1e7.
  EXPECT_EQ(format_estimate(figure_interval(1.75e7, 5567554, 2.55e7)),
            "1.75e+07 [5.57e+06–2.55e+07] (95% CI)");
  EXPECT_EQ(format_estimate(figure_interval(0.5, 0.5, 0.5)), "0.500 [0.500–0.500] (95% CI)");

  // The level as it is, with the samples it came from: never "95%" beside a lower one.
  auto few = figure_interval(3, 1, 5, CiMethod::OrderStatistic);
  few.full_level = false, few.level = 0.9375, few.n = 5;
  EXPECT_EQ(format_estimate(few), "3.00 [1.00–5.00] (93.8% CI, n = 5)");
  few.method = CiMethod::Bootstrap;
  EXPECT_EQ(format_estimate(few), "3.00 [1.00–5.00] (≤93.8% CI, n = 5)");
  auto three = figure_interval(3, 1, 5, CiMethod::OrderStatistic);
  three.full_level = false, three.level = 0.75, three.n = 3;
  EXPECT_EQ(format_level(three), "75% CI, n = 3");
  auto twenty = figure_interval(3, 1, 5, CiMethod::OrderStatistic);
  twenty.level = 0.9586, twenty.n = 20;
  EXPECT_EQ(format_level(twenty), "95.9% CI, n = 20");
  // A wide interval keeps the two decimals ratios are written with.
  EXPECT_EQ(format_estimate(figure_interval(1.2, 0.78, 1.45)), "1.20 [0.78–1.45] (95% CI)");
  EXPECT_EQ(format_estimate(figure_interval(25.3, 11.2, 40.7)), "25 [11–41] (95% CI)");

  Estimate alone;
  alone.value = alone.lo = alone.hi = 0.78;
  EXPECT_EQ(format_estimate(alone), "0.78 (no interval)");
}

TEST(FigureFormat, CountsAreWholeNumbers) {
  // A count of backends, connections or clients is an integer, never "20.00".
  EXPECT_TRUE(is_count_unit("backends"));
  EXPECT_TRUE(is_count_unit("connections"));
  EXPECT_TRUE(is_count_unit("clients"));
  EXPECT_FALSE(is_count_unit("us/op"));
  EXPECT_FALSE(is_count_unit("MiB"));
  EXPECT_FALSE(is_count_unit("events/s"));
  EXPECT_EQ(format_figure(20, "backends"), "20");
  EXPECT_EQ(format_figure(1000, "connections"), "1000");
  EXPECT_EQ(format_figure(0, "appends"), "0");
  EXPECT_EQ(format_figure(6, "rounds"), "6");  // main printed "6.00 rounds"
  EXPECT_EQ(format_figure(3, "repetitions"), "3");
  EXPECT_EQ(format_figure(20.5, "backends"), "20.50");  // a median of two counts
  EXPECT_EQ(format_figure(20, "MiB"), "20.00");         // not a count: as before
  EXPECT_EQ(format_figure(NAN, "backends"), "n/a");
  Estimate alone;
  alone.value = alone.lo = alone.hi = 20;
  EXPECT_EQ(format_estimate(alone, "backends"), "20 (no interval)");
  EXPECT_EQ(format_estimate(alone, "ms"), "20.00 (no interval)");
  auto whole = figure_interval(20, 18, 21, CiMethod::OrderStatistic);
  whole.n = 10;
  EXPECT_EQ(format_estimate(whole, "backends"), "20 [18–21] (95% CI, n = 10)");
  // Ends that are not whole (a bootstrap's): the figure as any other.
  EXPECT_EQ(format_estimate(figure_interval(20, 18.5, 21.25), "backends"),
            format_estimate(figure_interval(20, 18.5, 21.25)));
}

TEST(FigureFormat, PercentAndPValues) {
  EXPECT_EQ(format_percent(0.123), "12%");
  EXPECT_EQ(format_percent(0.024), "2.4%");
  EXPECT_EQ(format_percent(0.02), "2%");
  EXPECT_EQ(format_percent(0.0051), "0.51%");
  EXPECT_EQ(format_p_value(0.04321), "p = 0.0432");
  EXPECT_EQ(format_p_value(0.00001), "p < 0.0001");
  EXPECT_EQ(format_p_value(1), "p = 1.0000");
}

TEST(FigureFormat, VerdictsAlone) {
  EXPECT_EQ(verdict_text(Verdict::Equivalent, 0.02), "equivalent within ±2%");
  EXPECT_EQ(verdict_text(Verdict::LeansSlower, 0.02), "slower, not shown beyond ±2%");
  EXPECT_EQ(verdict_text(Verdict::NoDifference, 0.02), "no significant difference");
  EXPECT_EQ(verdict_text(Verdict::TooFewSamples, 0.02), "too few repetitions to judge");
}

TEST(FigureFormat, NoiseWarnings) {
  EXPECT_FALSE(noise_warning(0.05, nullptr));
  EXPECT_EQ(*noise_warning(0.14, nullptr),
            "this figure is noisy (CV 14%) — rerun, or raise repetitions");

  MachineNoise busy;
  busy.load_per_core_before = 1.8;
  busy.loaded = true;
  EXPECT_EQ(*noise_warning(0.14, &busy),
            "this figure is noisy (CV 14%): the machine was busy (load 1.8 per core before the "
            "run) — rerun, or raise repetitions");
  busy.steal_share = 0.07;
  busy.stolen = true;
  EXPECT_EQ(describe_machine(busy),
            "load 1.8 per core before the run, CPU steal 7% during the run");
  EXPECT_EQ(*noise_warning(0.03, &busy),
            "this figure may be noisy: the machine was busy (load 1.8 per core before the run, "
            "CPU steal 7% during the run) — rerun, or raise repetitions");

  MachineNoise calm;
  calm.load_per_core_before = 0.1;
  EXPECT_FALSE(noise_warning(0.03, &calm));
  EXPECT_EQ(describe_machine(calm), "");
}

TEST(FigureFormat, UnitTextWritesMicrosecondsAsAReaderReadsThem) {
  EXPECT_EQ(unit_text("us/get"), "µs/get");
  EXPECT_EQ(unit_text("us"), "µs");
  EXPECT_EQ(unit_text("us/op, lower is better"), "µs/op, lower is better");
  // Only the word: a unit that merely contains the letters stays as it is.
  EXPECT_EQ(unit_text("bus/s"), "bus/s");
  EXPECT_EQ(unit_text("users"), "users");
  EXPECT_EQ(unit_text("ns/statement"), "ns/statement");
  EXPECT_EQ(unit_text(""), "");
}
