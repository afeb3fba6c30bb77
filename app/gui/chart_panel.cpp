#include "chart_panel.h"

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <QAbstractItemView>
#include <QBarCategoryAxis>
#include <QBarLegendMarker>
#include <QBarSeries>
#include <QBarSet>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QCursor>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHelpEvent>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedLayout>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>
#include <QXYSeries>

#include "models/points_model.h"
#include "models/relative_model.h"
#include "muted_text.h"
#include "qt_text/qt_text.h"

namespace perflab::gui {

QString legend_html(const QChart* chart, bool links) {
  QStringList entries;
  const auto markers = chart->legend()->markers();
  for (int i = 0; i < markers.size(); ++i) {
    QLegendMarker* m = markers[i];
    if (!charts::listed_in_legend(m->series())) continue;
    const bool hidden = m->font().strikeOut();  // hidden by a legend click
    if (hidden && !links) continue;
    QColor c = m->brush().style() != Qt::NoBrush ? m->brush().color() : m->pen().color();
    // A hidden bar set has no brush: its entry keeps the colour it will be drawn in.
    if (auto* bm = qobject_cast<QBarLegendMarker*>(m); bm && hidden)
      c = bm->barset()->property("perflab_brush").value<QBrush>().color();
    QString name = m->label().toHtmlEscaped();
    if (hidden)
      name =
          "<s style='color:" + muted_text(QGuiApplication::palette()).name() + "'>" + name + "</s>";
    if (links)
      name = QString("<a href='%1' style='text-decoration:none; color:palette(text)'>%2</a>")
                 .arg(i)
                 .arg(name);
    entries << QString(
                   "<span style='white-space:nowrap'><span style='color:%1'>■</span>&nbsp;%2"
                   "</span>")
                   .arg(c.name(), name);
  }
  return entries.join("&nbsp;&nbsp;&nbsp; ");
}

namespace {

// The key a chart's choices (scales, baseline) are remembered under: "<experiment>/<group>".
std::string chart_key(const Run& run, const std::string& group) {
  return run.experiment + "/" + group;
}

// Rows the table keeps in view however the splitter is moved.
constexpr int kTableRows = 8;
// A description longer than this shows its first sentence, the rest a click away: a long one
// squeezed the chart and its table at 1280x800.
constexpr qsizetype kShortDescription = 180;
}  // namespace

ChartPanel::ChartPanel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  bar->setSpacing(4);  // the chart's box, Log y, Log x and Relative to on one row at 1024 wide
  bar->addWidget(new QLabel("Chart:"));
  groups_ = new QComboBox;
  groups_->setObjectName("groupBox");
  groups_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  bar->addWidget(groups_);
  log_y_ = new QCheckBox("Log y");
  log_y_->setObjectName("logY");
  log_y_->setToolTip("Logarithmic y axis: makes ratios visible when values span decades");
  log_x_ = new QCheckBox("Log x");
  log_x_->setObjectName("logX");
  log_x_->setToolTip("Logarithmic x axis (charts with a numeric x only)");
  bar->addWidget(log_y_);
  bar->addWidget(log_x_);
  bar->addWidget(new QLabel("Relative to:"));
  relative_ = new QComboBox;
  relative_->setObjectName("relativeTo");
  // Wide enough for "interpolate" however long the other names are (the list shows them whole):
  // the bar holds the chart's box, Log y and Log x too at 1280x800.
  relative_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  relative_->setMinimumContentsLength(6);
  relative_->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
  relative_->setToolTip(
      "Every series as a ratio to this one at each point, or each series as a ratio to its own "
      "value in this category, with the ratio's confidence interval: 1 is the baseline");
  bar->addWidget(relative_);
  bar->addStretch();
  v->addLayout(bar);
  description_ = new QLabel;
  description_->setObjectName("chartDescription");
  description_->setWordWrap(true);
  description_->setTextFormat(Qt::RichText);
  connect(description_, &QLabel::linkActivated, this,
          [this](const QString& link) { showDescription(link == "more"); });
  v->addWidget(description_);

