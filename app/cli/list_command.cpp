// `perflab-cli list` (list_command.h): the registry's experiments and their parameters.
#include "cli/list_command.h"

#include <iostream>

#include "cli11/command_line.h"
#include "common/params.h"
#include "registry/registry.h"

namespace perflab {

ListCommand::ListCommand(CLI::App&) {}

int ListCommand::run(const CLI::App&) {
  for (const auto& e : all_experiments()) {
    std::cout << e->id() << " — " << e->title() << "\n  " << e->purpose() << "\n";
    for (const auto& plan : e->plans()) {
      std::cout << "  --plan " << plan.name << ": " << plan.summary << "\n   ";
      for (const auto& [name, value] : plan.values) std::cout << " " << name << "=" << value;
      std::cout << "\n";
    }
    for (const auto& s : e->params())
      std::cout << "    --param " << s.name << "=" << s.default_value << "  (" << describe_param(s)
                << ")  " << s.help << "\n";
    std::cout << "\n";
  }
  return cli::kExitOk;
}

}  // namespace perflab
