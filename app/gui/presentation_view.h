#pragma once
// The presentation view (F11): one chart of a run filling the screen for a lecture hall. The
// chart's title wraps above it, its legend wraps below it (never truncated: the legend of the
// chart itself is hidden), and the article-vs-this-run table sits beside it. Left/Right,
// Up/Down and PageUp/PageDown (what a presenter's clicker sends) step through the run's charts;
// Esc (or F11) leaves.
#include <set>
#include <string>
#include <vector>

#include <QWidget>

#include "common/run.h"

class QChart;
class QChartView;
class QLabel;
class QTextBrowser;

namespace perflab::gui {

class PresentationView : public QWidget {
  Q_OBJECT
 public:
  explicit PresentationView(QWidget* parent = nullptr);

  // Shows `group` of `run` (the first chart when it has no such group), with `hidden` series
  // left out as in the window.
  void setRun(const Run& run, const std::string& group, std::set<std::string> hidden = {});
  void setGroup(const std::string& group);
  std::string group() const;
  // Steps to the next (+1) or previous (-1) chart; stays at the ends.
  void step(int delta);

  QChartView* chartView() const { return view_; }
  QLabel* titleLabel() const { return title_; }
  QLabel* legendLabel() const { return legend_; }
  QTextBrowser* findingsView() const { return findings_; }

 signals:
  void groupChanged(const std::string& group);
  void closed();

 protected:
  void keyPressEvent(QKeyEvent* e) override;
  void closeEvent(QCloseEvent* e) override;

 private:
  void rebuild();
  Run run_;
  std::vector<std::string> groups_;
  std::size_t index_ = 0;
  std::set<std::string> hidden_;
  QLabel *title_, *description_, *legend_, *position_;
  QChartView* view_;
  QTextBrowser* findings_;
};

}  // namespace perflab::gui