  auto* split = split_ = new QSplitter(Qt::Vertical);
  split->setObjectName("chartSplitter");
  split->setChildrenCollapsible(false);
  // The chart's title and legend wrap in labels around it (the chart's own cut long names).
  auto* chart_box = new QWidget;
  auto* cv = new QVBoxLayout(chart_box);
  cv->setContentsMargins(0, 0, 0, 0);
  cv->setSpacing(2);
  title_ = new QLabel;
  title_->setObjectName("chartTitle");
  title_->setWordWrap(true);
  title_->setAlignment(Qt::AlignHCenter);
  QFont tf = title_->font();
  tf.setPointSizeF(tf.pointSizeF() * 1.3);
  tf.setBold(true);
  title_->setFont(tf);
  cv->addWidget(title_);
  view_ = new QChartView;
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(200);
  view_->setObjectName("chartView");
  view_->viewport()->installEventFilter(this);  // tooltips: see eventFilter
  cv->addWidget(view_, 1);
  legend_ = new QLabel;
  legend_->setObjectName("chartLegend");
  legend_->setWordWrap(true);
  legend_->setAlignment(Qt::AlignHCenter);
  legend_->setTextFormat(Qt::RichText);
  legend_->setToolTip("Click a name to hide or show its series");
  cv->addWidget(legend_);
  connect(legend_, &QLabel::linkActivated, this, [this](const QString& link) {
    const auto markers = chart()->legend()->markers();
    const int i = link.toInt();
    if (i >= 0 && i < markers.size()) emit markers[i]->clicked();
  });
  split->addWidget(chart_box);
  points_ = new PointsModel(this);
  table_ = new QTableView;
  table_->setObjectName("pointsTable");
  table_->setModel(points_);
  setup_table_view(table_);
  // The names give up width until the median with its interval, its unit and CV are whole.
  fit_columns(table_, {PointsModel::SeriesColumn, PointsModel::PointColumn}, PointsModel::CvColumn);
  relative_model_ = new RelativeModel(this);
  // Compact rows, and never fewer than kTableRows of them in view.
  const int row = table_->fontMetrics().height() + 8;
  table_->verticalHeader()->setMinimumSectionSize(row);
  table_->verticalHeader()->setDefaultSectionSize(row);
  table_->setMinimumHeight(kTableRows * row + table_->horizontalHeader()->sizeHint().height() +
                           table_->horizontalScrollBar()->sizeHint().height() +
                           2 * table_->frameWidth() + 2);
  // The table and the line saying it is loading, one at a time in the same place: a stack is as
  // large as its largest page whichever is on show, so swapping them leaves the splitter, and
  // the chart above, the size they were (a chart resized is laid out and painted again).
  auto* table_box = new QWidget;
  table_stack_ = new QStackedLayout(table_box);
  table_stack_->setContentsMargins(0, 0, 0, 0);
  table_loading_ = new QLabel;
  table_loading_->setObjectName("tableLoading");
  table_loading_->setAlignment(Qt::AlignCenter);
  table_stack_->addWidget(table_);
  table_stack_->addWidget(table_loading_);
  split->addWidget(table_box);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  v->addWidget(split, 1);

  connect(groups_, &QComboBox::currentIndexChanged, this, [this] {
    points_->setGroup(group());
    rebuild();
  });
  // A scale chosen is remembered for that chart (of that experiment) only.
  auto choose = [this] {
    const std::string key = scaleKey();
    if (key.empty()) return;
    scales_[key] = {log_y_->isChecked(), log_x_->isChecked()};
    emit scaleChosen(QString::fromStdString(key), log_y_->isChecked(), log_x_->isChecked());
    rebuild();
  };
  connect(log_y_, &QCheckBox::toggled, this, choose);
  connect(log_x_, &QCheckBox::toggled, this, choose);
  // So is the baseline of the relative view (and the relative view keeps its own scales).
  connect(relative_, &QComboBox::currentIndexChanged, this, [this] {
    const std::string key = chartKey();
    if (key.empty()) return;
    relatives_[key] = relativeTo();
    emit relativeChosen(q(key), q(relativeTo()));
    rebuild();
  });
  clear();
}

