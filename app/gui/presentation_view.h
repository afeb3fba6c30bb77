#pragma once
// The presentation view (F11): one chart of a run filling the screen for a lecture hall, drawn
// as the window draws it (its scales, hidden series: the chart's options). Its title (with the
// run's note) wraps above it, its description stands in two lines (D shows it whole), its legend
// wraps below it (the chart's own is hidden), and the findings about that chart sit beside it
// (none: the chart takes the whole width; a run file from before findings named their charts:
// all of them). Left/Right, Up/Down and PageUp/PageDown (what a presenter's clicker sends) step
// through the run's charts; Esc (or F11) leaves.
#include <functional>
#include <string>
#include <vector>

#include <QStringList>
#include <QWidget>

#include "charts/run_chart.h"
#include "common/run.h"

class QChartView;
class QLabel;
class QTextBrowser;

namespace perflab::gui {

class PresentationView : public QWidget {
  Q_OBJECT
 public:
  // The options a chart of the run (by Group::id) is drawn with in the window.
  using OptionsFor = std::function<charts::ChartOptions(const std::string& group)>;

  explicit PresentationView(QWidget* parent = nullptr);

  // Shows `group` of `run` (the first chart when it has no such group); every chart is drawn
  // with `options_for` it (default options without), at presentation sizes.
  void setRun(const Run& run, const std::string& group, OptionsFor options_for = {});
  void setGroup(const std::string& group);
  std::string group() const;
  // Steps to the next (+1) or previous (-1) chart; stays at the ends.
  void step(int delta);
  // The chart's whole description in place of its first line (the D key), or back.
  void showFullDescription(bool on);
  bool fullDescription() const { return full_description_; }

  QChartView* chartView() const { return view_; }
  QLabel* titleLabel() const { return title_; }
  QLabel* descriptionLabel() const { return description_; }
  QLabel* legendLabel() const { return legend_; }
  QLabel* footerLabel() const { return position_; }
  QTextBrowser* findingsView() const { return findings_; }
  // The ids of the findings beside the chart on show.
  const std::vector<std::string>& findingIds() const { return finding_ids_; }

 signals:
  void groupChanged(const std::string& group);
  void closed();

 protected:
  void keyPressEvent(QKeyEvent* e) override;
  void closeEvent(QCloseEvent* e) override;
  bool eventFilter(QObject* watched, QEvent* e) override;  // the description follows its width

 private:
  void rebuild();
  void showFindings(const std::string& group);
  // The findings in view without scrolling (a presenter cannot scroll them): the room size,
  // smaller down to 12 pt; then the first ones that fit and how many more there are.
  void fitFindings();
  void showDescription();  // and the title with the note: both follow their labels' widths
  Run run_;
  std::vector<std::string> groups_;
  std::size_t index_ = 0;
  OptionsFor options_for_;
  QStringList leads_;  // the teaching's findings that lead (TeachingData::leads)
  std::vector<std::string> finding_ids_;
  Run shown_findings_;  // the findings about the chart on show (its experiment, status)
  bool full_description_ = false;
  QString title_text_, description_text_;
  QLabel *title_, *description_, *legend_, *position_;
  QChartView* view_;
  QTextBrowser* findings_;
};

}  // namespace perflab::gui
