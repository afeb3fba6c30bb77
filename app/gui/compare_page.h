#pragma once
// Compare two runs of the same experiment: new/old per benchmark as bench.cmp printed it
// (ratio or percent), the benchmarks present in one run only, and the overlaid chart.
#include <QWidget>

#include "common/compare.h"
#include "common/run.h"

class QComboBox;
class QLabel;
class QRadioButton;
class QTableWidget;

namespace perflab::gui {

class ChartPanel;
class RunHistory;

class ComparePage : public QWidget {
  Q_OBJECT
 public:
  ComparePage(RunHistory* history, QWidget* parent = nullptr);

  // Fills the two pickers from the history.
  void refresh();
  // Compares two runs; false (with the reason shown) when they are of different experiments.
  bool compare(const Run& old_run, const Run& new_run);
  bool compareFiles(const QString& old_path, const QString& new_path);
  const Comparison& comparison() const { return cmp_; }
  QString comparisonText() const;  // format_comparison in the chosen format
  QString error() const;
  ChartPanel* chartPanel() const { return chart_; }
  QTableWidget* table() const { return table_; }
  void setPresentation(bool on);

 private:
  void fillTable();
  RunHistory* history_;
  Comparison cmp_;
  Run old_, new_;
  QComboBox *old_box_, *new_box_;
  QRadioButton *ratio_, *percent_;
  QLabel *error_, *unmatched_;
  QTableWidget* table_;
  ChartPanel* chart_;
};

}  // namespace perflab::gui
