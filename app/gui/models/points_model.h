#pragma once
// The points of one group of a run as a table: series, point, median, p95, min, max, samples,
// unit, the median's 95% interval and the coefficient of variation (a noisy point's CV cell is
// marked, its tooltip says why). The model keeps the run itself (shared, not copied per view) and
// an index of its rows, so a row, a tooltip or the row of (series, label) is found without
// searching.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/run.h"
#include "models/series_points_model.h"

namespace perflab::gui {

class PointsModel : public SeriesPointsModel<Series, Point> {
  Q_OBJECT
 public:
  // The median with its interval right after the names: what a 1280x800 window must show whole
  // (it was last, cut at the table's right edge).
  enum Column {
    SeriesColumn,
    PointColumn,
    IntervalColumn,
    UnitColumn,
    CvColumn,
    SamplesColumn,
    MedianColumn,
    P95Column,
    MinColumn,
    MaxColumn,
    ColumnCount
  };
  explicit PointsModel(QObject* parent = nullptr);

  // Shows `group` of `run` (no rows when the run has no such group). Keeps the sort.
  void setRun(std::shared_ptr<const Run> run, const std::string& group);
  void setGroup(const std::string& group);
  const Run& run() const { return *run_; }
  const std::shared_ptr<const Run>& sharedRun() const { return run_; }
  const std::string& group() const { return group_; }

  // The point and its series at a view row; nullptr when out of range.
  const Point* point(int row) const;
  const Series* series(int row) const;
  // The view row of a point of the current group; -1 when there is none.
  int rowOf(const std::string& series, const std::string& label) const;

 private:
  void rebuild();
  QVariant cell(int source_row, int column, int role) const override;
  bool lessThan(int a, int b, int column) const override;

  std::shared_ptr<const Run> run_;
  std::string group_;
  const Group* group_info_ = nullptr;
  // series + '\n' + label -> source row; built on the first rowOf() after a change, so live
  // snapshots of a large run cost only the row index.
  mutable std::unordered_map<std::string, int> by_name_;
};

}  // namespace perflab::gui
