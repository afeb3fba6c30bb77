#include "comparison_model.h"

#include <cmath>
#include <map>

#include <QColor>

#include "value_text.h"

namespace perflab::gui {

namespace {

QString percent_text(double percent) {
  return QString("%1%2%").arg(percent >= 0 ? "+" : "").arg(percent, 0, 'f', 1);
}

double value(const ComparisonRow& r, int column) {
  switch (column) {
    case ComparisonModel::OldColumn:
      return r.old_value;
    case ComparisonModel::NewColumn:
      return r.new_value;
    case ComparisonModel::RatioColumn:
      return r.ratio;
    default:
      return r.percent;
  }
}

QString tooltip(const ComparisonRow& r, int verdict) {
  QString u = QString::fromStdString(r.unit).toHtmlEscaped();
  QString t = QString("<b>%1</b><br>old median: %2 %3<br>new median: %4 %3<br>new / old: %5 (%6)")
                  .arg(QString::fromStdString(r.name).toHtmlEscaped(), format_value(r.old_value), u,
                       format_value(r.new_value), QString::number(r.ratio, 'f', 3),
                       percent_text(r.percent));
  if (verdict != 0) t += verdict > 0 ? "<br>better" : "<br>worse";
  return t;
}

}  // namespace

ComparisonModel::ComparisonModel(QObject* parent)
    : SortedTableModel({"Benchmark", "Unit", "Old (median)", "New (median)", "New / old", "Change"},
                       parent) {}

void ComparisonModel::setComparison(Comparison cmp, const Run& new_run) {
  beginResetModel();
  cmp_ = std::move(cmp);
  std::map<std::string, bool, std::less<>> lower_better;  // group id -> direction
  for (const auto& g : new_run.groups) lower_better.emplace(g.id, g.lower_is_better);
  verdict_.clear();
  verdict_.reserve(cmp_.rows.size());
  for (const auto& r : cmp_.rows) {
    // Better or worse depends on the group's direction (a name is group/series/label).
    auto it = lower_better.find(std::string_view(r.name).substr(0, r.name.find('/')));
    bool lower_is_better = it == lower_better.end() || it->second;
    int verdict = 0;
    if (std::abs(r.ratio - 1) > kNoise) verdict = (lower_is_better == (r.ratio < 1)) ? 1 : -1;
    verdict_.push_back(verdict);
  }
  setSourceRowCount(static_cast<int>(cmp_.rows.size()));
  endResetModel();
}

const ComparisonRow* ComparisonModel::row(int row) const {
  int s = sourceRow(row);
  return s < 0 ? nullptr : &cmp_.rows[static_cast<std::size_t>(s)];
}

QVariant ComparisonModel::cell(int source_row, int column, int role) const {
  const ComparisonRow& r = cmp_.rows[static_cast<std::size_t>(source_row)];
  const int verdict = verdict_[static_cast<std::size_t>(source_row)];
  switch (role) {
    case Qt::DisplayRole:
      if (column == BenchmarkColumn) return QString::fromStdString(r.name);
      if (column == UnitColumn) return QString::fromStdString(r.unit);
      if (column == RatioColumn) return QString::number(r.ratio, 'f', 3);
      if (column == ChangeColumn) return percent_text(r.percent);
      return format_value(value(r, column));
    case ValueRole:
      if (column == BenchmarkColumn) return QString::fromStdString(r.name);
      if (column == UnitColumn) return QString::fromStdString(r.unit);
      return value(r, column);
    case Qt::ToolTipRole:
      return tooltip(r, verdict);
    case Qt::TextAlignmentRole:
      return column >= OldColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ForegroundRole:
      if (column < RatioColumn || verdict == 0) return {};
      return verdict > 0 ? QColor(0, 128, 0) : QColor(176, 0, 32);
    case VerdictRole:
      return verdict;
    default:
      return {};
  }
}

bool ComparisonModel::lessThan(int a, int b, int column) const {
  const ComparisonRow& x = cmp_.rows[static_cast<std::size_t>(a)];
  const ComparisonRow& y = cmp_.rows[static_cast<std::size_t>(b)];
  if (column == BenchmarkColumn) return natural_less(x.name, y.name);
  if (column == UnitColumn) return x.unit < y.unit;
  return number_less(value(x, column), value(y, column));
}

}  // namespace perflab::gui
