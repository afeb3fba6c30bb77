#include "models/sorted_table_model.h"

#include <algorithm>
#include <numeric>

#include <QEvent>
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

namespace {

// Refits a view's columns (fit_columns) when it is resized or its model's rows change; one
// refit per turn of the event loop however many changes come.
class ColumnFitter : public QObject {
 public:
  ColumnFitter(QTableView* view, std::vector<int> names, int through)
      : QObject(view), view_(view), names_(std::move(names)), through_(through) {
    view_->viewport()->installEventFilter(this);
    view_->setTextElideMode(Qt::ElideMiddle);
    watch();
    later();
  }

 protected:
  bool eventFilter(QObject*, QEvent* e) override {
    if (e->type() == QEvent::Resize) later();
    return false;
  }

 private:
  void watch() {
    QAbstractItemModel* m = view_->model();
    if (m == watched_) return;
    watched_ = m;
    QObject::disconnect(connection_[0]);
    QObject::disconnect(connection_[1]);
    QObject::disconnect(connection_[2]);
    if (!m) return;
    connection_[0] = connect(m, &QAbstractItemModel::modelReset, this, [this] { later(); });
    connection_[1] = connect(m, &QAbstractItemModel::layoutChanged, this, [this] { later(); });
    connection_[2] = connect(m, &QAbstractItemModel::rowsInserted, this, [this] { later(); });
  }

  void later() {
    if (pending_) return;
    pending_ = true;
    QMetaObject::invokeMethod(
        this, [this] { fit(); }, Qt::QueuedConnection);
  }

  void fit() {
    pending_ = false;
    watch();
    QHeaderView* h = view_->horizontalHeader();
    if (!view_->model()) return;
    const int columns = view_->model()->columnCount();
    const auto is_name = [&](int c) {
      return std::find(names_.begin(), names_.end(), c) != names_.end();
    };
    // A column's whole width: its header's, or its longest text of the first rows (not its
    // section's: the last one stretches to the view's edge).
    const QFontMetrics fm = view_->fontMetrics();
    // (As many rows as the header's own ResizeToContents reads: setup_table_view.)
    const int precision = h->resizeContentsPrecision();
    const int rows = std::min(view_->model()->rowCount(), precision > 0 ? precision : 100);
    const auto wanted = [&](int c) {
      int w = h->sectionSizeHint(c);
      for (int r = 0; r < rows; ++r)
        w = std::max(w, fm.horizontalAdvance(view_->model()->index(r, c).data().toString()) +
                            2 * fm.averageCharWidth() + 8);
      return w;
    };
    int others = 0, names = 0;
    for (int c = 0; c < columns; ++c) {
      if (h->isSectionHidden(c) || (through_ >= 0 && c > through_ && !is_name(c))) continue;
      (is_name(c) ? names : others) += wanted(c);
    }
    const int room = view_->viewport()->width() - others;
    const int least = view_->fontMetrics().horizontalAdvance(QStringLiteral("coalesced"));
    for (int c : names_) {
      if (c >= columns) continue;
      if (room >= names) {
        h->setSectionResizeMode(c, QHeaderView::ResizeToContents);
        continue;
      }
      h->setSectionResizeMode(c, QHeaderView::Interactive);
      const double share = names > 0 ? static_cast<double>(wanted(c)) / names : 0;
      h->resizeSection(c, std::min(wanted(c), std::max(least, static_cast<int>(room * share))));
    }
  }

  QTableView* view_;
  std::vector<int> names_;
  int through_;
  QAbstractItemModel* watched_ = nullptr;
  QMetaObject::Connection connection_[3];
  bool pending_ = false;
};

}  // namespace

void fit_columns(QTableView* view, std::vector<int> names, int through) {
  for (QObject* child : view->children())  // (ColumnFitter has no meta-object of its own)
    if (auto* f = dynamic_cast<ColumnFitter*>(child)) {
      delete f;
      break;
    }
  new ColumnFitter(view, std::move(names), through);
}

}  // namespace perflab::gui
