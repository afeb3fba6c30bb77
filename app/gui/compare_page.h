#pragma once
// Compare two runs of the same experiment: new/old per benchmark as bench.cmp printed it
// (ratio or percent) in a sortable table (a ComparisonModel), the benchmarks present in one run
// only, and the overlaid chart, each filling a tab. The two runs are picked from the history's
// model; a comparison refused leaves nothing of the one before on screen.
#include <QWidget>

#include "common/compare.h"
#include "common/run.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QRadioButton;
class QTabWidget;
class QTableView;

namespace perflab::gui {

class ChartPanel;
class ComparisonModel;
class HistoryModel;
class RunHistory;

class ComparePage : public QWidget {
  Q_OBJECT
 public:
  // Runs are listed from `runs` (the history page's model: refilled when it changes) and
  // loaded from `history`.
  ComparePage(RunHistory* history, const HistoryModel* runs, QWidget* parent = nullptr);

  // Fills the two pickers from the history's model (keeps what they show when still listed).
  void refresh();
  // Compares two runs; false (with the reason shown) when they are of different experiments.
  bool compare(const Run& old_run, const Run& new_run);
  // Also shows the two runs in the pickers.
  bool compareFiles(const QString& old_path, const QString& new_path);
  const Comparison& comparison() const;
  QString comparisonText() const;  // format_comparison in the chosen format
  QString error() const;
  ChartPanel* chartPanel() const { return chart_; }
  ComparisonModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  // The tabs "Figures" (the table) and "Chart".
  QTabWidget* views() const { return views_; }

 private:
  void showFormat();
  // Shows why two runs are not compared, and clears what was compared before; false.
  bool refuse(const QString& reason);
  RunHistory* history_;
  const HistoryModel* runs_;
  QComboBox *old_box_, *new_box_;
  QRadioButton *ratio_, *percent_;
  QLabel* error_;
  QPlainTextEdit* unmatched_;
  QTabWidget* views_;
  ComparisonModel* model_;
  QTableView* table_;
  ChartPanel* chart_;
};

}  // namespace perflab::gui
