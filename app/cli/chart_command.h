#pragma once
// `perflab-cli chart`: renders a run file's charts to PNG, SVG and PDF without a display.
#include <string>
#include <vector>

namespace perflab {

// args are the words after "chart":
//   run.json [--group ID]... [--log | --log-y | --log-x] [--presentation] [--theme NAME]
//            [--width W] [--height H] [--png F] [--svg F] [--pdf F]
// Prints a one-line message on stderr and returns non-zero on bad input (2: usage, 1: the run
// file or an output cannot be read/written); nothing is written then. Creates a QApplication
// on the offscreen platform when none exists.
int run_chart_command(const std::vector<std::string>& args);

// The usage text of the command.
std::string chart_command_usage();

}  // namespace perflab
