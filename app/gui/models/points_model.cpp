#include "models/points_model.h"

#include <QColor>

#include "common/figure_format.h"
#include "models/value_text.h"

namespace perflab::gui {

namespace {

std::string key(const std::string& series, const std::string& label) {
  std::string k;
  k.reserve(series.size() + label.size() + 1);
  k.append(series).append(1, '\n').append(label);
  return k;
}

double stat(const Point& p, int column) {
  const Stats& s = p.stats;
  switch (column) {
    case PointsModel::IntervalColumn:
      return p.median_ci.hi - p.median_ci.lo;
    case PointsModel::CvColumn:
      return p.cv;
    case PointsModel::MedianColumn:
      return s.median;
    case PointsModel::P95Column:
      return s.p95;
    case PointsModel::MinColumn:
      return s.min;
    case PointsModel::MaxColumn:
      return s.max;
    default:
      return static_cast<double>(s.n);
  }
}

bool noisy(const Point& p) {  // its own spread, whatever the machine
  return p.samples.size() >= 2 && noisy_point(p.cv);
}

bool numeric(int column) {
  return column != PointsModel::SeriesColumn && column != PointsModel::PointColumn &&
         column != PointsModel::UnitColumn;
}

}  // namespace

PointsModel::PointsModel(QObject* parent)
    : SeriesPointsModel({"Series", "Point", "Median [CI] (level)", "Unit", "CV", "n", "Median",
                         "p95", "Min", "Max"},
                        parent),
      run_(std::make_shared<const Run>()) {}

void PointsModel::setRun(std::shared_ptr<const Run> run, const std::string& group) {
  beginResetModel();
  run_ = run ? std::move(run) : std::make_shared<const Run>();
  group_ = group;
  rebuild();
  endResetModel();
}

void PointsModel::setGroup(const std::string& group) {
  setRun(run_, group);
}

void PointsModel::rebuild() {
  rows_.clear();
  by_name_.clear();
  group_info_ = run_->group(group_);
  if (group_info_) {
    for (const auto& s : run_->series) {
      if (s.group != group_) continue;
      for (const auto& p : s.points) rows_.push_back({&s, &p});
    }
  }
  setSourceRowCount(static_cast<int>(rows_.size()));
}

const Point* PointsModel::point(int row) const {
  int s = sourceRow(row);
  return s < 0 ? nullptr : rows_[static_cast<std::size_t>(s)].point;
}

const Series* PointsModel::series(int row) const {
  int s = sourceRow(row);
  return s < 0 ? nullptr : rows_[static_cast<std::size_t>(s)].series;
}

int PointsModel::rowOf(const std::string& series, const std::string& label) const {
  if (by_name_.empty())
    for (std::size_t i = 0; i < rows_.size(); ++i)
      by_name_.emplace(key(rows_[i].series->name, rows_[i].point->label), static_cast<int>(i));
  auto it = by_name_.find(key(series, label));
  return it == by_name_.end() ? -1 : rowOfSource(it->second);
}

QVariant PointsModel::cell(int source_row, int column, int role) const {
  if (QVariant name = name_role(source_row, role); name.isValid()) return name;
  const Row& r = row(source_row);
  const Stats& st = r.point->stats;
  switch (role) {
    case Qt::DisplayRole:
      if (column == SeriesColumn) return QString::fromStdString(r.series->name);
      if (column == PointColumn) return QString::fromStdString(r.point->label);
      if (column == UnitColumn) return QString::fromStdString(unit_text(group_info_->unit));
      if (column == SamplesColumn) return QString::number(st.n);
      if (column == IntervalColumn)
        return QString::fromStdString(format_estimate(r.point->median_ci, group_info_->unit));
      if (column == CvColumn)
        return QString::fromStdString(format_percent(r.point->cv)) + (noisy(*r.point) ? " !" : "");
      return format_value(stat(*r.point, column), group_info_->unit);
    case ValueRole:
      if (column == SeriesColumn) return QString::fromStdString(r.series->name);
      if (column == PointColumn) return QString::fromStdString(r.point->label);
      if (column == UnitColumn) return QString::fromStdString(unit_text(group_info_->unit));
      if (column == SamplesColumn) return QVariant::fromValue(static_cast<qlonglong>(st.n));
      return stat(*r.point, column);
    case Qt::ToolTipRole:
      return point_tooltip(*group_info_, r.series->name, *r.point,
                           run_->machine ? &*run_->machine : nullptr);
    case Qt::ForegroundRole:
      if (column == CvColumn && noisy(*r.point)) return QColor(176, 96, 0);
      return {};
    case Qt::TextAlignmentRole:
      return numeric(column) ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    default:
      return {};
  }
}

bool PointsModel::lessThan(int a, int b, int column) const {
  const Row& x = row(a);
  const Row& y = row(b);
  switch (column) {
    case SeriesColumn:
      return series_less(a, b);
    case PointColumn:
      if (x.point->x && y.point->x) return *x.point->x < *y.point->x;
      return natural_less(x.point->label, y.point->label);
    case UnitColumn:
      return false;  // one unit per group
    default:
      return number_less(stat(*x.point, column), stat(*y.point, column));
  }
}

}  // namespace perflab::gui
