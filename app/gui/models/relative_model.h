#pragma once
// The relative view of a group as a table (common/relative.h): per series and point, its ratio to
// the baseline, the ratio with its interval and real level, n, and the verdict on it.
#include <memory>
#include <optional>
#include <string>

#include "common/relative.h"
#include "models/series_points_model.h"

namespace perflab::gui {

class RelativeModel : public SeriesPointsModel<RelativeSeries, RelativePoint> {
  Q_OBJECT
 public:
  enum Column {
    SeriesColumn,
    PointColumn,
    RatioColumn,
    IntervalColumn,
    SamplesColumn,
    VerdictColumn,
    ColumnCount
  };
  explicit RelativeModel(QObject* parent = nullptr);

  // Shows `group` of `run` relative to `baseline`; no rows when there is no such view (an empty
  // baseline: none).
  void setView(std::shared_ptr<const Run> run, const std::string& group,
               const std::string& baseline);
  const std::optional<RelativeView>& view() const { return view_; }
  // The tooltip sentence of a point of the view; the baseline's own points read "1×".
  std::string sentence(const std::string& series, const std::string& label) const;

 private:
  QVariant cell(int source_row, int column, int role) const override;
  bool lessThan(int a, int b, int column) const override;
  Verdict verdict(const Row& r) const;

  std::shared_ptr<const Run> run_;
  std::optional<RelativeView> view_;
};

}  // namespace perflab::gui
