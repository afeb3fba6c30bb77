// The rows of a relative view: a series' ratio to the baseline at each point (relative_model.h).
#include "models/relative_model.h"

#include <algorithm>

#include "common/figure_format.h"
#include "models/value_text.h"

namespace perflab::gui {

RelativeModel::RelativeModel(QObject* parent)
    : SeriesPointsModel({"Series", "Point", "Ratio", "Ratio [CI] (level)", "n", "Verdict"}, parent),
      run_(std::make_shared<const Run>()) {}

void RelativeModel::setView(std::shared_ptr<const Run> run, const std::string& group,
                            const std::string& baseline) {
  beginResetModel();
  run_ = run ? std::move(run) : std::make_shared<const Run>();
  view_.reset();
  rows_.clear();
  if (!baseline.empty()) view_ = relative_view(*run_, group, baseline);
  if (view_)
    for (const auto& s : view_->series)
      for (const auto& p : s.points) rows_.push_back({&s, &p});
  setSourceRowCount(static_cast<int>(rows_.size()));
  endResetModel();
}

std::string RelativeModel::sentence(const std::string& series, const std::string& label) const {
  if (!view_) return {};
  if (view_->category && label == view_->baseline) {
    const auto& s = view_->series;
    return std::any_of(s.begin(), s.end(),
                       [&](const RelativeSeries& r) { return r.name == series; })
               ? series + " — " + label + ": 1× " + label + " (the baseline)"
               : std::string();
  }
  if (!view_->category && series == view_->baseline) {
    const auto& labels = view_->baseline_labels;
    return std::find(labels.begin(), labels.end(), label) == labels.end()
               ? std::string()
               : series + " — " + label + ": 1× " + series + " (the baseline)";
  }
  const RelativePoint* p = view_->find(series, label);
  return p ? relative_sentence(*view_, series, *p) : std::string();
}

Verdict RelativeModel::verdict(const Row& r) const {
  return judge_ratio(r.point->ratio, view_->better, run_->threshold);
}

QVariant RelativeModel::cell(int source_row, int column, int role) const {
  if (QVariant name = name_role(source_row, role); name.isValid()) return name;
  const Row& r = row(source_row);
  const Estimate& e = r.point->ratio;
  const bool number = column == RatioColumn || column == SamplesColumn;
  switch (role) {
    case Qt::DisplayRole:
    case ValueRole:
      switch (column) {
        case SeriesColumn:
          return QString::fromStdString(r.series->name);
        case PointColumn:
          return QString::fromStdString(r.point->label);
        case RatioColumn:
          return role == ValueRole ? QVariant(e.value)
                                   : QString::fromStdString(format_figure(e.value)) + "×";
        case IntervalColumn:
          return QString::fromStdString(format_relative(e, view_->baseline));
        case SamplesColumn:
          return QVariant::fromValue(static_cast<qlonglong>(e.n));
        default:
          return view_->intervals_left_out
                     ? QStringLiteral("not judged: %L1 ratios, no intervals").arg(rows_.size())
                     : QString::fromStdString(verdict_text(verdict(r), run_->threshold));
      }
    case Qt::ToolTipRole:
      return QString::fromStdString(relative_sentence(*view_, r.series->name, *r.point));
    case Qt::TextAlignmentRole:
      return number ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    default:
      return {};
  }
}

bool RelativeModel::lessThan(int a, int b, int column) const {
  const Row& x = row(a);
  const Row& y = row(b);
  switch (column) {
    case SeriesColumn:
      return series_less(a, b);
    case PointColumn:
      return natural_less(x.point->label, y.point->label);
    case SamplesColumn:
      return x.point->ratio.n < y.point->ratio.n;
    case VerdictColumn:
      return verdict(x) < verdict(y);
    default:  // the ratio, and its interval by the ratio
      return number_less(x.point->ratio.value, y.point->ratio.value);
  }
}

}  // namespace perflab::gui
