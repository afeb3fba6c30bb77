#include "models/comparison_model.h"

#include <cmath>

#include <QColor>

#include "common/figure_format.h"
#include "models/value_text.h"

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
    case ComparisonModel::IntervalColumn:
      return r.ratio;
    case ComparisonModel::PValueColumn:
      return r.utest.p_value;
    default:
      return r.percent;
  }
}

QString interval_text(const ComparisonRow& r) {
  return r.judgement ? QString::fromStdString(format_estimate(r.judgement->ratio)) : "n/a";
}

QString p_value_text(const ComparisonRow& r) {
  if (!r.utest.enough) return "untested";
  QString p = QString::fromStdString(format_p_value(r.utest.p_value));
  return r.utest.reliable ? p : p + " (unreliable)";
}

QString verdict_cell(const ComparisonRow& r) {
  return r.judgement
             ? QString::fromStdString(verdict_text(r.judgement->verdict, r.judgement->threshold))
             : "n/a";
}

QString tooltip(const ComparisonRow& r, int verdict) {
  QString u = QString::fromStdString(unit_text(r.unit)).toHtmlEscaped();
  QString t = QString("<b>%1</b><br>old median: %2 %3<br>new median: %4 %3<br>new / old: %5 (%6)")
                  .arg(QString::fromStdString(r.name).toHtmlEscaped(),
                       format_value(r.old_value, r.unit), u, format_value(r.new_value, r.unit),
                       QString::number(r.ratio, 'f', 3), percent_text(r.percent));
  t += QString("<br>interval: %1<br>Mann–Whitney U: %2<br>verdict: %3")
           .arg(interval_text(r).toHtmlEscaped(), p_value_text(r).toHtmlEscaped(),
                verdict_cell(r).toHtmlEscaped());
  if (r.utest.enough && !r.utest.reliable)
    t += "<br>fewer than 9 repetitions a side: the p-value is unreliable";
  if (verdict != 0)
    t += verdict > 0 ? "<br><b>significantly better</b>" : "<br><b>significantly worse</b>";
  return t;
}

// +1: the new run is significantly better, -1 significantly worse, 0 neither.
int significance(const ComparisonRow& r) {
  if (!r.significant()) return 0;
  return r.judgement->verdict == Verdict::Faster ? 1 : -1;
}

}  // namespace

ComparisonModel::ComparisonModel(QObject* parent)
    : SortedTableModel({"Benchmark", "Unit", "Old (median)", "New (median)", "New / old", "Change",
                        "New / old [CI] (level)", "p-value", "Verdict"},
                       parent) {}

void ComparisonModel::setComparison(Comparison cmp) {
  beginResetModel();
  cmp_ = std::move(cmp);
  verdict_.clear();
  verdict_.reserve(cmp_.rows.size());
  for (const auto& r : cmp_.rows) verdict_.push_back(significance(r));
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
      if (column == UnitColumn) return QString::fromStdString(unit_text(r.unit));
      if (column == RatioColumn) return QString::number(r.ratio, 'f', 3);
      if (column == ChangeColumn) return percent_text(r.percent);
      if (column == IntervalColumn) return interval_text(r);
      if (column == PValueColumn) return p_value_text(r);
      if (column == VerdictColumn) return verdict_cell(r);
      return format_value(value(r, column), r.unit);
    case ValueRole:
      if (column == BenchmarkColumn) return QString::fromStdString(r.name);
      if (column == UnitColumn) return QString::fromStdString(unit_text(r.unit));
      if (column == VerdictColumn) return verdict_cell(r);
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
  if (column == VerdictColumn) return verdict_cell(x) < verdict_cell(y);
  return number_less(value(x, column), value(y, column));
}

}  // namespace perflab::gui
