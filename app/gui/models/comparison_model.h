#pragma once
// A comparison of two runs (perflab::compare_runs) as a table: benchmark, unit, old and new
// medians, new/old and the change in percent, new/old with its 95% interval, the U test's
// p-value and the verdict; coloured only where the change is significant (ComparisonRow::
// significant(): the interval clears the threshold and p < 0.05), in the better or worse
// direction of its group.
#include <vector>

#include "common/compare.h"
#include "common/run.h"
#include "models/sorted_table_model.h"

namespace perflab::gui {

class ComparisonModel : public SortedTableModel {
  Q_OBJECT
 public:
  enum Column {
    BenchmarkColumn,
    UnitColumn,
    OldColumn,
    NewColumn,
    RatioColumn,
    ChangeColumn,
    IntervalColumn,
    PValueColumn,
    VerdictColumn,
    ColumnCount
  };
  // Every cell also answers: +1 when the new run is significantly better, -1 significantly
  // worse, 0 neither.
  enum Role { VerdictRole = FirstModelRole };

  explicit ComparisonModel(QObject* parent = nullptr);

  void setComparison(Comparison cmp);
  const Comparison& comparison() const { return cmp_; }
  const ComparisonRow* row(int row) const;  // at a view row; nullptr when out of range

 private:
  QVariant cell(int source_row, int column, int role) const override;
  bool lessThan(int a, int b, int column) const override;

  Comparison cmp_;
  std::vector<int> verdict_;  // per row of cmp_
};

}  // namespace perflab::gui