QChart* ChartPanel::chart() const {
  return view_->chart();
}

const Run& ChartPanel::run() const {
  return points_->run();
}

void ChartPanel::clear() {
  {
    QSignalBlocker b(groups_);
    groups_->clear();
  }
  points_->setRun(nullptr, {});
  description_->clear();
  rebuild();
  showTable();
}

void ChartPanel::setRun(const Run& run, bool table_later) {
  setRun(std::make_shared<const Run>(run), table_later);
}

void ChartPanel::setRun(std::shared_ptr<const Run> shared, bool table_later) {
  const Run& run = *shared;
  // The chart on show stays (a live run, the same experiment); another run opens on its
  // experiment's headline chart.
  std::string keep = run.experiment == this->run().experiment ? group() : std::string();
  // Another run shows each chart's first series again (Group::first_series).
  const std::string identity = run.experiment + "@" + std::to_string(run.started_unix_ms);
  if (identity != run_identity_) first_shown_.clear();
  run_identity_ = identity;
  {
    QSignalBlocker b(groups_);
    groups_->clear();
    for (const auto& id : charts::chart_groups(*shared))
      groups_->addItem(q(shared->group(id)->title), q(id));
    int i = groups_->findData(q(keep));
    if (i < 0) i = groups_->findData(q(charts::headline_group(*shared)));
    groups_->setCurrentIndex(i >= 0 ? i : 0);
  }
  points_->setRun(std::move(shared), group());
  rebuild();
  if (!table_later) {
    showTable();
    return;
  }
  // A hidden view does not lay out its rows: that waits for showTable().
  table_loading_->setText(QString("Loading the table of %L1 points…").arg(points_->rowCount()));
  table_stack_->setCurrentWidget(table_loading_);
}

void ChartPanel::showTable() {
  table_stack_->setCurrentWidget(table_);
}

bool ChartPanel::tableLoading() const {
  return !table_loading_->isHidden();
}

void ChartPanel::setGroup(const std::string& id) {
  int i = groups_->findData(q(id));
  if (i >= 0) groups_->setCurrentIndex(i);
}

std::string ChartPanel::group() const {
  return groups_->currentData().toString().toStdString();
}

void ChartPanel::setLogY(bool on) {
  log_y_->setChecked(on);
}
void ChartPanel::setLogX(bool on) {
  log_x_->setChecked(on);
}
bool ChartPanel::logY() const {
  return log_y_->isChecked();
}
bool ChartPanel::logX() const {
  return log_x_->isChecked();
}

void ChartPanel::setTheme(QChart::ChartTheme theme) {
  theme_ = theme;
  rebuild();
}

void ChartPanel::setFontScale(double scale) {
  font_scale_ = scale;
  rebuild();
}

void ChartPanel::setOverlayLabels(const std::string& old_label, const std::string& new_label) {
  overlay_old_ = old_label;
  overlay_new_ = new_label;
  rebuild();
}

std::string ChartPanel::chartKey() const {
  return group().empty() ? std::string() : chart_key(run(), group());
}

std::string ChartPanel::scaleKey() const {
  const std::string key = chartKey();
  return key.empty() || relativeTo().empty() ? key : key + "/relative";
}

std::string ChartPanel::relativeTo() const {
  return relative_->currentData().toString().toStdString();
}

void ChartPanel::setRelativeChoice(const QString& key, const std::string& baseline) {
  relatives_[key.toStdString()] = baseline;
  if (key.toStdString() == chartKey()) rebuild();
}

