// Runs that must hold measurements (common/run_measured.h).
#include "common/run_measured.h"

#include <string>

namespace perflab {

void check_measured(const Run& run, const std::filesystem::path& file) {
  for (const auto& s : run.series)
    if (!s.points.empty()) return;
  std::string why;
  if (run.status != RunStatus::Finished)
    why = std::string(" (status ") + to_string(run.status) +
          (run.message.empty() ? "" : ": " + run.message) + ")";
  throw RunFormatError((file.empty() ? "" : file.string() + ": ") +
                       "field \"series\": no measured point" + why);
}

Run load_measured_run(const std::filesystem::path& path) {
  Run run = load_run(path);
  check_measured(run, path);
  return run;
}

}  // namespace perflab
