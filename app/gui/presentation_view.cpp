#include "presentation_view.h"

#include <QApplication>
#include <QChartView>
#include <QCloseEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "chart_panel.h"
#include "charts/run_chart.h"
#include "report/teaching.h"

namespace perflab::gui {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// Point sizes for the back row of a lecture hall.
constexpr double kTitlePt = 30, kTextPt = 20, kSmallPt = 16;

QFont sized(double pt, bool bold = false) {
  QFont f = QApplication::font();
  f.setPointSizeF(pt);
  f.setBold(bold);
  return f;
}

}  // namespace

PresentationView::PresentationView(QWidget* parent) : QWidget(parent, Qt::Window) {
  setObjectName("presentationView");
  setWindowTitle("Perflab — presentation");
  setAttribute(Qt::WA_DeleteOnClose, false);
  auto* h = new QHBoxLayout(this);
  h->setContentsMargins(24, 16, 24, 16);
  auto* left = new QVBoxLayout;
  title_ = new QLabel;
  title_->setObjectName("presentationTitle");
  title_->setWordWrap(true);
  title_->setFont(sized(kTitlePt, true));
  left->addWidget(title_);
  description_ = new QLabel;
  description_->setWordWrap(true);
  description_->setFont(sized(kSmallPt));
  left->addWidget(description_);
  view_ = new QChartView;
  view_->setObjectName("presentationChart");
  view_->setRenderHint(QPainter::Antialiasing);
  left->addWidget(view_, 1);
  legend_ = new QLabel;
  legend_->setObjectName("presentationLegend");
  legend_->setWordWrap(true);
  legend_->setTextFormat(Qt::RichText);
  legend_->setFont(sized(kTextPt));
  left->addWidget(legend_);
  position_ = new QLabel;
  position_->setFont(sized(kSmallPt * 0.8));
  position_->setStyleSheet("color: palette(mid);");
  left->addWidget(position_);
  h->addLayout(left, 3);
  findings_ = new QTextBrowser;
  findings_->setObjectName("presentationFindings");
  findings_->setFrameShape(QFrame::NoFrame);
  findings_->document()->setDefaultFont(sized(kSmallPt));
  findings_->setFocusPolicy(Qt::NoFocus);  // the arrow keys step charts, never scroll it
  h->addWidget(findings_, 1);
  setFocusPolicy(Qt::StrongFocus);
}

void PresentationView::setRun(const Run& run, const std::string& group,
                              std::set<std::string> hidden) {
  run_ = run;
  hidden_ = std::move(hidden);
  groups_ = charts::chart_groups(run_);
  index_ = 0;
  for (std::size_t i = 0; i < groups_.size(); ++i)
    if (groups_[i] == group) index_ = i;
  // A quarter of the screen at back-row sizes: one block per finding, never a five-column table.
  const auto teaching = load_teaching(QString::fromStdString(run_.experiment));
  findings_->setHtml(
      findings_html(run_, FindingsLayout::Stacked, teaching ? teaching->leads : QStringList{}));
  findings_->setVisible(!run_.findings.empty());
  rebuild();
}

void PresentationView::setGroup(const std::string& group) {
  for (std::size_t i = 0; i < groups_.size(); ++i)
    if (groups_[i] == group && i != index_) {
      index_ = i;
      rebuild();
    }
}

std::string PresentationView::group() const {
  return index_ < groups_.size() ? groups_[index_] : std::string();
}

void PresentationView::step(int delta) {
  if (groups_.empty()) return;
  const auto last = static_cast<long>(groups_.size()) - 1;
  const auto next = std::clamp(static_cast<long>(index_) + delta, 0L, last);
  if (static_cast<std::size_t>(next) == index_) return;
  index_ = static_cast<std::size_t>(next);
  rebuild();
  emit groupChanged(group());
}

void PresentationView::rebuild() {
  QChart* old = view_->chart();
  QChart* chart = nullptr;
  const Group* g = run_.group(group());
  if (g) {
    charts::ChartOptions o;
    o.presentation = true;
    o.hidden_series = hidden_;
    chart = charts::build_chart(run_, g->id, o).release();
    title_->setText(chart->title());  // wraps here, where the chart would cut it
    chart->setTitle({});
    legend_->setText(legend_html(chart, false));
    chart->legend()->hide();
    description_->setText(q(g->description));
    position_->setText(QString("Chart %1 of %2 — ←/→ or PageUp/PageDown for the others, Esc "
                               "to leave")
                           .arg(index_ + 1)
                           .arg(groups_.size()));
  } else {
    chart = new QChart;
    title_->setText("No results to present yet: run an experiment or open one");
    description_->clear();
    legend_->clear();
    position_->setText("Esc to leave");
  }
  chart->setBackgroundRoundness(0);
  view_->setChart(chart);  // the view releases (does not delete) the previous chart
  delete old;
}

void PresentationView::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_Right:
    case Qt::Key_Down:
    case Qt::Key_PageDown:
    case Qt::Key_Space:
      step(+1);
      return;
    case Qt::Key_Left:
    case Qt::Key_Up:
    case Qt::Key_PageUp:
    case Qt::Key_Backspace:
      step(-1);
      return;
    case Qt::Key_Home:
      step(-static_cast<int>(groups_.size()));
      return;
    case Qt::Key_End:
      step(static_cast<int>(groups_.size()));
      return;
    case Qt::Key_Escape:
    case Qt::Key_F11:
      close();
      return;
    default:
      QWidget::keyPressEvent(e);
  }
}

void PresentationView::closeEvent(QCloseEvent* e) {
  QWidget::closeEvent(e);
  emit closed();
}

}  // namespace perflab::gui
