// What perflab-cli's subcommands share (command.h).
#include "cli/command.h"

#include <iostream>

namespace perflab {

int fail_program(int code, const std::string& message) {
  std::cerr << "perflab-cli: " << message << "\n";
  return code;
}

}  // namespace perflab
