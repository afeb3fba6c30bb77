// Plans (runner/plan.h): how a plan's values sit between the defaults and the given ones, and
// the notes a short plan adds for the headline findings it could not settle.
#include <gtest/gtest.h>

#include "runner/experiment.h"
#include "runner/plan.h"
#include "targets/targets.h"

using namespace perflab;

namespace {

const std::vector<Plan> kPlans = {
    {.name = "lecture",
     .summary = "short",
     .values = {{"points", "2"}, {"repetitions", "3"}, {"sample_ms", "5"}},
     .headlines = {{"a_vs_b", {"repetitions"}},
                   {"c_vs_d", {"repetitions", "points"}},
                   {"missing", {"points"}}}}};

std::vector<ParamSpec> specs() {
  return {
      {.name = "points", .type = ParamType::Int, .default_value = "5", .min = 1, .max = 100},
      {.name = "repetitions", .type = ParamType::Int, .default_value = "10", .min = 1, .max = 1000},
      {.name = "sample_ms", .type = ParamType::Int, .default_value = "20", .min = 1, .max = 1000},
      plan_param(kPlans)};
}

// A comparison a / b over the samples, at a 2% threshold.
Finding compare(const std::string& id, std::vector<double> a, std::vector<double> b) {
  auto f = comparison_finding({.id = id, .what = {"A", "B", "time per op"}, .interleaved = true},
                              0.02, a, b);
  EXPECT_TRUE(f.has_value());
  return *f;
}

class Planned : public Experiment {
 public:
  std::string id() const override { return "planned"; }
  std::string title() const override { return "Planned"; }
  std::string purpose() const override { return "offers a lecture plan"; }
  std::vector<ParamSpec> params() const override { return specs(); }
  std::vector<Plan> plans() const override { return kPlans; }
  TargetNeeds needs(const Params&) const override { return {}; }
  void run(RunContext& ctx) override {
    // a is clearly faster than b; c and d cannot be told apart.
    ctx.add_finding(compare("a_vs_b", {1, 1.01, 0.99, 1, 1.02, 0.98, 1, 1.01},
                            {2, 2.02, 1.98, 2, 2.01, 1.99, 2, 2.03}));
    ctx.add_finding(compare("c_vs_d", {1, 3, 1, 3, 1, 3, 2, 2}, {3, 1, 3, 1, 3, 1, 2, 2}));
  }
};

}  // namespace

TEST(Plan, ParameterListsDefaultAndEveryPlan) {
  const ParamSpec p = plan_param(kPlans);
  EXPECT_EQ(p.name, "plan");
  EXPECT_EQ(p.type, ParamType::OneOf);
  EXPECT_EQ(p.default_value, "default");
  EXPECT_EQ(p.choices, (std::vector<std::string>{"default", "lecture"}));
  EXPECT_NE(p.help.find("lecture: short"), std::string::npos) << p.help;
}

TEST(Plan, ValuesSitBetweenTheDefaultsAndTheGivenOnes) {
  const Params plain = Params::resolve(specs(), with_plan(kPlans, {}));
  EXPECT_EQ(plain.get_int("points"), 5);
  EXPECT_EQ(plain.get_string("plan"), "default");

  const Params lecture = Params::resolve(specs(), with_plan(kPlans, {{"plan", "LECTURE"}}));
  EXPECT_EQ(lecture.get_int("points"), 2);
  EXPECT_EQ(lecture.get_int("repetitions"), 3);
  EXPECT_EQ(lecture.get_string("plan"), "lecture");

  const Params overridden =
      Params::resolve(specs(), with_plan(kPlans, {{"plan", "lecture"}, {"repetitions", "7"}}));
  EXPECT_EQ(overridden.get_int("points"), 2);
  EXPECT_EQ(overridden.get_int("repetitions"), 7);

  EXPECT_THROW(with_plan(kPlans, {{"plan", "seminar"}}), ParamError);
}

