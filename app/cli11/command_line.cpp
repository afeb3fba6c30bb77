#include "cli11/command_line.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iostream>

#include "common/run.h"

namespace perflab::cli {

void setup(CLI::App& app, bool short_help) {
  app.set_help_flag(short_help ? "-h,--help" : "--help", "print this help and exit");
  app.set_version_flag("--version", std::string("perflab ") + perflab_version(),
                       "print Perflab's version and exit");
  app.option_defaults()->always_capture_default();
}

std::string command_name(const CLI::App& app) {
  const CLI::App* parent = app.get_parent();
  return parent ? command_name(*parent) + " " + app.get_name() : app.get_name();
}

int fail(const CLI::App& app, int code, const std::string& message) {
  std::string line = message;
  std::replace(line.begin(), line.end(), '\n', ' ');
  std::cerr << command_name(app) << ": " << line << "\n";
  return code;
}

namespace {

std::optional<int> handle(CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
    // --help or --version: CLI11 prints them on stdout (the help of the command given).
    app.exit(e, std::cout, std::cerr);
    return kExitOk;
  }
  // The error belongs to the deepest command given ("perflab-cli run: ...").
  const CLI::App* cmd = &app;
  while (!cmd->get_subcommands().empty()) cmd = cmd->get_subcommands().front();
  return fail(*cmd, kExitUsage, std::string(e.what()) + " (see " + command_name(*cmd) + " --help)");
}

}  // namespace

bool looks_like_option(const std::string& word) {
  if (word.rfind("--", 0) == 0) return true;  // "--name", and "--" (the end of options)
  return word.size() >= 2 && word[0] == '-' && std::isalpha(static_cast<unsigned char>(word[1]));
}

void values_are_not_options(CLI::App& app) {
  static const std::string name = "value, not an option";
  const CLI::Validator not_an_option(
      [](std::string& value) {
        return looks_like_option(value)
                   ? "needs a value, and '" + value + "' is an option, not a value"
                   : std::string();
      },
      "", name);
  for (CLI::Option* opt : app.get_options()) {
    if (!opt->nonpositional() || opt->get_items_expected_max() == 0) continue;  // a flag
    try {
      opt->get_validator(name);  // already there (the command was parsed before)
    } catch (const CLI::OptionNotFound&) {
      opt->check(not_an_option);
    }
  }
  for (CLI::App* sub : app.get_subcommands({})) values_are_not_options(*sub);
}

std::optional<int> parse(CLI::App& app, const std::vector<std::string>& args) {
  values_are_not_options(app);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // as CLI11 wants them
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return handle(app, e);
  }
  return std::nullopt;
}

std::optional<int> parse(CLI::App& app, int argc, const char* const* argv) {
  return parse(app, std::vector<std::string>(argv + std::min(argc, 1), argv + argc));
}

std::vector<std::string> hide_option_values(int argc, char** argv,
                                            const std::vector<std::string>& options) {
  std::vector<std::string> found;
  auto blank = [](char* s) { std::memset(s, 'x', std::strlen(s)); };
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") break;
    for (const auto& o : options) {
      char* value = nullptr;
      if (a == o && i + 1 < argc) {
        value = argv[++i];
      } else if (a.size() > o.size() && a.substr(0, o.size()) == o) {
        const bool long_opt = o.size() > 2 && o[1] == '-';
        if (long_opt && a[o.size()] == '=') value = argv[i] + o.size() + 1;
        if (!long_opt) value = argv[i] + o.size();  // -aVALUE
      }
      if (value && *value) {
        blank(value);
        found.push_back(o);
        break;
      }
    }
  }
  return found;
}

std::string read_secret_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot read " + path);
  std::string line;
  std::getline(in, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.empty()) throw std::invalid_argument(path + ": empty (the password is its first line)");
  return line;
}

}  // namespace perflab::cli
