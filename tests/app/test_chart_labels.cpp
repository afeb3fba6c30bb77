// Charts a room can read: every chart of a default run of each experiment, laid out at
// 1280x800 in the window, in the presentation's size and in an export at its default size, has
// every category label whole, inside the chart and clear of every other text; no axis of a
// quantity that cannot be negative goes below zero; sweeps over sizes open on log x; axis
// titles say what the axis is. Checked on the laid-out text items, not by eye.
#include <QBarCategoryAxis>
#include <QBuffer>
#include <QChartView>
#include <QCheckBox>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QImage>
#include <QLegend>
#include <QPainter>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextDocumentFragment>
#include <QValueAxis>
#include <QtTest>

#include "chart_panel.h"
#include "charts/axis_marker.h"
#include "charts/chart_export.h"
#include "charts/run_chart.h"
#include "common/run_io.h"
#include "main_window.h"
#include "models/points_model.h"
#include "presentation_view.h"
#include "waits.h"

using namespace perflab;
using namespace perflab::charts;

namespace {

// The default runs of the three experiments, as a real run wrote them, then runs of the
// sharding demonstration plans (omission, latency: spectra with a marker, a hockey stick).
const char* const kDefaultRuns[] = {"default-iolist.json", "default-caching.json",
                                    "default-sharding.json"};
const char* const kRuns[] = {"default-iolist.json", "default-caching.json", "default-sharding.json",
                             "omission-sharding.json", "latency-sharding.json"};

Run load_fixture(const char* name) {
  return load_run(std::string(PERFLAB_TEST_DATA) + "/" + name);
}

// A text item's words, whatever lines it was wrapped over.
QString words_of(const QGraphicsTextItem* t) {
  QString s = t->toPlainText();
  s.replace(QChar::LineSeparator, QLatin1Char(' ')).replace(QChar::ParagraphSeparator, ' ');
  return s.simplified();
}

void collect_text(QGraphicsItem* item, const QGraphicsItem* skip, QList<QGraphicsTextItem*>& out) {
  if (item == skip) return;
  for (auto* child : item->childItems()) {
    if (auto* t = dynamic_cast<QGraphicsTextItem*>(child);
        t && t->isVisible() && !t->toPlainText().isEmpty())
      out << t;
    collect_text(child, skip, out);
  }
}

// Every text the chart shows (its legend aside: the window and the exports draw their own).
QList<QGraphicsTextItem*> shown_text(QChart& chart) {
  QList<QGraphicsTextItem*> out;
  collect_text(&chart, chart.legend(), out);
  return out;
}

QRectF rect_in_chart(QChart& chart, const QGraphicsTextItem* t) {
  return t->mapRectToItem(&chart, t->boundingRect());
}

// What is wrong with the chart's labels as laid out: a category not shown whole, a text
// outside the chart or over another. Empty when nothing is.
QString label_faults(QChart& chart, const QString& where) {
  QString faults;
  const auto texts = shown_text(chart);
  const QRectF inside = QRectF(QPointF(0, 0), chart.size()).adjusted(-1, -1, 1, 1);
  for (auto* axis : chart.axes())
    if (auto* cats = qobject_cast<QBarCategoryAxis*>(axis))
      for (int i = 0; i < cats->count(); ++i) {
        const QString name = category_text(cats, i);
        const bool shown = std::any_of(texts.begin(), texts.end(),
                                       [&](auto* t) { return words_of(t) == name.simplified(); });
        if (!shown) faults += where + ": category '" + name + "' not shown whole\n";
      }
  for (int i = 0; i < texts.size(); ++i) {
    if (words_of(texts[i]).endsWith("...") || words_of(texts[i]).endsWith(QChar(0x2026)))
      faults += where + ": '" + words_of(texts[i]) + "' cut short\n";
    const QRectF a = rect_in_chart(chart, texts[i]);
    if (!inside.contains(a)) faults += where + ": '" + words_of(texts[i]) + "' outside the chart\n";
    for (int j = i + 1; j < texts.size(); ++j) {
      const QRectF both = a.intersected(rect_in_chart(chart, texts[j]));
      if (both.width() > 1.5 && both.height() > 1.5)
        faults += where + ": '" + words_of(texts[i]) + "' over '" + words_of(texts[j]) + "'\n";
    }
  }
  return faults;
}

// What is wrong with the axes: a linear axis below zero, a sweep over sizes on linear x, a
// stack of shares titled with a better direction.
QString axis_faults(QChart& chart, const Run& run, const Group& g, const QString& where) {
  QString faults;
  for (auto* axis : chart.axes())
    if (auto* v = qobject_cast<QValueAxis*>(axis);  // a log axis draws log10 of its values
        v && !v->property("perflab_log").toBool() && v->min() < 0)
      faults += where + ": axis '" + v->titleText() + "' starts below zero\n";
  if (opens_on_log_x(run, g) || g.id.rfind("payload_", 0) == 0 || g.id.rfind("build_", 0) == 0) {
    const auto xs = chart.axes(Qt::Horizontal);
    if (xs.isEmpty() || !xs.front()->property("perflab_log").toBool())
      faults += where + ": a sweep over sizes on a linear x axis\n";
  }
  const auto ys = chart.axes(g.stacked ? Qt::Horizontal : Qt::Vertical);
  const QString title = ys.isEmpty() ? QString() : ys.front()->titleText();
  if (title.isEmpty()) faults += where + ": no axis title\n";
  if (g.stacked && title.contains("better"))
    faults += where + ": a stack of shares titled '" + title + "'\n";
  return faults;
}

// What hides a point: a scatter point's marker not whole inside the plot (cut by its frame), a
// marker's label over a point or outside the plot. Empty when nothing is.
QString point_faults(QChart& chart, const QString& where) {
  QString faults;
  const QRectF plot = chart.plotArea().adjusted(-1, -1, 1, 1);
  QList<QRectF> points;
  for (auto* s : chart.series()) {
    auto* sc = qobject_cast<QScatterSeries*>(s);
    if (!sc || !sc->isVisible()) continue;
    const double r = sc->markerSize() / 2;
    for (int i = 0; i < sc->count(); ++i) {
      const QPointF at = chart.mapToPosition(sc->at(i), sc);
      const QRectF dot(at - QPointF(r, r), QSizeF(2 * r, 2 * r));
      points << dot;
      if (!plot.contains(dot))
        faults += where + QString(": a point of '%1' cut by the plot's frame (at %2, %3)\n")
                              .arg(sc->name())
                              .arg(at.x())
                              .arg(at.y());
    }
  }
  for (auto* m : axis_markers(chart)) {
    if (!m->isVisible() || m->label().isEmpty()) continue;
    const QRectF box = m->labelRect();
    if (!plot.contains(box)) faults += where + ": '" + m->label() + "' outside the plot\n";
    for (const QRectF& dot : points)
      if (box.intersects(dot)) {
        faults += where + ": '" + m->label() + "' over a point\n";
        break;
      }
  }
  return faults;
}

// The non-negative quantities these charts show: the test is only meaningful on them.
bool all_non_negative(const Run& run) {
  for (const auto& s : run.series)
    for (const auto& p : s.points)
      if (p.stats.median < 0 || (p.x && *p.x < 0)) return false;
  return true;
}

}  // namespace

class ChartLabelsTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void fixturesAreDefaultRunsOfEveryExperiment() {
    for (const char* name : kDefaultRuns) {
      const Run run = load_fixture(name);
      QVERIFY2(chart_groups(run).size() >= 5, name);
      QVERIFY2(all_non_negative(run), name);
    }
  }

  void everyChartInTheWindowAt1280x800() {
    QString faults;
    for (const char* name : kRuns) {
      const Run run = load_fixture(name);
      const QString path = dir_.filePath(name);
      save_run(run, path.toStdString());
      gui::MainWindow w(gui::WindowOptions{dir_.filePath(QString("history-") + name),
                                           dir_.filePath(QString("settings-") + name + ".ini")});
      w.resize(1280, 800);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w, test::kWaitMs));
      QVERIFY(w.openRun(path));
      gui::ChartPanel* panel = w.resultsPanel();
      for (const auto& id : chart_groups(run)) {
        panel->setGroup(id);
        QCoreApplication::processEvents();
        QChart* chart = panel->chart();
        QVERIFY(chart);
        QTRY_VERIFY_WITH_TIMEOUT(!chart->plotArea().isEmpty(), test::kWaitMs);
        if (chart->layout()) chart->layout()->activate();
        QCoreApplication::processEvents();
        const QString where = QString(name) + " " + QString::fromStdString(id) + " (window)";
        faults += label_faults(*chart, where);
        faults += axis_faults(*chart, run, *run.group(id), where);
        faults += point_faults(*chart, where);
        // The table under it: the median with its interval whole in view (main cut it at the
        // right edge, after long series names); a name may be elided instead.
        QCoreApplication::processEvents();
        QTableView* table = panel->table();
        const QHeaderView* header = table->horizontalHeader();
        const int column = gui::PointsModel::IntervalColumn;
        if (header->sectionViewportPosition(column) < 0 ||
            header->sectionViewportPosition(column) + header->sectionSize(column) >
                table->viewport()->width())
          faults += where + ": the table's 'Median [CI] (level)' column is cut\n";
        if (opens_on_log_x(run, *run.group(id)) && !panel->logXBox()->isChecked())
          faults += where + ": Log x unticked on a log x chart\n";
      }
    }
    QVERIFY2(faults.isEmpty(), qPrintable(faults));
  }

  void everyChartInAnExportAtItsDefaultSize() {
    QString faults;
    const ExportSpec spec;
    for (const char* name : kRuns) {
      const Run run = load_fixture(name);
      for (const auto& id : chart_groups(run)) {
        auto chart = build_chart(run, id, spec.options);
        QImage img(spec.size, QImage::Format_ARGB32_Premultiplied);
        img.fill(Qt::white);
        QPainter p(&img);
        paint_chart(p, *chart, QRectF(QPointF(0, 0), QSizeF(spec.size)));
        p.end();
        const QString where = QString(name) + " " + QString::fromStdString(id) + " (export)";
        faults += label_faults(*chart, where);
        faults += axis_faults(*chart, run, *run.group(id), where);
      }
    }
    QVERIFY2(faults.isEmpty(), qPrintable(faults));
  }

  void everyChartZoomedInAWindowSizedPlot() {
    // Ctrl + in the window (ChartOptions::font_scale 1.3) on a chart the size the window gives
    // it at 1280x800: Qt Charts cut every log tick to "…" before the axes stopped truncating.
    QString faults;
    ChartOptions o;
    o.font_scale = 1.3;
    for (const char* name : kRuns) {
      const Run run = load_fixture(name);
      for (const auto& id : chart_groups(run)) {
        auto chart = build_chart(run, id, o);
        chart->setTitle(QString());  // the window shows it above the chart, wrapped
        QGraphicsScene scene;
        scene.addItem(chart.get());
        chart->setGeometry(QRectF(0, 0, 560, 300));
        for (int i = 0; i < 2; ++i) chart->layout()->activate();
        const QString where = QString(name) + " " + QString::fromStdString(id) + " (zoomed 1.3)";
        // The tick labels: an axis title is fitted on its own (fit_axis_title), not here.
        QStringList titles;
        for (auto* axis : chart->axes())
          titles << QTextDocumentFragment::fromHtml(axis->titleText()).toPlainText().simplified();
        for (auto* t : shown_text(*chart)) {
          QString w = words_of(t);
          if (!w.endsWith(QChar(0x2026)) && !w.endsWith("...")) continue;
          w.chop(w.endsWith("...") ? 3 : 1);
          const bool title = std::any_of(titles.begin(), titles.end(),
                                         [&](const QString& a) { return a.startsWith(w); });
          if (!title) faults += where + ": tick label '" + words_of(t) + "' cut short\n";
        }
        scene.removeItem(chart.get());
      }
    }
    QVERIFY2(faults.isEmpty(), qPrintable(faults));
  }

  // An axis title of one part longer than its axis goes over lines, broken between words (main
  // cut "% of one append (its phases stacked)" to "% of one append (its phases sta…").
  void aLongAxisTitleBreaksBetweenWords() {
    Run run;
    run.experiment = "iolist";
    Group g{"parts", "Where an append's time goes", "%", "", false, true, "Phases."};
    g.stacked = true;
    g.y_label = "% of one append (its phases stacked)";
    run.ensure_group(g);
    for (const char* phase : {"BEGIN", "INSERT", "COMMIT"})
      for (const char* label : {"interpolate, 1 writer", "iolist, 1 writer"}) {
        Point p;
        p.label = label;
        p.samples = {30, 31, 32};
        p.stats.median = 31;
        p.stats.n = 3;
        run.add_point("parts", phase, p);
      }
    ChartOptions o;
    o.presentation = true;
    QGraphicsScene scene;  // before the chart: a chart leaves the scene as it goes
    auto chart = build_chart(run, "parts", o);
    chart->setTitle(QString());
    scene.addItem(chart.get());
    chart->setGeometry(QRectF(0, 0, 700, 500));
    for (int i = 0; i < 2; ++i) chart->layout()->activate();
    const QString title = chart->axes(Qt::Horizontal).front()->titleText();
    QVERIFY2(title.contains("<br>"), qPrintable(title));
    QCOMPARE(QTextDocumentFragment::fromHtml(title).toPlainText().simplified(),
             QString("% of one append (its phases stacked)"));
    const QString faults = label_faults(*chart, "a long axis title");
    QVERIFY2(faults.isEmpty(), qPrintable(faults));
  }

  void everyChartInAPresentationAtRoomSizes() {
    // A presentation fills the screen: the chart's text in room sizes (ticks >= 20 pt, axis
    // titles >= 24 pt), every label still whole and clear.
    QString faults;
    ChartOptions o;
    o.presentation = true;
    for (QSizeF size : {QSizeF(1280, 700), QSizeF(1920, 1000)})
      for (const char* name : kRuns) {
        const Run run = load_fixture(name);
        for (const auto& id : chart_groups(run)) {
          auto chart = build_chart(run, id, o);
          chart->setTitle(QString());  // the view shows it above the chart, wrapped
          QGraphicsScene scene;
          scene.addItem(chart.get());
          chart->setGeometry(QRectF(QPointF(0, 0), size));
          for (int i = 0; i < 2; ++i) chart->layout()->activate();
          const QString where = QString("%1 %2 (presentation %3x%4)")
                                    .arg(name, QString::fromStdString(id))
                                    .arg(size.width())
                                    .arg(size.height());
          faults += label_faults(*chart, where);
          faults += point_faults(*chart, where);
          for (auto* axis : chart->axes()) {
            if (axis->titleFont().pointSizeF() < 24) faults += where + ": axis title under 24 pt\n";
            // Many stacks on their side may take a smaller size to be shown at all.
            if (!run.group(id)->stacked && axis->labelsFont().pointSizeF() < 20)
              faults += where + ": tick labels under 20 pt\n";
          }
          scene.removeItem(chart.get());
        }
      }
    QVERIFY2(faults.isEmpty(), qPrintable(faults));
  }

  // The demonstrations as a room sees them: each chart in the presentation view at 1280x800 and
  // 1920x1080, as laid out there, every point whole inside the plot, every marker's label over
  // no point, every text whole inside the chart (main cut the ~200 ms points at the top, the
  // "99.99%" tick at the right, and put "paused 13% of the time" over the 99% point).
  void theDemonstrationsInThePresentationView() {
    QString faults;
    for (QSize size : {QSize(1280, 800), QSize(1920, 1080)})
      for (const char* name : kRuns) {
        const Run run = load_fixture(name);
        gui::PresentationView view;
        view.setRun(run, chart_groups(run).front());
        view.resize(size);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view, test::kWaitMs));
        for (const auto& id : chart_groups(run)) {
          view.setGroup(id);
          QCoreApplication::processEvents();
          QChart* chart = view.chartView()->chart();
          QTRY_VERIFY_WITH_TIMEOUT(!chart->plotArea().isEmpty(), test::kWaitMs);
          if (chart->layout()) chart->layout()->activate();
          QCoreApplication::processEvents();
          const QString where = QString("%1 %2 (presentation view %3x%4)")
                                    .arg(name, QString::fromStdString(id))
                                    .arg(size.width())
                                    .arg(size.height());
          faults += label_faults(*chart, where);
          faults += point_faults(*chart, where);
        }
      }
    QVERIFY2(faults.isEmpty(), qPrintable(faults));
  }

  void errorBarsStandOutOnDarkCharts() {
    // On a dark background the I-beams are light: painted, they are pixels of their colour.
    const Run run = load_fixture("default-caching.json");
    const std::string id = headline_group(run);
    ChartOptions dark;
    dark.theme = QChart::ChartThemeDark;
    const QColor bars = error_bar_color(dark.theme);
    auto chart = build_chart(run, id, dark);
    const QColor back = chart->backgroundBrush().color();
    QVERIFY(std::abs(bars.lightness() - back.lightness()) > 150);
    auto painted = [&](bool with_bars) {
      ChartOptions o = dark;
      o.error_bars = with_bars;
      auto c = build_chart(run, id, o);
      QImage img(1000, 600, QImage::Format_ARGB32_Premultiplied);
      QPainter p(&img);
      paint_chart(p, *c, QRectF(0, 0, 1000, 600));
      p.end();
      int n = 0;
      for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
          const QColor c2 = img.pixelColor(x, y);
          if (std::abs(c2.red() - bars.red()) + std::abs(c2.green() - bars.green()) +
                  std::abs(c2.blue() - bars.blue()) <
              40)
            ++n;
        }
      return n;
    };
    QVERIFY(painted(true) > painted(false) + 40);
  }

  void svgTextNamesAGenericSansFamily() {
    // "Sans Serif" alone is no family a browser knows: it falls back to serif.
    const Run run = load_fixture("default-sharding.json");
    ExportSpec spec;
    spec.groups = {headline_group(run)};
    QBuffer out;
    out.open(QIODevice::WriteOnly);
    write_svg(run, spec, out);
    const QString svg = QString::fromUtf8(out.data());
    static const QRegularExpression family(QStringLiteral("font-family=\"([^\"]*)\""));
    int n = 0;
    for (auto it = family.globalMatch(svg); it.hasNext(); ++n) {
      const QString f = it.next().captured(1).trimmed();
      QVERIFY2(f.endsWith("sans-serif"), qPrintable(f));
    }
    QVERIFY(n > 0);
  }

  void aGroupsAxisTitleIsStoredAndShown() {
    Run run = load_fixture("default-sharding.json");
    Group* g = nullptr;
    for (auto& x : run.groups)
      if (x.id == "dist_nodes") g = &x;
    QVERIFY(g);
    g->y_label = "keys on the node";
    const Run back = run_from_json(run_to_json(run));
    QCOMPARE(back.group("dist_nodes")->y_label, std::string("keys on the node"));
    auto chart = build_chart(back, "dist_nodes", {});
    QCOMPARE(chart->axes(Qt::Vertical).front()->titleText(), QString("keys on the node"));
  }
};

QTEST_MAIN(ChartLabelsTest)
#include "test_chart_labels.moc"