// The baselines a chart offers: none, then its series (the group's own baseline first), then
// its categories (each series against its own value there: PostgreSQL's time to Redis's);
// the choice remembered for the chart, else none.
void ChartPanel::fillRelativeBox() {
  QSignalBlocker b(relative_);
  relative_->clear();
  relative_->addItem("none", QString());
  const Group* g = run().group(group());
  if (!g || g->stacked) {  // the parts of a whole: a share of it, never a ratio to one part
    relative_->setEnabled(false);
    return;
  }
  const std::string named = named_baseline(run(), group());
  std::vector<std::string> series, categories;
  if (!named.empty()) series.push_back(named);
  for (const auto& s : run().series) {
    if (s.group != g->id || s.points.empty()) continue;
    if (s.name != named) series.push_back(s.name);
    if (!g->numeric_x)
      for (const auto& p : s.points)
        if (std::find(categories.begin(), categories.end(), p.label) == categories.end())
          categories.push_back(p.label);
  }
  if (series.size() > 1)  // against itself a lone series says nothing
    for (const auto& s : series) relative_->addItem(q(s), q(s));
  if (categories.size() > 1) {
    if (relative_->count() > 1) relative_->insertSeparator(relative_->count());
    for (const auto& c : categories)
      relative_->addItem(q(c + " (category)"), q(category_baseline(c)));
  }
  relative_->setEnabled(relative_->count() > 1);
  relative_->view()->setMinimumWidth(relative_->view()->sizeHintForColumn(0) + 24);
  auto it = relatives_.find(chartKey());
  const int i = it == relatives_.end() ? 0 : relative_->findData(q(it->second));
  relative_->setCurrentIndex(std::max(i, 0));
}

void ChartPanel::showDescription(bool whole) {
  const Group* g = run().group(group());
  const QString text = g ? q(g->description) : QString();
  if (text.size() <= kShortDescription) {
    description_->setText(text.toHtmlEscaped());
    return;
  }
  if (whole) {
    description_->setText(text.toHtmlEscaped() + " <a href='less'>Less</a>");
    return;
  }
  qsizetype end = text.indexOf(". ");
  if (end < 0 || end > kShortDescription) end = text.lastIndexOf(' ', kShortDescription);
  description_->setText(text.left(end + 1).toHtmlEscaped() + " <a href='more'>More…</a>");
}

// A chart opened for the first time shows its group's first series, the others hidden.
void ChartPanel::firstSeriesOf(const std::string& id) {
  const Group* g = run().group(id);
  if (!g || g->first_series.empty() || !first_shown_.insert(id).second) return;
  const auto& first = g->first_series;
  for (const auto& s : run().series)
    if (s.group == id) {
      if (std::find(first.begin(), first.end(), s.name) != first.end())
        hidden_.erase(s.name);
      else
        hidden_.insert(s.name);
    }
}

void ChartPanel::setScaleChoice(const QString& key, bool log_y, bool log_x) {
  scales_[key.toStdString()] = {log_y, log_x};
  if (key.toStdString() == scaleKey()) rebuild();
}

// The scales (log y, log x) of chart `g` drawn relative to `baseline` (empty: its own values):
// the person's choice, else the group's own; ratios are always on log y (0.5× and 2× lie as far
// from 1; a linear ratio axis hides 0.2× beside 218×).
std::pair<bool, bool> ChartPanel::scalesOf(const Group& g, const std::string& baseline) const {
  std::string key = chart_key(run(), g.id);
  if (!baseline.empty()) key += "/relative";
  auto it = scales_.find(key);
  if (it != scales_.end()) return {baseline.empty() ? it->second.first : true, it->second.second};
  return {baseline.empty() ? g.log_y : true, opens_on_log_x(run(), g)};
}

