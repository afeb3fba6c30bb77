// What a test asks of an experiment's run (run_probes.h).
#include "run_probes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string_view>

namespace perflab::test {

RunHooks at_first_step(std::string text, std::function<void()> action) {
  RunHooks hooks;
  hooks.progress = [text = std::move(text), action = std::move(action),
                    done = std::make_shared<bool>(false)](double, std::string_view step) {
    if (*done || step.find(text) == std::string_view::npos) return;
    *done = true;
    action();
  };
  return hooks;
}

const Finding* find_finding(const perflab::Run& run, const std::string& id) {
  for (const auto& f : run.findings)
    if (f.id == id) return &f;
  return nullptr;
}

void expect_plan_shown(const Experiment& exp, const perflab::Run& run, const std::string& plan) {
  const auto plans = exp.plans();
  const Plan* p = find_plan(plans, plan);
  ASSERT_NE(p, nullptr) << plan;
  ASSERT_TRUE(run.params.count("plan"));
  EXPECT_EQ(run.params.at("plan"), plan);
  for (const auto& [name, value] : p->values) {
    ASSERT_TRUE(run.params.count(name)) << name;
    EXPECT_EQ(run.params.at(name), value) << name;
  }
  const auto headline =
      std::find_if(run.groups.begin(), run.groups.end(), [](const Group& g) { return g.headline; });
  ASSERT_NE(headline, run.groups.end()) << "no headline chart";
  std::size_t points = 0;
  for (const auto& s : run.series)
    if (s.group == headline->id) points += s.points.size();
  EXPECT_GT(points, 0u) << headline->id;
  EXPECT_FALSE(p->headlines.empty());
  for (const auto& h : p->headlines) {
    const std::string& id = h.finding;
    SCOPED_TRACE(id);
    const Finding* f = find_finding(run, id);
    ASSERT_NE(f, nullptr) << "headline finding missing";
    const Finding* note = find_finding(run, plan + "_plan." + id);
    if (finding_settled(*f)) {
      EXPECT_EQ(note, nullptr) << finding_sentence(*f);
    } else {
      ASSERT_NE(note, nullptr) << finding_sentence(*f);
      EXPECT_NE(note->part.find("not enough to settle"), std::string::npos) << note->part;
      // The note names only what measures more of this finding.
      for (const auto& spec : exp.params()) {
        if (note->part.find(" " + spec.name + " = ") == std::string::npos) continue;
        EXPECT_NE(std::find(h.settled_by.begin(), h.settled_by.end(), spec.name),
                  h.settled_by.end())
            << note->part;
      }
    }
  }
}

}  // namespace perflab::test
