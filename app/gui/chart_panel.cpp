#include "chart_panel.h"

#include <cmath>

#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QCursor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QXYSeries>

namespace perflab::gui {

namespace {
QString q(const std::string& s) {
  return QString::fromStdString(s);
}
}  // namespace

QString format_value(double v) {
  if (!std::isfinite(v)) return QString::number(v);
  double a = std::abs(v);
  if (a == 0) return "0";
  if (a >= 1e9 || a < 1e-3) return QString::number(v, 'g', 4);
  if (a >= 100) return QString::number(v, 'f', 1);
  if (a >= 1) return QString::number(v, 'f', 3);
  return QString::number(v, 'f', 4);
}

ChartPanel::ChartPanel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
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
  bar->addStretch();
  v->addLayout(bar);
  description_ = new QLabel;
  description_->setWordWrap(true);
  v->addWidget(description_);

  auto* split = new QSplitter(Qt::Vertical);
  view_ = new QChartView;
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(260);
  view_->setObjectName("chartView");
  split->addWidget(view_);
  table_ = new QTableWidget(0, 8);
  table_->setObjectName("pointsTable");
  table_->setHorizontalHeaderLabels(
      {"Series", "Point", "Median", "p95", "Min", "Max", "n", "Unit"});
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  v->addWidget(split, 1);

  connect(groups_, &QComboBox::currentIndexChanged, this, [this] {
    fillTable();
    rebuild();
  });
  connect(log_y_, &QCheckBox::toggled, this, &ChartPanel::rebuild);
  connect(log_x_, &QCheckBox::toggled, this, &ChartPanel::rebuild);
  clear();
}

QChart* ChartPanel::chart() const {
  return view_->chart();
}

void ChartPanel::clear() {
  run_ = Run{};
  {
    QSignalBlocker b(groups_);
    groups_->clear();
  }
  table_->setRowCount(0);
  description_->clear();
  rebuild();
}

void ChartPanel::setRun(const Run& run) {
  std::string keep = group();
  run_ = run;
  {
    QSignalBlocker b(groups_);
    groups_->clear();
    for (const auto& id : charts::chart_groups(run_))
      groups_->addItem(q(run_.group(id)->title), q(id));
    int i = groups_->findData(q(keep));
    groups_->setCurrentIndex(i >= 0 ? i : 0);
  }
  fillTable();
  rebuild();
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

void ChartPanel::setPresentation(bool on) {
  presentation_ = on;
  QFont f = QApplication::font();
  if (on) f.setPointSizeF(f.pointSizeF() * 1.6);
  table_->setFont(f);
  table_->horizontalHeader()->setFont(f);
  description_->setFont(f);
  rebuild();
}

void ChartPanel::setTheme(QChart::ChartTheme theme) {
  theme_ = theme;
  rebuild();
}

charts::ChartOptions ChartPanel::options() const {
  charts::ChartOptions o;
  o.log_y = logY();
  o.log_x = logX();
  o.presentation = presentation_;
  o.theme = theme_;
  o.hidden_series = chart() ? charts::hidden_series(chart()) : hidden_;
  return o;
}

void ChartPanel::rebuild() {
  QChart* old = view_->chart();
  if (old && old->property("perflab_built").toBool()) hidden_ = charts::hidden_series(old);
  std::string id = group();
  const Group* g = run_.group(id);
  log_x_->setEnabled(g && g->numeric_x);
  description_->setText(g ? q(g->description) : QString());
  QChart* chart = nullptr;
  if (g) {
    charts::ChartOptions o;
    o.log_y = logY();
    o.log_x = logX();
    o.presentation = presentation_;
    o.theme = theme_;
    o.hidden_series = hidden_;
    chart = charts::build_chart(run_, id, o).release();
    chart->setProperty("perflab_built", true);
    charts::enable_legend_toggles(chart);
    connectTooltips(chart);
  } else {
    chart = new QChart;
    chart->setTheme(theme_);
    chart->setTitle(run_.experiment.empty() ? "No results yet: run an experiment or open one"
                                            : "No points measured yet");
  }
  view_->setChart(chart);  // the view releases (does not delete) the previous chart
  delete old;
  emit chartRebuilt();
}

void ChartPanel::fillTable() {
  std::string id = group();
  const Group* g = run_.group(id);
  table_->setRowCount(0);
  if (!g) return;
  int row = 0;
  for (const auto& s : run_.series) {
    if (s.group != id) continue;
    for (const auto& p : s.points) {
      table_->insertRow(row);
      const Stats& st = p.stats;
      QStringList cells = {q(s.name),
                           q(p.label),
                           format_value(st.median),
                           format_value(st.p95),
                           format_value(st.min),
                           format_value(st.max),
                           QString::number(st.n),
                           q(g->unit)};
      for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        if (c >= 2 && c <= 6) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        item->setToolTip(pointText(s.name, p.label));
        table_->setItem(row, c, item);
      }
      ++row;
    }
  }
}

