#pragma once
// A comparison of two runs (perflab::compare_runs) as a table: benchmark, unit, old and new
// medians, new/old and the change in percent, coloured when the change is beyond noise in the
// better or worse direction of its group.
#include <vector>

#include "common/compare.h"
#include "common/run.h"
#include "sorted_table_model.h"

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
    ColumnCount
  };
  // Every cell also answers: +1 when the new run is better beyond noise, -1 worse, 0 neither.
  enum Role { VerdictRole = FirstModelRole };
  // A change of at most this share (3 %) is not called better or worse.
  static constexpr double kNoise = 0.03;

  explicit ComparisonModel(QObject* parent = nullptr);

  // `new_run` says which direction is better for each group (Group::lower_is_better).
  void setComparison(Comparison cmp, const Run& new_run);
  const Comparison& comparison() const { return cmp_; }
  const ComparisonRow* row(int row) const;  // at a view row; nullptr when out of range

 private:
  QVariant cell(int source_row, int column, int role) const override;
  bool lessThan(int a, int b, int column) const override;

  Comparison cmp_;
  std::vector<int> verdict_;  // per row of cmp_
};

}  // namespace perflab::gui
