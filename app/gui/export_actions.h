#pragma once
// The main window's exports of the run on show: its chart (PNG, SVG, PDF, at a size asked for),
// its data (CSV, run JSON, Google Benchmark JSON) and its report (PDF with an HTML page beside
// it), each a File menu action with its dialog, and the chart copied to the clipboard.
#include <memory>

#include <QObject>
#include <QSize>
#include <QString>

#include "common/run.h"

class QAction;
class QMainWindow;
class QSettings;

namespace perflab::gui {

class ChartPanel;

class ExportActions : public QObject {
  Q_OBJECT
 public:
  // `*run` is the window's run on show and `chart` the panel showing it; both outlive this.
  // The dialogs remember their folder and the chart's size in `settings`.
  ExportActions(QMainWindow* window, QSettings* settings, ChartPanel* chart,
                const std::shared_ptr<const Run>* run);

  QAction* chartAction() const { return chart_action_; }  // Ctrl+E
  QAction* dataAction() const { return data_action_; }
  QAction* reportAction() const { return report_action_; }
  QAction* copyAction() const { return copy_action_; }  // Copy

  void exportChart(const QString& path, QSize size, bool all_groups = false);  // throws
  void exportData(const QString& path);  // .csv, .json, .gbench.json; throws
  void copyChart();

 private:
  void exportChartDialog();
  void exportDataDialog();
  void exportReportDialog();

  QMainWindow* window_;
  QSettings* settings_;
  ChartPanel* chart_;
  const std::shared_ptr<const Run>* run_;
  QAction *chart_action_, *data_action_, *report_action_, *copy_action_;
};

}  // namespace perflab::gui
