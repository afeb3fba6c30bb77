#pragma once
// The base of the window's table models: rows kept in the order the data came in ("source"
// rows), shown in the order of the chosen sort column. Sorting permutes an index (no copy of
// the data, no proxy model), survives a reset (a live run keeps its order) and column -1
// restores the data's own order. Views use it directly with setSortingEnabled(true).
#include <cmath>
#include <vector>

#include <QAbstractTableModel>

class QTableView;

namespace perflab::gui {

class SortedTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  // The exact value of a cell (a number as a double, text as a QString, a date as a
  // QDateTime): what sorting uses and what a test or a tooltip can read without parsing.
  static constexpr int ValueRole = Qt::UserRole + 1;
  // Roles of derived models start here.
  static constexpr int FirstModelRole = Qt::UserRole + 16;

  int rowCount(const QModelIndex& parent = {}) const final;
  int columnCount(const QModelIndex& parent = {}) const final;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const final;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final;
  void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) final;

  int sortColumn() const { return sort_column_; }
  Qt::SortOrder sortOrder() const { return sort_order_; }
  // Row of the data's own order shown at view row `row`, and back; -1 when out of range.
  int sourceRow(int row) const;
  int rowOfSource(int source_row) const;

 protected:
  // `titles`: the column headers, one per column.
  SortedTableModel(QStringList titles, QObject* parent);
  // Call between beginResetModel() and endResetModel() once the data holds `n` rows: the
  // current sort is applied to them.
  void setSourceRowCount(int n);
  virtual QVariant cell(int source_row, int column, int role) const = 0;
  // Strict order of two source rows by a column (ascending).
  virtual bool lessThan(int source_a, int source_b, int column) const = 0;
  // a < b for sorting, with NaN (no value) first: a strict order even then.
  static bool number_less(double a, double b) { return a < b || (std::isnan(a) && !std::isnan(b)); }

 private:
  void applySort();
  QStringList titles_;
  std::vector<int> order_;     // view row -> source row
  std::vector<int> position_;  // source row -> view row
  int sort_column_ = -1;
  Qt::SortOrder sort_order_ = Qt::AscendingOrder;
};

// How the window shows these models: read-only, whole rows selected, no row numbers, columns
// fitted to their contents, sorted by a click on a header (the data's own order until then).
void setup_table_view(QTableView* view);
// Keeps the columns after the names whole at the view's width: when the contents are wider than
// the view, the name columns (`names`, e.g. a series and a point) give up the width, down to a
// few characters each, their text elided in the middle ("coalesced+…-cluster"). Follows the
// view's size and its model's rows; call it again after giving the view another model.
// `through`: the last column that must be whole (the ones after it may scroll); -1: all.
void fit_columns(QTableView* view, std::vector<int> names, int through = -1);

}  // namespace perflab::gui
