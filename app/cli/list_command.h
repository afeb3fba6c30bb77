#pragma once
// `perflab-cli list`: every experiment of the registry with its parameters (name, default, range,
// help), as `--param NAME=VALUE` takes them.
#include <CLI/CLI.hpp>

namespace perflab {

class ListCommand {
 public:
  explicit ListCommand(CLI::App& cmd);  // no options
  // After parsing: prints the list on stdout; returns 0.
  int run(const CLI::App& cmd);
};

}  // namespace perflab
