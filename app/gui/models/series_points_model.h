#pragma once
// The base of the tables whose rows are a group's points, series by series (PointsModel: the
// measured points; RelativeModel: their ratios to a baseline): the rows, the two roles every
// cell answers (the series' name and the point's label) and the order of series by name.
#include <cstddef>
#include <vector>

#include <QString>
#include <QVariant>

#include "models/sorted_table_model.h"
#include "models/value_text.h"

namespace perflab::gui {

template <typename SeriesT, typename PointT>
class SeriesPointsModel : public SortedTableModel {
 public:
  // Every cell also answers these: its row's series name and point label.
  enum Role { SeriesRole = FirstModelRole, LabelRole };

 protected:
  struct Row {
    const SeriesT* series;
    const PointT* point;
  };
  using SortedTableModel::SortedTableModel;

  const Row& row(int source_row) const { return rows_[static_cast<std::size_t>(source_row)]; }
  // SeriesRole and LabelRole of a source row; an invalid QVariant for any other role.
  QVariant name_role(int source_row, int role) const {
    if (role == SeriesRole) return QString::fromStdString(row(source_row).series->name);
    if (role == LabelRole) return QString::fromStdString(row(source_row).point->label);
    return {};
  }
  // Series by name, as a reader orders them ("p2" before "p10").
  bool series_less(int a, int b) const {
    return natural_less(row(a).series->name, row(b).series->name);
  }

  std::vector<Row> rows_;  // the data's order: series, then their points
};

}  // namespace perflab::gui