charts::ChartOptions ChartPanel::optionsFor(const std::string& id) const {
  charts::ChartOptions o = options();
  const Group* g = run().group(id);
  if (g && id != group()) {
    auto it = relatives_.find(chart_key(run(), id));
    o.relative_to = it == relatives_.end() ? std::string() : it->second;
    std::tie(o.log_y, o.log_x) = scalesOf(*g, o.relative_to);
  }
  return o;
}

charts::ChartOptions ChartPanel::options() const {
  charts::ChartOptions o;
  o.log_y = logY();
  o.log_x = logX();
  o.theme = theme_;
  o.font_scale = font_scale_;
  o.overlay_old = overlay_old_;
  o.overlay_new = overlay_new_;
  o.relative_to = relativeTo();
  o.hidden_series = chart() ? charts::hidden_series(chart()) : hidden_;
  return o;
}

void ChartPanel::rebuild() {
  QChart* old = view_->chart();
  if (old && old->property("perflab_built").toBool()) hidden_ = charts::hidden_series(old);
  std::string id = group();
  const Group* g = run().group(id);
  firstSeriesOf(id);
  fillRelativeBox();
  // A spectrum's x axis is HdrHistogram's log 1/(1 - p) axis: a linear one would crowd 50% to
  // 99.9% into its first thousandth.
  log_x_->setEnabled(g && g->numeric_x && !g->percentile_x);
  // Ratios are always on a log axis: the box says so and cannot be unticked.
  log_y_->setEnabled(relativeTo().empty());
  log_y_->setToolTip(relativeTo().empty()
                         ? "Logarithmic y axis: makes ratios visible when values span decades"
                         : "Ratios are always drawn on a logarithmic axis");
  if (g) {  // the boxes show this chart's scale
    const auto [log_y, log_x] = scalesOf(*g, relativeTo());
    QSignalBlocker by(log_y_), bx(log_x_);
    log_y_->setChecked(log_y);
    log_x_->setChecked(log_x || g->percentile_x);
  }
  showDescription(false);
  // The table: the points, or in the relative view their ratios.
  relative_model_->setView(points_->sharedRun(), id, relativeTo());
  QAbstractItemModel* table_model =
      relativeTo().empty() ? static_cast<QAbstractItemModel*>(points_) : relative_model_;
  if (table_->model() != table_model) {
    table_->setModel(table_model);
    // Both models name the series and the point first; the ratios' table is whole.
    fit_columns(table_, {PointsModel::SeriesColumn, PointsModel::PointColumn},
                table_model == points_ ? PointsModel::CvColumn : -1);
  }
  QChart* chart = nullptr;
  if (g) {
    charts::ChartOptions o = options();
    o.hidden_series = hidden_;
    o.for_screen = true;
    chart = charts::build_chart(run(), id, o).release();
    chart->setProperty("perflab_built", true);
    charts::enable_legend_toggles(chart);
    title_->setText(chart->title());
    chart->setTitle({});
    chart->legend()->hide();
    // After the toggle itself (connected first): the legend shows the new state.
    for (auto* m : chart->legend()->markers())
      connect(m, &QLegendMarker::clicked, legend_,
              [this, chart] { legend_->setText(legend_html(chart, true)); });
    legend_->setText(legend_html(chart, true));
  } else {
    chart = new QChart;
    chart->setTheme(theme_);
    chart->setTitle(run().experiment.empty() ? "No results yet: run an experiment or open one"
                                             : "No points measured yet");
    title_->clear();
    legend_->clear();
  }
  view_->setChart(chart);  // the view releases (does not delete) the previous chart
  delete old;
  emit chartRebuilt();
}

QString ChartPanel::pointText(const std::string& series, const std::string& label) const {
  if (!relativeTo().empty()) return q(relative_model_->sentence(series, label));
  int row = points_->rowOf(series, label);
  return row < 0 ? QString() : points_->index(row, 0).data(Qt::ToolTipRole).toString();
}

