#pragma once
// `perflab-cli run EXPERIMENT [--plan NAME] [--param NAME=VALUE]... [targets] [--out F] [-q]`:
// checks the targets, runs an experiment of the registry with progress on stderr, prints its report
// and writes its run file. Ctrl-C stops the run, which keeps what was measured.
// `perflab-cli run --like RUN.json [--param NAME=VALUE]...`: a saved run's experiment and every
// parameter again (each --param changes one); its targets are chosen anew, as for any run.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "targets/targets.h"

namespace perflab {

class Experiment;
struct Run;

class RunCommand {
 public:
  explicit RunCommand(CLI::App& cmd);
  // After parsing: 0 when the run finished and its file is written; 1 when a target, the run or
  // the file failed (a run that measured something is still written, here or at a fallback),
  // 2 on bad parameters, 130 when stopped (Ctrl-C). Problems are one line on stderr.
  int run(const CLI::App& cmd);

 private:
  int measure(Experiment& exp, const std::map<std::string, std::string>& params, Run& run);
  // --like: the saved run's experiment into experiment_ and its parameters (today's names) into
  // `params`, and into like_note_ the line that says what is taken and what is not. kExitOk or
  // the failure's code.
  int take_like(std::map<std::string, std::string>& params);
  int save_or_fall_back(const Run& run);

  std::string experiment_;
  std::string plan_;
  std::string like_;
  std::string like_note_;
  std::vector<std::string> params_;
  std::string query_, keys_;  // --query, --keys: caching on your query
  std::optional<std::string> pg_;
  std::string redis_, redis_cluster_;
  TargetsConfig cfg_;
  int pg_timeout_s_ = 30;
  std::string out_;
  bool quiet_ = false;
  bool verbose_ = false;
};

}  // namespace perflab
