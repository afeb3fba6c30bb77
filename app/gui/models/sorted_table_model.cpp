#include "models/sorted_table_model.h"

#include <algorithm>
#include <numeric>

#include <QHeaderView>
#include <QTableView>

namespace perflab::gui {

SortedTableModel::SortedTableModel(QStringList titles, QObject* parent)
    : QAbstractTableModel(parent), titles_(std::move(titles)) {}

int SortedTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(order_.size());
}

int SortedTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(titles_.size());
}

QVariant SortedTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
      section >= titles_.size())
    return {};
  return titles_[section];
}

QVariant SortedTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  return cell(order_[static_cast<std::size_t>(index.row())], index.column(), role);
}

int SortedTableModel::sourceRow(int row) const {
  return row >= 0 && row < rowCount() ? order_[static_cast<std::size_t>(row)] : -1;
}

int SortedTableModel::rowOfSource(int source_row) const {
  return source_row >= 0 && source_row < rowCount()
             ? position_[static_cast<std::size_t>(source_row)]
             : -1;
}

void SortedTableModel::setSourceRowCount(int n) {
  order_.resize(static_cast<std::size_t>(std::max(0, n)));
  applySort();
}

void SortedTableModel::applySort() {
  std::iota(order_.begin(), order_.end(), 0);
  if (sort_column_ >= 0 && sort_column_ < columnCount()) {
    const int c = sort_column_;
    if (sort_order_ == Qt::AscendingOrder)
      std::stable_sort(order_.begin(), order_.end(),
                       [&](int a, int b) { return lessThan(a, b, c); });
    else
      std::stable_sort(order_.begin(), order_.end(),
                       [&](int a, int b) { return lessThan(b, a, c); });
  }
  position_.resize(order_.size());
  for (std::size_t row = 0; row < order_.size(); ++row)
    position_[static_cast<std::size_t>(order_[row])] = static_cast<int>(row);
}

void SortedTableModel::sort(int column, Qt::SortOrder order) {
  if (column == sort_column_ && order == sort_order_) return;
  emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
  const QModelIndexList before = persistentIndexList();
  std::vector<int> sources;
  sources.reserve(static_cast<std::size_t>(before.size()));
  for (const QModelIndex& i : before) sources.push_back(sourceRow(i.row()));
  sort_column_ = column;
  sort_order_ = order;
  applySort();
  QModelIndexList after;
  after.reserve(before.size());
  for (qsizetype k = 0; k < before.size(); ++k)
    after << index(rowOfSource(sources[static_cast<std::size_t>(k)]), before[k].column());
  changePersistentIndexList(before, after);
  emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void setup_table_view(QTableView* view) {
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->verticalHeader()->setVisible(false);
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // Widths from the rows around those on show (not the first 1,000 of each column): a large
  // table lays out in a fraction of the time.
  view->horizontalHeader()->setResizeContentsPrecision(100);
  view->horizontalHeader()->setStretchLastSection(true);
  view->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  view->setSortingEnabled(true);
}

}  // namespace perflab::gui
