#pragma once
// The shape of every perflab-cli subcommand: a class constructed on its CLI11 command (where it
// declares the command's options and help) whose run(cmd), called after parsing, does the work
// and returns the exit code. main.cpp puts them on the command line with add_command.
#include <functional>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

namespace perflab {

// A subcommand on perflab-cli's command line: its CLI11 command and what runs it once parsed.
struct Subcommand {
  CLI::App* cmd;
  std::function<int()> run;
};

// Adds `name` to `app` and builds a Command on it (which declares its options there).
template <typename Command>
Subcommand add_command(CLI::App& app, const std::string& name, const std::string& description) {
  CLI::App* cmd = app.add_subcommand(name, description);
  auto command = std::make_shared<Command>(*cmd);
  return {cmd, [command, cmd] { return command->run(*cmd); }};
}

// How run, compare and export report what goes wrong after parsing: "perflab-cli: <message>",
// one line on stderr (their usage errors name the command: "perflab-cli run: ..."). Returns
// `code`.
int fail_program(int code, const std::string& message);

}  // namespace perflab
