// The IO-list headline chart as a teacher opens it at 1280x800: the article's pair first (the
// other builders a click away in the legend), the relative view (ratios to the baseline with
// their intervals, painted where the ratios are), the choice remembered, and a table that keeps
// at least eight rows in view below its splitter.
#include <cmath>

#include <QAbstractBarSeries>
#include <QBarSet>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableView>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>

#include "chart_panel.h"
#include "charts/error_bars.h"
#include "charts/relative_chart.h"
#include "common/figure_format.h"
#include "common/relative.h"
#include "main_window.h"
#include "models/points_model.h"
#include "models/relative_model.h"
#include "muted_text.h"
#include "sample_runs.h"
#include "waits.h"

using namespace perflab;
using namespace perflab::gui;

namespace {

const char* const kBuilders[] = {"interpolate", "iolist", "prepared", "unnest", "copy"};
// Each builder's time as a share of interpolate's, round by round (interleaved).
const double kShare[] = {1.0, 0.9, 1.1, 1.25, 0.8};

// An IO-list run as the experiment writes it: the headline "append" with five builders over four
// groups of writers whose times differ a hundredfold, interpolate its baseline, interpolate and
// iolist its first series; a long description, as the real one is.
Run headline_run() {
  Run run;
  run.experiment = "iolist";
  run.title = "IO lists";
  run.status = RunStatus::Finished;
  run.started_unix_ms = 1796000000000;
  run.ended_unix_ms = 1796000060000;
  std::string description = "Wall time for every writer to append one batch to a new stream.";
  for (int i = 0; i < 8; ++i)
    description += " pgbench runs the same transaction with the same statement text and events.";
  Group g{"append", "Append 100 events", "us/op", "", false, true, description};
  g.headline = true;
  g.baseline_series = "interpolate";
  g.first_series = {"interpolate", "iolist"};
  g.interleaved = true;
  run.ensure_group(g);
  run.ensure_group({"read", "Read 100 events", "us/op", "", false, true, "Reads."});
  const char* writers[] = {"single writer", "10 concurrent writers", "100 concurrent writers",
                           "single writer, RTT 1 ms"};
  const double base[] = {4600, 16000, 180000, 12000};
  const double round[] = {1.0, 1.03, 0.97, 1.06, 0.99, 1.02};  // a slow round slows every builder
  for (int b = 0; b < 5; ++b)
    for (int w = 0; w < 4; ++w) {
      std::vector<double> samples;
      for (int r = 0; r < 6; ++r)  // and each builder has a little noise of its own
        samples.push_back(base[w] * round[r] * kShare[b] *
                          (1 + 0.004 * ((b * 7 + r * 3 + w) % 5 - 2)));
      run.add_point("append", kBuilders[b], test::sample_point(writers[w], samples));
      run.add_point("read", kBuilders[b], test::sample_point(writers[w], samples));
    }
  return run;
}

}  // namespace

class RelativeTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  int count_ = 0;

  std::unique_ptr<MainWindow> window(const QString& settings) {
    auto w = std::make_unique<MainWindow>(
        WindowOptions{dir_.filePath("history" + QString::number(++count_)), settings});
    w->resize(1280, 800);
    w->show();
    if (!QTest::qWaitForWindowExposed(w.get(), test::kWaitMs)) return nullptr;
    return w;
  }

  // A window at 1280x800 showing headline_run().
  std::unique_ptr<MainWindow> open(const QString& settings) {
    auto w = window(settings);
    if (!w) return nullptr;
    const QString path = w->history().save(headline_run());
    if (!w->openRun(path)) return nullptr;
    if (!QTest::qWaitFor([&] { return w->resultsPanel()->group() == "append"; }, test::kWaitMs))
      return nullptr;
    return w;
  }

  // The names on show in a chart: its visible scatter series or bar sets.
  static std::set<std::string> shown(const QChart* chart) {
    std::set<std::string> out;
    for (auto* s : chart->series()) {
      const std::string name = s->property("perflab_series").toString().toStdString();
      if (auto* bars = qobject_cast<QAbstractBarSeries*>(s)) {
        for (auto* set : bars->barSets())
          if (!set->property("perflab_hidden").toBool())
            out.insert(set->property("perflab_series").toString().toStdString());
      } else if (s->isVisible() && !name.empty()) {
        out.insert(name);
      }
    }
    return out;
  }

  static QScatterSeries* scatter(QChart* chart, const char* series) {
    for (auto* s : chart->series())
      if (s->property("perflab_series") == series) return qobject_cast<QScatterSeries*>(s);
    return nullptr;
  }

  static int relativeIndex(ChartPanel* panel, const QString& baseline) {
    return panel->relativeBox()->findData(baseline);
  }

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void theHeadlineOpensOnTheArticlesPair() {
    auto w = open(dir_.filePath("pair.ini"));
    QVERIFY(w);
    ChartPanel* panel = w->resultsPanel();
    QCOMPARE(shown(panel->chart()), (std::set<std::string>{"interpolate", "iolist"}));
    QCOMPARE(panel->options().hidden_series, (std::set<std::string>{"prepared", "unnest", "copy"}));
    // Every builder is in the legend, the hidden ones struck out: one click shows one.
    const QString legend = panel->legendLabel()->text();
    for (const char* b : kBuilders) QVERIFY2(legend.contains(b), b);
    QVERIFY(legend.contains("<s style='color:" + muted_text(QGuiApplication::palette()).name() +
                            "'>copy</s>"));
    QVERIFY(!legend.contains("color:#000000"));  // a hidden entry keeps its colour
    QVERIFY(!legend.contains("<s style='color:" + muted_text(QGuiApplication::palette()).name() +
                             "'>iolist</s>"));
    emit panel->legendLabel()->linkActivated("4");  // copy's entry
    QCOMPARE(shown(panel->chart()), (std::set<std::string>{"interpolate", "iolist", "copy"}));
    // A click holds when the person switches charts and back.
    panel->setGroup("read");
    panel->setGroup("append");
    QVERIFY(shown(panel->chart()).count("copy"));
  }

  void theRelativeViewDrawsTheRatiosWithTheirIntervals() {
    auto w = open(dir_.filePath("ratios.ini"));
    QVERIFY(w);
    ChartPanel* panel = w->resultsPanel();
    QCOMPARE(panel->relativeTo(), std::string());
    QCOMPARE(panel->relativeBox()->itemData(1).toString(), QString("interpolate"));  // first
    panel->relativeBox()->setCurrentIndex(relativeIndex(panel, "interpolate"));
    QCOMPARE(panel->options().relative_to, std::string("interpolate"));
    QVERIFY(panel->logYBox()->isChecked());  // ratios open on a log axis
    QVERIFY(panel->titleLabel()->text().contains("relative to interpolate"));
    QChart* chart = panel->chart();
    auto* yaxis = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).front());
    QVERIFY(yaxis && yaxis->property("perflab_log").toBool());
    QVERIFY(yaxis->titleText().contains("× interpolate's time"));
    const QRectF plot = chart->plotArea();
    const Run run = headline_run();
    const auto view = relative_view(run, "append", "interpolate");
    QVERIFY(view);
    // Every point of iolist sits where its ratio is: 0.9 of interpolate, round by round.
    QScatterSeries* iolist = scatter(chart, "iolist");
    QVERIFY(iolist);
    const QStringList labels = iolist->property("perflab_labels").toStringList();
    QCOMPARE(labels.size(), 4);
    for (int i = 0; i < labels.size(); ++i) {
      const RelativePoint* rp = view->find("iolist", labels[i].toStdString());
      QVERIFY(rp);
      // The ratio of the medians, as the test computes it from the samples.
      const Point* a = run.find_point("append", "iolist", labels[i].toStdString());
      const Point* b = run.find_point("append", "interpolate", labels[i].toStdString());
      QCOMPARE(rp->ratio.value, a->stats.median / b->stats.median);
      QVERIFY(std::abs(rp->ratio.value - 0.9) < 0.02);
      QVERIFY(rp->ratio.lo < rp->ratio.value && rp->ratio.value < rp->ratio.hi);
      const double at =
          (std::log10(rp->ratio.value) - yaxis->min()) / (yaxis->max() - yaxis->min());
      const QPointF painted = chart->mapToPosition(iolist->at(i), iolist);
      QVERIFY2(std::abs(painted.y() - (plot.bottom() - at * plot.height())) < 0.5,
               qPrintable(labels[i]));
      // Its tooltip, from the mouse's position, is the ratio's sentence.
      const QString tip = panel->tooltipAt(panel->chartView()->mapFromScene(painted));
      QCOMPARE(tip, QString::fromStdString(relative_sentence(*view, "iolist", *rp)));
      QVERIFY(tip.startsWith("iolist — " + labels[i] + ": 0.8") ||
              tip.startsWith("iolist — " + labels[i] + ": 0.9"));
      QVERIFY(tip.contains("× interpolate ["));
      QVERIFY(tip.endsWith("(95% CI, n = 6)"));
    }
    // The baseline at 1, a reference line through it; iolist's error bars are its intervals.
    QVERIFY(charts::reference_line(*chart));
    const auto ref = qobject_cast<QXYSeries*>(charts::reference_line(*chart))->points();
    QCOMPARE(ref.front().y(), 0.0);  // log10(1)
    bool bars = false;
    for (auto* e : charts::error_bar_items(*chart))
      if (e->series() == "iolist") {
        bars = true;
        QCOMPARE(int(e->bars().size()), 4);
        const RelativePoint* rp = view->find("iolist", labels[0].toStdString());
        QCOMPARE(e->bars()[0].lo, std::log10(rp->ratio.lo));
        QCOMPARE(e->bars()[0].hi, std::log10(rp->ratio.hi));
      }
    QVERIFY(bars);
    // The table lists the ratios, not the medians.
    QTableView* table = panel->table();
    QCOMPARE(table->model(), static_cast<QAbstractItemModel*>(panel->relativeModel()));
    QCOMPARE(table->model()->rowCount(), 16);  // four builders against interpolate, four points
    QCOMPARE(table->model()->index(0, 0).data().toString(), QString("iolist"));
    const RelativePoint* first = view->find("iolist", "single writer");
    QCOMPARE(table->model()->index(0, RelativeModel::RatioColumn).data(RelativeModel::ValueRole),
             QVariant(first->ratio.value));
    QCOMPARE(table->model()->index(0, RelativeModel::IntervalColumn).data().toString(),
             QString::fromStdString(format_relative(first->ratio, "interpolate")));
    // Back to none: the medians again.
    panel->relativeBox()->setCurrentIndex(0);
    QVERIFY(!charts::reference_line(*panel->chart()));
    QVERIFY(panel->logYBox()->isEnabled());
    // Log y off, then relative again: the ratios stay on a log axis (main drew them as linear
    // bars, 0.20x and 1.09x invisible beside 218x), and the box says so.
    panel->logYBox()->setChecked(false);
    QVERIFY(!panel->chart()->axes(Qt::Vertical).front()->property("perflab_log").toBool());
    panel->relativeBox()->setCurrentIndex(relativeIndex(panel, "interpolate"));
    QVERIFY(panel->logYBox()->isChecked());
    QVERIFY(!panel->logYBox()->isEnabled());
    QVERIFY(panel->chart()->axes(Qt::Vertical).front()->property("perflab_log").toBool());
    charts::ChartOptions linear = panel->options();
    linear.log_y = false;  // as a saved choice or an export would ask
    const auto exported = charts::build_chart(run, "append", linear);
    QVERIFY(exported->axes(Qt::Vertical).front()->property("perflab_log").toBool());
    panel->relativeBox()->setCurrentIndex(0);
    QVERIFY(panel->logYBox()->isEnabled());
    QVERIFY(!panel->logYBox()->isChecked());  // the medians keep the person's choice
    QCOMPARE(table->model(), static_cast<QAbstractItemModel*>(panel->pointsModel()));
  }

  // PostgreSQL against Redis are categories of one chart, not series: each series against its
  // own value in a category (here: each builder's time at 10 writers against its own single
  // writer's), painted where the ratio is, in the table and the tooltip alike.
  void aCategoryIsABaselineToo() {
    auto w = open(dir_.filePath("category.ini"));
    QVERIFY(w);
    ChartPanel* panel = w->resultsPanel();
    QComboBox* box = panel->relativeBox();
    const int at = relativeIndex(panel, "category: single writer");
    QVERIFY(at > relativeIndex(panel, "copy"));  // after the series
    QCOMPARE(box->itemText(at), QString("single writer (category)"));
    QCOMPARE(relativeIndex(panel, "category: 100 concurrent writers"), at + 2);
    box->setCurrentIndex(at);
    QCOMPARE(panel->options().relative_to, std::string("category: single writer"));
    QVERIFY(panel->titleLabel()->text().contains("relative to single writer"));
    QChart* chart = panel->chart();
    auto* yaxis = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).front());
    QVERIFY(yaxis && yaxis->property("perflab_log").toBool());
    QVERIFY(yaxis->titleText().contains("× single writer's time"));
    const Run run = headline_run();
    const auto view = relative_view(run, "append", "category: single writer");
    QVERIFY(view);
    QScatterSeries* iolist = scatter(chart, "iolist");
    QVERIFY(iolist);
    const QStringList labels = iolist->property("perflab_labels").toStringList();
    QCOMPARE(labels.size(), 4);
    const QRectF plot = chart->plotArea();
    for (int i = 0; i < labels.size(); ++i) {
      const std::string label = labels[i].toStdString();
      const Point* a = run.find_point("append", "iolist", label);
      const Point* b = run.find_point("append", "iolist", "single writer");
      const double ratio = a->stats.median / b->stats.median;  // 1 in the category itself
      const double y = (std::log10(ratio) - yaxis->min()) / (yaxis->max() - yaxis->min());
      const QPointF painted = chart->mapToPosition(iolist->at(i), iolist);
      QVERIFY2(std::abs(painted.y() - (plot.bottom() - y * plot.height())) < 0.5, label.c_str());
      const QString tip = panel->tooltipAt(panel->chartView()->mapFromScene(painted));
      if (label == "single writer") {
        QCOMPARE(tip, QString("iolist — single writer: 1× single writer (the baseline)"));
        continue;
      }
      const RelativePoint* rp = view->find("iolist", label);
      QVERIFY(rp);
      QCOMPARE(rp->ratio.value, ratio);
      QCOMPARE(tip, QString::fromStdString(relative_sentence(*view, "iolist", *rp)));
      QVERIFY(tip.contains("× single writer ["));
    }
    // 10 writers take about 3.5 times one writer's time, 100 writers about 39 times.
    QVERIFY(std::abs(view->find("iolist", "10 concurrent writers")->ratio.value - 16000 / 4600.) <
            0.2);
    QTableView* table = panel->table();
    QCOMPARE(table->model(), static_cast<QAbstractItemModel*>(panel->relativeModel()));
    QCOMPARE(table->model()->rowCount(), 15);  // five builders, three other categories
    panel->relativeBox()->setCurrentIndex(0);
  }

  void theChoiceIsRememberedPerChart() {
    const QString settings = dir_.filePath("remember.ini");
    QList<int> sizes;
    {
      auto w = open(settings);
      QVERIFY(w);
      ChartPanel* panel = w->resultsPanel();
      panel->relativeBox()->setCurrentIndex(relativeIndex(panel, "iolist"));
      // The person drags the splitter 40 px up: the table grows.
      QSplitter* split = panel->splitter();
      QWidget* handle = split->handle(1);
      const QPoint from = handle->rect().center();
      QTest::mousePress(handle, Qt::LeftButton, {}, from);
      QTest::mouseMove(handle, from + QPoint(0, -40));
      QTest::mouseRelease(handle, Qt::LeftButton, {}, from + QPoint(0, -40));
      sizes = split->sizes();
      panel->setGroup("read");  // another chart of the run keeps its own choice: none
      QCOMPARE(panel->relativeTo(), std::string());
    }
    auto w = open(settings);
    QVERIFY(w);
    ChartPanel* panel = w->resultsPanel();
    QCOMPARE(panel->relativeTo(), std::string("iolist"));
    QVERIFY(panel->titleLabel()->text().contains("relative to iolist"));
    QCOMPARE(panel->splitter()->sizes(), sizes);
    panel->setGroup("read");
    QCOMPARE(panel->relativeTo(), std::string());
  }

  void theTableKeepsEightRowsInView() {
    auto w = open(dir_.filePath("table.ini"));
    QVERIFY(w);
    ChartPanel* panel = w->resultsPanel();
    QTableView* table = panel->table();
    auto rows_in_view = [&] {
      return table->viewport()->height() / table->verticalHeader()->defaultSectionSize();
    };
    QVERIFY2(rows_in_view() >= 8, qPrintable(QString::number(rows_in_view())));
    // The long description waits behind a link; the chart keeps its room.
    QVERIFY(panel->descriptionLabel()->text().contains("More…"));
    QVERIFY(panel->chartView()->height() >= 200);
    // Dragging the splitter down as far as it goes leaves eight rows.
    QSplitter* split = panel->splitter();
    QWidget* handle = split->handle(1);
    const QPoint from = handle->rect().center();
    QTest::mousePress(handle, Qt::LeftButton, {}, from);
    QTest::mouseMove(handle, from + QPoint(0, 500));
    QTest::mouseRelease(handle, Qt::LeftButton, {}, from + QPoint(0, 500));
    QVERIFY2(rows_in_view() >= 8, qPrintable(QString::number(rows_in_view())));
    // And the whole description is a click away.
    emit panel->descriptionLabel()->linkActivated("more");
    QVERIFY(panel->descriptionLabel()->text().contains("same statement text and events. <a"));
  }
};

QTEST_MAIN(RelativeTest)
#include "test_relative.moc"