QString ChartPanel::tooltipAt(QPoint viewport_pos) const {
  QChart* c = chart();
  if (!c) return {};
  const QPointF at = view_->mapToScene(viewport_pos);
  // Points: the nearest on screen within a marker's reach.
  QString best_text;
  double best = 14 * 14;
  for (auto* s : c->series()) {
    if (!s->isVisible()) continue;
    const QString series = s->property("perflab_series").toString();
    if (auto* xy = qobject_cast<QXYSeries*>(s); xy && s->property("perflab_labels").isValid()) {
      const QStringList labels = s->property("perflab_labels").toStringList();
      const auto pts = xy->points();
      for (int i = 0; i < pts.size() && i < labels.size(); ++i) {
        const QPointF d = c->mapToPosition(pts[i], xy) - at;
        const double dd = d.x() * d.x() + d.y() * d.y();
        if (dd < best) {
          best = dd;
          best_text = pointText(series.toStdString(), labels[i].toStdString());
        }
      }
    } else if (auto* bars = qobject_cast<QBarSeries*>(s)) {
      // Bars: the one whose rectangle holds the cursor.
      auto axes = c->axes(Qt::Horizontal, bars);
      auto* cats = axes.isEmpty() ? nullptr : qobject_cast<QBarCategoryAxis*>(axes.front());
      const auto sets = bars->barSets();
      const double width = bars->barWidth();
      for (int si = 0; cats && si < sets.size(); ++si)
        for (int ci = 0; ci < sets[si]->count() && ci < cats->count(); ++ci) {
          const double x0 = ci - width / 2 + si * width / sets.size();
          const QRectF r = QRectF(c->mapToPosition({x0, sets[si]->at(ci)}, bars),
                                  c->mapToPosition({x0 + width / sets.size(), 0}, bars))
                               .normalized();
          if (r.contains(at))
            return pointText(sets[si]->property("perflab_series").toString().toStdString(),
                             charts::category_text(cats, ci).toStdString());
        }
    } else if (auto* stack = qobject_cast<QHorizontalStackedBarSeries*>(s)) {
      // A stack on its side: the part whose rectangle holds the cursor.
      auto axes = c->axes(Qt::Vertical, stack);
      auto* cats = axes.isEmpty() ? nullptr : qobject_cast<QBarCategoryAxis*>(axes.front());
      const auto sets = stack->barSets();
      const double half = stack->barWidth() / 2;
      for (int ci = 0; cats && ci < cats->count(); ++ci) {
        double from = 0;
        for (auto* set : sets) {
          const double to = from + (ci < set->count() ? set->at(ci) : 0.0);
          const QRectF r = QRectF(c->mapToPosition({from, ci - half}, stack),
                                  c->mapToPosition({to, ci + half}, stack))
                               .normalized();
          if (r.contains(at))
            return pointText(set->property("perflab_series").toString().toStdString(),
                             charts::category_text(cats, ci).toStdString());
          from = to;
        }
      }
    }
  }
  return best_text;
}

bool ChartPanel::eventFilter(QObject* watched, QEvent* e) {
  // Qt asks for a tooltip when the mouse rests over the chart: the exact figures of the bar
  // or point under it.
  if (watched == view_->viewport() && e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const QString text = tooltipAt(help->pos());
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), text, view_->viewport());
    return true;
  }
  return QWidget::eventFilter(watched, e);
}

void ChartPanel::exportChart(const QString& path, QSize size, bool all_groups) const {
  charts::ExportSpec spec;
  if (!all_groups) {
    if (group().empty()) throw charts::ChartError("there is no chart to export yet");
    spec.groups = {group()};
  }
  spec.options = options();
  spec.size = size;
  charts::export_charts(run(), spec, charts::format_from_path(path), path);
}

QImage ChartPanel::chartImage(QSize size) const {
  if (group().empty()) return {};
  charts::ExportSpec spec;
  spec.groups = {group()};
  spec.options = options();
  spec.size = size;
  return charts::render_image(run(), spec);
}

}  // namespace perflab::gui
