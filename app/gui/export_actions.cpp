// The main window's chart, data and report exports and their dialogs (export_actions.h).
#include "export_actions.h"

#include <stdexcept>

#include <QAction>
#include <QChartView>
#include <QCheckBox>
#include <QClipboard>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QGuiApplication>
#include <QMainWindow>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>

#include "chart_panel.h"
#include "common/run_io.h"
#include "qt_text/qt_text.h"
#include "report/report.h"

namespace perflab::gui {

ExportActions::ExportActions(QMainWindow* window, QSettings* settings, ChartPanel* chart,
                             const std::shared_ptr<const Run>* run)
    : QObject(window), window_(window), settings_(settings), chart_(chart), run_(run) {
  auto action = [this](const QString& text, auto slot, QKeySequence key = {}) {
    auto* a = new QAction(text, this);
    a->setShortcut(key);
    connect(a, &QAction::triggered, this, slot);
    return a;
  };
  chart_action_ =
      action("Export &chart…", &ExportActions::exportChartDialog, QKeySequence("Ctrl+E"));
  data_action_ = action("Export &data…", &ExportActions::exportDataDialog);
  report_action_ = action("Export &report (PDF + HTML)…", &ExportActions::exportReportDialog);
  copy_action_ = action("Cop&y chart", &ExportActions::copyChart, QKeySequence::Copy);
}

void ExportActions::exportChart(const QString& path, QSize size, bool all_groups) {
  chart_->exportChart(path, size, all_groups);
}

void ExportActions::exportData(const QString& path) {
  if ((*run_)->groups.empty()) throw std::runtime_error("there are no results to export yet");
  QString lower = path.toLower();
  std::string text;
  if (lower.endsWith(".gbench.json"))
    text = run_to_gbench_json(**run_);
  else if (lower.endsWith(".json"))
    text = run_to_json(**run_);
  else if (lower.endsWith(".csv"))
    text = run_to_csv(**run_);
  else
    throw std::runtime_error("use a .csv, .json or .gbench.json file name");
  write_file_atomically(path.toStdString(), text);
}

void ExportActions::copyChart() {
  QImage img = chart_->chartImage(chart_->chartView()->size().expandedTo(QSize(800, 500)));
  if (!img.isNull()) QGuiApplication::clipboard()->setImage(img);
}

void ExportActions::exportChartDialog() {
  if (!chart_->hasRun()) return;
  QString dir = settings_->value("export/dir", QDir::homePath()).toString();
  QString filter;
  QString path = QFileDialog::getSaveFileName(
      window_, "Export chart", dir + "/" + q((*run_)->experiment) + "-" + q(chart_->group()),
      "PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)", &filter);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty())
    path += filter.startsWith("SVG") ? ".svg" : filter.startsWith("PDF") ? ".pdf" : ".png";

  QDialog dialog(window_);
  dialog.setWindowTitle("Chart size");
  auto* form = new QFormLayout(&dialog);
  auto* w = new QSpinBox;
  auto* h = new QSpinBox;
  w->setRange(100, 20000);
  h->setRange(100, 20000);
  w->setValue(settings_->value("export/width", 1200).toInt());
  h->setValue(settings_->value("export/height", 700).toInt());
  w->setSuffix(" px");
  h->setSuffix(" px");
  auto* all = new QCheckBox("Every chart of the run (grid; one page each in PDF)");
  form->addRow("Width:", w);
  form->addRow("Height:", h);
  form->addRow(all);
  auto* bb = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  connect(bb, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(bb, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  form->addRow(bb);
  if (dialog.exec() != QDialog::Accepted) return;
  settings_->setValue("export/width", w->value());
  settings_->setValue("export/height", h->value());
  settings_->setValue("export/dir", QFileInfo(path).absolutePath());
  try {
    exportChart(path, QSize(w->value(), h->value()), all->isChecked());
    window_->statusBar()->showMessage("Chart written to " + path, 5000);
  } catch (const std::exception& e) {
    QMessageBox::warning(window_, "Export chart", e.what());
  }
}

void ExportActions::exportDataDialog() {
  if ((*run_)->groups.empty()) return;
  QString dir = settings_->value("export/dir", QDir::homePath()).toString();
  QString filter;
  QString path = QFileDialog::getSaveFileName(
      window_, "Export data", dir + "/" + q((*run_)->experiment),
      "CSV (*.csv);;Perflab run JSON (*.json);;Google Benchmark JSON (*.gbench.json)", &filter);
  if (path.isEmpty()) return;
  if (filter.startsWith("Google") && !path.endsWith(".gbench.json")) {
    if (path.endsWith(".json")) path.chop(5);
    path += ".gbench.json";
  } else if (QFileInfo(path).suffix().isEmpty()) {
    path += filter.startsWith("CSV") ? ".csv" : ".json";
  }
  settings_->setValue("export/dir", QFileInfo(path).absolutePath());
  try {
    exportData(path);
    window_->statusBar()->showMessage("Data written to " + path, 5000);
  } catch (const std::exception& e) {
    QMessageBox::warning(window_, "Export data", e.what());
  }
}

void ExportActions::exportReportDialog() {
  if ((*run_)->groups.empty()) return;
  QString dir = settings_->value("export/dir", QDir::homePath()).toString();
  QString path = QFileDialog::getSaveFileName(window_, "Export report",
                                              dir + "/" + q((*run_)->experiment) + "-report.pdf",
                                              "PDF document, with an HTML page beside it (*.pdf)");
  if (path.isEmpty()) return;
  if (!path.endsWith(".pdf", Qt::CaseInsensitive)) path += ".pdf";
  const QString html = path.left(path.size() - 4) + ".html";
  settings_->setValue("export/dir", QFileInfo(path).absolutePath());
  try {
    write_report(**run_, path, html);
    window_->statusBar()->showMessage("Report written to " + path + " and " + html, 8000);
  } catch (const std::exception& e) {
    QMessageBox::warning(window_, "Export report", e.what());
  }
}

}  // namespace perflab::gui
