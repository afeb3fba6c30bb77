// What a test asks of an experiment's run (run_probes.h).
#include "run_probes.h"

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

}  // namespace perflab::test
