#pragma once
// One command-line behaviour for every Perflab executable, on CLI11: `--opt value` and
// `--opt=value`, `--help` for every command, `--version`, and a usage error as one line on stderr
// with exit code 2.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace perflab::cli {

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2;

// Sets up a command the Perflab way: --help (also -h unless `short_help` is false: a command
// whose -h means something else, like bench's host), --version ("perflab 0.1.0"), defaults shown
// in the help.
void setup(CLI::App& app, bool short_help = true);

// A word that names an option: "--name", "--" or "-x" (a letter); "-", "-1" and "-0.5" are
// values.
bool looks_like_option(const std::string& word);

// The rule of every option that takes a value, in `app` and all its subcommands: its value is
// never a word that looks like an option ("--pdf --html" is --pdf without a value, a usage
// error, not a file named "--html"; "--pdf=--html" likewise). Options defined after this call
// are not covered: parse() applies it to the whole tree before parsing.
void values_are_not_options(CLI::App& app);

// Parses `args` (the words after the command's name), every option defined by then following
// values_are_not_options. nullopt: the command should run. Otherwise
// the exit code, after printing: the help or the version on stdout (0), or a usage error as one
// line "<command>: <reason> (see <command> --help)" on stderr (2), naming the subcommand given.
std::optional<int> parse(CLI::App& app, const std::vector<std::string>& args);
std::optional<int> parse(CLI::App& app, int argc, const char* const* argv);

// The command as typed: "perflab-cli run" for perflab-cli's subcommand run.
std::string command_name(const CLI::App& app);

// Prints "<command name>: <message>" as one line on stderr and returns `code`.
int fail(const CLI::App& app, int code, const std::string& message);

// Passwords on a command line are visible to every user of the machine (ps, /proc/PID/cmdline).
// Overwrites with 'x', in argv itself, the value of each of `options` ("--password VALUE",
// "--password=VALUE", "-a VALUE", "-aVALUE"), so that /proc shows no secret from then on.
// Returns the options that had a value (to warn about).
std::vector<std::string> hide_option_values(int argc, char** argv,
                                            const std::vector<std::string>& options);

// A secret kept in a file: its first line without the line end. Throws std::invalid_argument
// when the file cannot be read or the line is empty.
std::string read_secret_file(const std::string& path);

// A CLI11 validator that accepts what `convert` accepts; its exception's message is the reason.
template <typename Convert>
CLI::Validator convertible(Convert convert, const std::string& what) {
  return CLI::Validator(
      [convert](std::string& text) -> std::string {
        try {
          convert(text);
          return {};
        } catch (const std::exception& e) {
          return e.what();
        }
      },
      what);
}

}  // namespace perflab::cli