QString ChartPanel::pointText(const std::string& series, const std::string& label) const {
  std::string id = group();
  const Group* g = run_.group(id);
  const Point* p = run_.find_point(id, series, label);
  if (!g || !p) return {};
  const Stats& s = p->stats;
  QString u = q(g->unit);
  QString t = QString(
                  "<b>%1</b> — %2<br>median: <b>%3 %4</b><br>p95: %5 %4<br>min: %6, max: %7 %4"
                  "<br>mean: %8 ± %9 (stddev)<br>samples: %10")
                  .arg(q(series).toHtmlEscaped(), q(label).toHtmlEscaped(), format_value(s.median),
                       u.toHtmlEscaped(), format_value(s.p95), format_value(s.min),
                       format_value(s.max), format_value(s.mean), format_value(s.stddev))
                  .arg(s.n);
  for (const auto& [k, v] : p->extra)
    t += QString("<br>%1: %2").arg(q(k).toHtmlEscaped(), format_value(v));
  return t;
}

void ChartPanel::connectTooltips(QChart* chart) {
  for (auto* s : chart->series()) {
    if (auto* bars = qobject_cast<QBarSeries*>(s)) {
      for (QBarSet* set : bars->barSets()) {
        connect(set, &QBarSet::hovered, view_, [this, set](bool status, int index) {
          if (!status) return QToolTip::hideText();
          auto axes = this->chart()->axes(Qt::Horizontal);
          auto* cats = axes.isEmpty() ? nullptr : qobject_cast<QBarCategoryAxis*>(axes.front());
          if (!cats || index < 0 || index >= cats->count()) return;
          QString text = pointText(set->property("perflab_series").toString().toStdString(),
                                   cats->at(index).toStdString());
          if (!text.isEmpty()) QToolTip::showText(QCursor::pos(), text, view_);
        });
      }
    } else if (auto* xy = qobject_cast<QXYSeries*>(s);
               xy && s->property("perflab_labels").isValid()) {
      connect(xy, &QXYSeries::hovered, view_, [this, xy](const QPointF& at, bool state) {
        if (!state) return QToolTip::hideText();
        // The point under the cursor: nearest on screen.
        QPointF screen = this->chart()->mapToPosition(at, xy);
        int best = -1;
        double best_d = 1e300;
        const auto pts = xy->points();
        for (int i = 0; i < pts.size(); ++i) {
          QPointF d = this->chart()->mapToPosition(pts[i], xy) - screen;
          double dd = d.x() * d.x() + d.y() * d.y();
          if (dd < best_d) best_d = dd, best = i;
        }
        QStringList labels = xy->property("perflab_labels").toStringList();
        if (best < 0 || best >= labels.size()) return;
        QString text = pointText(xy->property("perflab_series").toString().toStdString(),
                                 labels[best].toStdString());
        if (!text.isEmpty()) QToolTip::showText(QCursor::pos(), text, view_);
      });
    }
  }
}

void ChartPanel::exportChart(const QString& path, QSize size, bool all_groups) const {
  charts::ExportSpec spec;
  if (!all_groups) {
    if (group().empty()) throw charts::ChartError("there is no chart to export yet");
    spec.groups = {group()};
  }
  spec.options = options();
  spec.size = size;
  charts::export_charts(run_, spec, charts::format_from_path(path), path);
}

QImage ChartPanel::chartImage(QSize size) const {
  if (group().empty()) return {};
  charts::ExportSpec spec;
  spec.groups = {group()};
  spec.options = options();
  spec.size = size;
  return charts::render_image(run_, spec);
}

}  // namespace perflab::gui
