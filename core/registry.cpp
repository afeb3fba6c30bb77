// The registry: every experiment Perflab has. Each experiment adds one line here.
#include "registry.h"

#include "caching/experiment.h"
#include "iolist/experiment.h"
#include "sharding/experiment.h"

namespace perflab {

std::vector<std::unique_ptr<Experiment>> all_experiments() {
  std::vector<std::unique_ptr<Experiment>> v;
  v.push_back(make_iolist_experiment());
  v.push_back(make_sharding_experiment());
  v.push_back(make_caching_experiment());
  return v;
}

std::unique_ptr<Experiment> make_experiment(const std::string& id) {
  for (auto& e : all_experiments())
    if (e->id() == id) return std::move(e);
  return nullptr;
}

}  // namespace perflab
