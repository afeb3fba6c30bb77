#include "cli/report_command.h"

#include <iostream>

#include "cli/qt_app.h"
#include "cli11/command_line.h"
#include "common/run_io.h"
#include "common/run_measured.h"
#include "report/report.h"

namespace perflab {

ReportCommand::ReportCommand(CLI::App& cmd) {
  cmd.footer(
      "Writes the run's report without a display: every chart, what the experiment teaches with "
      "the article's figures beside this run's, the parameters and the host.");
  cmd.add_option("RUN.json", input_, "the run file (perflab-cli run --out)")->required();
  const auto file = CLI::Validator(
      [](std::string& f) { return f.empty() ? std::string("needs a file name") : std::string(); },
      "FILE");
  cmd.add_option("--pdf", pdf_, "write the report as a PDF document (A4)")->check(file);
  cmd.add_option("--html", html_, "write the report as one self-contained HTML page")->check(file);
}

int ReportCommand::run(const CLI::App& cmd) {
  if (pdf_.empty() && html_.empty())
    return cli::fail(
        cmd, cli::kExitUsage,
        "nothing to write: give --pdf or --html (see " + cli::command_name(cmd) + " --help)");
  try {
    const Run run = load_measured_run(input_);
    AppGuard app;
    gui::write_report(run, QString::fromStdString(pdf_), QString::fromStdString(html_));
    for (const auto& f : {pdf_, html_})
      if (!f.empty()) std::cout << "wrote " << f << "\n";
    return 0;
  } catch (const std::exception& e) {
    return cli::fail(cmd, cli::kExitFailed, e.what());
  }
}

}  // namespace perflab