TEST(Plan, NotesSayWhatIsNotSettledAndWhatTheDefaultPlanMeasures) {
  const std::vector<Finding> findings = {
      compare("a_vs_b", {1, 1.01, 0.99, 1, 1.02, 0.98, 1, 1.01},
              {2, 2.02, 1.98, 2, 2.01, 1.99, 2, 2.03}),
      compare("c_vs_d", {1, 3, 1, 3, 1, 3, 2, 2}, {3, 1, 3, 1, 3, 1, 2, 2})};
  ASSERT_TRUE(finding_settled(findings[0])) << finding_sentence(findings[0]);
  ASSERT_FALSE(finding_settled(findings[1])) << finding_sentence(findings[1]);

  const auto notes =
      plan_notes(kPlans[0], specs(), {{"points", "2"}, {"repetitions", "3"}}, findings);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0].id, "lecture_plan.c_vs_d");
  EXPECT_EQ(notes[0].kind, FindingKind::Note);
  EXPECT_EQ(notes[0].part,
            finding_title(findings[1]) +
                ": the lecture plan's time was not enough to settle it; the default plan "
                "measures repetitions = 10 (here 3), points = 5 (here 2)");
  // A default that measures less than the run did is not what the default plan would add.
  const auto more =
      plan_notes(kPlans[0], specs(), {{"points", "2"}, {"repetitions", "30"}}, findings);
  ASSERT_EQ(more.size(), 2u);
  EXPECT_EQ(more[0].part, finding_title(findings[1]) +
                              ": the lecture plan's time was not enough to settle it; the "
                              "default plan measures points = 5 (here 2)");
  EXPECT_EQ(notes[1].id, "lecture_plan.missing");
  EXPECT_EQ(notes[1].part,
            "Not measured in the lecture plan: missing; the default plan measures "
            "points = 5 (here 2)");
  // Where the default plan measures no more of what settles a finding, the note says so.
  const auto none =
      plan_notes(kPlans[0], specs(), {{"points", "9"}, {"repetitions", "30"}}, findings);
  ASSERT_EQ(none.size(), 2u);
  EXPECT_EQ(none[0].part, finding_title(findings[1]) +
                              ": the lecture plan's time was not enough to settle it; the "
                              "default plan measures no more of it");
  EXPECT_EQ(none[1].part, "Not measured in the lecture plan: missing");
}

// A user who changed what the plan measures (a value that settles no headline) is not told
// that what they left out was not measured; what was measured and not settled still is.
TEST(Plan, AnOverrideOfWhatIsMeasuredListsOnlyWhatWasAskedAndNotGot) {
  const std::vector<Finding> findings = {
      compare("c_vs_d", {1, 3, 1, 3, 1, 3, 2, 2}, {3, 1, 3, 1, 3, 1, 2, 2})};
  const auto notes = plan_notes(
      kPlans[0], specs(), {{"points", "2"}, {"repetitions", "3"}, {"sample_ms", "7"}}, findings);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].id, "lecture_plan.c_vs_d");
  // The plan's own value for it: the missing ones are noted again.
  const auto plain = plan_notes(
      kPlans[0], specs(), {{"points", "2"}, {"repetitions", "3"}, {"sample_ms", "5"}}, findings);
  EXPECT_EQ(plain.size(), 3u);
}

TEST(Plan, EachNoteNamesOnlyWhatMeasuresMoreOfItsFinding) {
  // Two findings left unsettled, each measured by parameters of its own: a build sample's
  // length says nothing about an append, the appends' writers nothing about a build.
  const Plan plan{.name = "lecture",
                  .summary = "short",
                  .values = {{"repetitions", "3"}, {"sample_ms", "5"}},
                  .headlines = {{"build", {"repetitions", "sample_ms"}},
                                {"append", {"repetitions"}},
                                {"allocations", {}}}};
  const std::vector<double> a = {1, 3, 1, 3, 1, 3, 2, 2}, b = {3, 1, 3, 1, 3, 1, 2, 2};
  const std::vector<Finding> findings = {compare("build", a, b), compare("append", a, b),
                                         compare("allocations", a, b)};
  const auto notes = plan_notes(
      plan, specs(), {{"points", "5"}, {"repetitions", "3"}, {"sample_ms", "5"}}, findings);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0].id, "lecture_plan.build");
  EXPECT_NE(notes[0].part.find("repetitions = 10 (here 3), sample_ms = 20 (here 5)"),
            std::string::npos)
      << notes[0].part;
  EXPECT_EQ(notes[1].id, "lecture_plan.append");
  EXPECT_NE(notes[1].part.find("the default plan measures repetitions = 10 (here 3)"),
            std::string::npos)
      << notes[1].part;
  EXPECT_EQ(notes[1].part.find("sample_ms"), std::string::npos) << notes[1].part;
  // Nothing measures more of a count that does not vary: the note adds no parameter.
  EXPECT_EQ(notes[2].part,
            finding_title(findings[2]) + ": the lecture plan's time was not enough to settle it");
}

TEST(Plan, ExecuteRecordsThePlanAndAddsItsNotes) {
  Planned e;
  Targets t;
  const perflab::Run r = execute(e, t, {{"plan", "lecture"}, {"points", "4"}}, {}, {});
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  EXPECT_EQ(r.params.at("plan"), "lecture");
  EXPECT_EQ(r.params.at("points"), "4");
  EXPECT_EQ(r.params.at("repetitions"), "3");
  std::vector<std::string> ids;
  for (const auto& f : r.findings) ids.push_back(f.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"a_vs_b", "c_vs_d", "lecture_plan.c_vs_d",
                                           "lecture_plan.missing"}));

  const perflab::Run plain = execute(e, t, {}, {}, {});
  EXPECT_EQ(plain.params.at("plan"), "default");
  EXPECT_EQ(plain.findings.size(), 2u);  // the default plan adds no notes
}
