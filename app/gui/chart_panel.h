#pragma once
// A run's results: a chart (app/charts) with a group selector, linear/log toggles for y (and x
// where numeric), a relative view (every series as a ratio to a baseline), tooltips with the
// exact figures, legend clicks that hide series, and a sortable table of the group's points (a
// PointsModel: median, p95, min, max, samples; a RelativeModel in the relative view) below a
// splitter.
#include <map>
#include <memory>
#include <set>
#include <string>

#include <QWidget>

#include "charts/chart_export.h"
#include "charts/run_chart.h"
#include "common/run.h"
#include "models/value_text.h"

class QCheckBox;
class QChartView;
class QComboBox;
class QLabel;
class QSplitter;
class QStackedLayout;
class QTableView;

namespace perflab::gui {

class PointsModel;
class RelativeModel;

// The legend of a built chart as wrapping rich text (a chart's own legend cuts long names): a
// coloured square and the series' whole name per entry. With `links`, each entry is a link
// "<marker index>" and hidden series are struck out; without, hidden series are left out.
QString legend_html(const QChart* chart, bool links);

class ChartPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ChartPanel(QWidget* parent = nullptr);

  // Shows a run; keeps the selected group, the toggles and hidden series when they still apply.
  // With table_later the table waits, a "Loading the table…" line in its place, until
  // showTable(): the chart of a large run is painted first, the table's layout after it.
  void setRun(const Run& run, bool table_later = false);  // a copy of `run`
  void setRun(std::shared_ptr<const Run> run, bool table_later = false);
  void showTable();
  bool tableLoading() const;
  void clear();
  const Run& run() const;
  bool hasRun() const { return !run().groups.empty(); }

  void setGroup(const std::string& id);
  std::string group() const;
  // The scales of the chart on show (a choice remembered for that chart: see scaleChosen).
  void setLogY(bool on);
  void setLogX(bool on);
  bool logY() const;
  bool logX() const;
  void setTheme(QChart::ChartTheme theme);
  void setFontScale(double scale);  // the chart's fonts times `scale` (the window's Ctrl +/-)
  // The run shown is an overlay (charts::overlay_runs) with these labels: old and new of a
  // series share a hue.
  void setOverlayLabels(const std::string& old_label, const std::string& new_label);
  // A remembered choice of scales for the chart "<experiment>/<group>" (from the settings).
  void setScaleChoice(const QString& key, bool log_y, bool log_x);
  // The relative view's baseline (empty: none), a choice remembered for each chart like its
  // scales.
  std::string relativeTo() const;
  // A remembered choice of baseline for the chart "<experiment>/<group>" (empty: none).
  void setRelativeChoice(const QString& key, const std::string& baseline);
  // The options the chart is drawn with now (including series hidden from the legend).
  charts::ChartOptions options() const;
  // The options the chart `group` of the run would be drawn with here: the same, with that
  // chart's own scales.
  charts::ChartOptions optionsFor(const std::string& group) const;

  QChartView* chartView() const { return view_; }
  QChart* chart() const;
  QTableView* table() const { return table_; }
  PointsModel* pointsModel() const { return points_; }
  QComboBox* groupBox() const { return groups_; }
  QCheckBox* logYBox() const { return log_y_; }
  QCheckBox* logXBox() const { return log_x_; }
  QComboBox* relativeBox() const { return relative_; }
  RelativeModel* relativeModel() const { return relative_model_; }
  // Between the chart and the table: its sizes are the person's (see MainWindow's settings).
  QSplitter* splitter() const { return split_; }
  QLabel* descriptionLabel() const { return description_; }
  QLabel* titleLabel() const { return title_; }
  QLabel* legendLabel() const { return legend_; }

  // The tooltip text for a point of the current group ("iolist — 10 writers: median …").
  QString pointText(const std::string& series, const std::string& label) const;
  // The tooltip of the bar or point under a position of the chart view's viewport (empty:
  // none there).
  QString tooltipAt(QPoint viewport_pos) const;
  // Exports the current chart (or every group) at `size`; throws charts::ChartError.
  void exportChart(const QString& path, QSize size, bool all_groups = false) const;
  QImage chartImage(QSize size) const;

 signals:
  void chartRebuilt();
  // The person chose the scales of a chart ("<experiment>/<group>").
  void scaleChosen(const QString& key, bool log_y, bool log_x);
  // The person chose the baseline of a chart's relative view (empty: none).
  void relativeChosen(const QString& key, const QString& baseline);

 private:
  void rebuild();
  std::string chartKey() const;  // "<experiment>/<group>"
  // The scales' key: the chart's, and "<chart>/relative" for its relative view (log y there by
  // default).
  std::string scaleKey() const;
  void fillRelativeBox();
  void showDescription(bool whole);
  void firstSeriesOf(const std::string& group);
  // The scales (log y, log x) of a chart of the run, drawn relative to `baseline` (empty: its
  // values): the person's choice, else the group's own.
  std::pair<bool, bool> scalesOf(const Group& g, const std::string& baseline) const;
  bool eventFilter(QObject* watched, QEvent* e) override;

  std::set<std::string> hidden_;
  std::map<std::string, std::pair<bool, bool>> scales_;  // key -> log y, log x
  std::map<std::string, std::string> relatives_;         // chart key -> baseline ("": none)
  // Groups of the run on show whose first series were applied (Group::first_series): the
  // others start hidden once, then the person's clicks hold.
  std::set<std::string> first_shown_;
  std::string run_identity_;  // experiment and start of the run on show
  QChart::ChartTheme theme_ = QChart::ChartThemeLight;
  double font_scale_ = 1.0;
  std::string overlay_old_, overlay_new_;
  QComboBox* groups_;
  QCheckBox *log_y_, *log_x_;
  QComboBox* relative_;
  RelativeModel* relative_model_;
  QSplitter* split_;
  QLabel *description_, *title_, *legend_;
  QChartView* view_;
  PointsModel* points_;
  QTableView* table_;
  QLabel* table_loading_;        // in the table's place while it waits (setRun's table_later)
  QStackedLayout* table_stack_;  // the table or table_loading_
};

}  // namespace perflab::gui
