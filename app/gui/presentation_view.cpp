// The presentation view: one chart at a room's scale, with the findings about it.
#include "presentation_view.h"

#include <algorithm>

#include <QApplication>
#include <QChartView>
#include <QCloseEvent>
#include <QGraphicsLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLegend>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>

#include "chart_panel.h"
#include "muted_text.h"
#include "qt_text/qt_text.h"
#include "report/teaching.h"

namespace perflab::gui {

namespace {

// Point sizes for the back row of a lecture hall.
constexpr double kTitlePt = 28, kTextPt = 20, kSmallPt = 16;
// The smallest the findings beside the chart are drawn to fit them all.
constexpr double kMinFindingsPt = 12;

QFont sized(double pt, bool bold = false) {
  QFont f = QApplication::font();
  f.setPointSizeF(pt);
  f.setBold(bold);
  return f;
}

// The chart's title in bold and the run's note after it in a quieter voice, in a label
// `width` wide: on the title's line, elided to what the title leaves of it; on a line of its own
// when the title leaves too little.
QString title_html(const QLabel* label, int width, const QString& title, const QString& note) {
  QString html = "<b>" + title.toHtmlEscaped() + "</b>";
  if (note.isEmpty()) return html;
  const QFontMetrics note_metrics(sized(kTextPt)), title_metrics(label->font());
  const QString gap = "   — ";
  int room = width - title_metrics.horizontalAdvance(title) - note_metrics.horizontalAdvance(gap);
  const bool own_line = room < width / 4;
  if (own_line) room = width;
  const QString shown =
      note_metrics.elidedText((own_line ? "" : gap) + note, Qt::ElideRight, std::max(room, 1));
  return html + (own_line ? "<br>" : "") +
         QString(
             "<span style='font-size:%1pt; font-weight:normal; color:%2; "
             "white-space:pre'>%3</span>")
             .arg(kTextPt)
             .arg(muted_text(label->palette()).name())
             .arg(shown.toHtmlEscaped());
}

}  // namespace

PresentationView::PresentationView(QWidget* parent) : QWidget(parent, Qt::Window) {
  setObjectName("presentationView");
  setWindowTitle("Perflab — presentation");
  setAttribute(Qt::WA_DeleteOnClose, false);
  auto* h = new QHBoxLayout(this);
  h->setContentsMargins(16, 8, 16, 8);
  auto* left = new QVBoxLayout;
  left->setSpacing(4);
  title_ = new QLabel;
  title_->setObjectName("presentationTitle");
  title_->setWordWrap(true);
  title_->setTextFormat(Qt::RichText);
  title_->setFont(sized(kTitlePt, true));
  title_->installEventFilter(this);
  left->addWidget(title_);
  // Two lines; the whole text is a key away (D). Its width never pushes the layout.
  description_ = new QLabel;
  description_->setObjectName("presentationDescription");
  description_->setFont(sized(kSmallPt));
  description_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  description_->installEventFilter(this);
  left->addWidget(description_);
  view_ = new QChartView;
  view_->setObjectName("presentationChart");
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setFrameShape(QFrame::NoFrame);
  left->addWidget(view_, 1);
  legend_ = new QLabel;
  legend_->setObjectName("presentationLegend");
  legend_->setWordWrap(true);
  legend_->setAlignment(Qt::AlignHCenter);
  legend_->setTextFormat(Qt::RichText);
  legend_->setFont(sized(kSmallPt));  // a dozen series take three lines, not four
  left->addWidget(legend_);
  position_ = new QLabel;
  position_->setObjectName("presentationFooter");
  position_->setFont(sized(kSmallPt * 0.8));
  position_->setStyleSheet(muted_text_style(position_->palette()));
  left->addWidget(position_);
  h->addLayout(left, 3);
  findings_ = new QTextBrowser;
  findings_->setObjectName("presentationFindings");
  findings_->setFrameShape(QFrame::NoFrame);
  findings_->document()->setDefaultFont(sized(kSmallPt));
  findings_->setFocusPolicy(Qt::NoFocus);  // the arrow keys step charts, never scroll it
  findings_->installEventFilter(this);     // sized to fit when the view is
  h->addWidget(findings_, 1);
  setFocusPolicy(Qt::StrongFocus);
}

void PresentationView::setRun(const Run& run, const std::string& group, OptionsFor options_for) {
  run_ = run;
  options_for_ = std::move(options_for);
  groups_ = charts::chart_groups(run_);
  index_ = 0;
  for (std::size_t i = 0; i < groups_.size(); ++i)
    if (groups_[i] == group) index_ = i;
  const auto teaching = load_teaching(q(run_.experiment));
  leads_ = teaching ? teaching->leads : QStringList{};
  setWindowTitle(run_.note.empty() ? QString("Perflab — presentation")
                                   : "Perflab — presentation — " + q(run_.note));
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

void PresentationView::showFullDescription(bool on) {
  full_description_ = on;
  showDescription();
}

void PresentationView::showFindings(const std::string& group) {
  // Only the findings about this chart, one block each (a quarter of the screen at back-row
  // sizes, never a five-column table). A run file written before findings named their charts
  // cannot tell: beside each chart, all of them.
  Run about;
  about.experiment = run_.experiment;
  about.status = run_.status;
  finding_ids_.clear();
  const bool linked = std::any_of(run_.findings.begin(), run_.findings.end(),
                                  [](const Finding& f) { return !f.group.empty(); });
  for (const Finding& f : run_.findings)
    if (!group.empty() && (f.group == group || !linked)) {
      about.findings.push_back(f);
      finding_ids_.push_back(f.id);
    }
  findings_->setVisible(!about.findings.empty());  // none: the chart takes the whole width
  shown_findings_ = std::move(about);
  if (shown_findings_.findings.empty())
    findings_->clear();
  else
    fitFindings();
}

void PresentationView::fitFindings() {
  if (findings_->isHidden() || shown_findings_.findings.empty()) return;
  QTextDocument* doc = findings_->document();
  const auto fits = [&] {
    doc->setTextWidth(findings_->viewport()->width());
    return doc->size().height() <= findings_->viewport()->height();
  };
  // All of them, the text smaller until they fit; then the first ones that fit at the smallest
  // size, and how many more there are (never one cut at the bottom).
  findings_->setHtml(findings_html(shown_findings_, FindingsLayout::Stacked, leads_));
  for (double pt = kSmallPt; pt >= kMinFindingsPt; pt -= 1) {
    doc->setDefaultFont(sized(pt));
    if (fits()) return;
  }
  Run some = shown_findings_;
  const std::size_t all = some.findings.size();
  while (some.findings.size() > 1) {
    some.findings.pop_back();
    const std::size_t more = all - some.findings.size();
    findings_->setHtml(findings_html(some, FindingsLayout::Stacked, leads_) +
                       QString("<p><i>%1 more finding%2 about this chart: in the window's side "
                               "panel and the report</i></p>")
                           .arg(more)
                           .arg(more == 1 ? "" : "s"));
    doc->setDefaultFont(sized(kMinFindingsPt));
    if (fits()) return;
  }
}

void PresentationView::rebuild() {
  QChart* old = view_->chart();
  QChart* chart = nullptr;
  const Group* g = run_.group(group());
  if (g) {
    charts::ChartOptions o = options_for_ ? options_for_(g->id) : charts::ChartOptions{};
    o.presentation = true;
    chart = charts::build_chart(run_, g->id, o).release();
    title_text_ = chart->title();  // wraps in its label, where the chart would cut it
    chart->setTitle({});
    legend_->setText(legend_html(chart, false));
    chart->legend()->hide();
    description_text_ = q(g->description);
  } else {
    chart = new QChart;
    title_text_ = "No results to present yet: run an experiment or open one";
    legend_->clear();
    description_text_.clear();
  }
  // The plot takes what the labels around it leave.
  chart->setBackgroundRoundness(0);
  // (Right: room for half the last x tick's label where the chart asks for it.)
  chart->setMargins(QMargins(4, 4, std::max(4, chart->property("perflab_right_room").toInt()), 4));
  chart->layout()->setContentsMargins(0, 0, 0, 0);
  view_->setChart(chart);  // the view releases (does not delete) the previous chart
  delete old;
  showFindings(g ? g->id : std::string());
  showDescription();
}

namespace {

// The text in at most two lines of `width`: the words that fit the first, the rest on the
// second, cut with "…" where it does not fit. `more` says whether anything was cut.
QString two_lines(const QString& text, const QFontMetrics& fm, int width, bool& more) {
  more = false;
  if (fm.horizontalAdvance(text) <= width) return text;
  const QStringList words = text.split(' ', Qt::SkipEmptyParts);
  QString first;
  int i = 0;
  for (; i < words.size(); ++i) {
    const QString next = first.isEmpty() ? words[i] : first + ' ' + words[i];
    if (!first.isEmpty() && fm.horizontalAdvance(next) > width) break;
    first = next;
  }
  const QString rest = words.mid(i).join(' ');
  const QString second = fm.elidedText(rest, Qt::ElideRight, width);
  more = second != rest || fm.horizontalAdvance(first) > width;
  return fm.elidedText(first, Qt::ElideRight, width) + (rest.isEmpty() ? "" : "\n" + second);
}

}  // namespace

void PresentationView::showDescription() {
  title_->setText(title_html(title_, title_->contentsRect().width(), title_text_, q(run_.note)));
  const int width = description_->contentsRect().width();
  bool more = false;
  const QString lines = two_lines(description_text_, description_->fontMetrics(), width, more);
  description_->setWordWrap(full_description_);
  description_->setText(full_description_ ? description_text_ : lines);
  QStringList keys;
  if (!groups_.empty()) keys << "←/→ or PageUp/PageDown for the other charts";
  if (full_description_)
    keys << "D for the description in two lines";
  else if (more)
    keys << "D for the whole description";
  keys << "Esc to leave";
  const QString where = groups_.empty()
                            ? QString()
                            : QString("Chart %1 of %2 — ").arg(index_ + 1).arg(groups_.size());
  position_->setText(where + keys.join(", "));
}

bool PresentationView::eventFilter(QObject* watched, QEvent* e) {
  if ((watched == description_ || watched == title_) && e->type() == QEvent::Resize)
    showDescription();
  if (watched == findings_ && e->type() == QEvent::Resize) fitFindings();
  return QWidget::eventFilter(watched, e);
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
    case Qt::Key_D:
      showFullDescription(!full_description_);
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
