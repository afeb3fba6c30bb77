// Long lines drawn for the screen with what their plot's pixel columns show
// (charts/line_decimation.h): the painted picture is the whole line's, a spike included.
#include <algorithm>
#include <cmath>
#include <memory>

#include <QChart>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QImage>
#include <QLineSeries>
#include <QPainter>
#include <QtTest>

#include "charts/line_decimation.h"
#include "charts/run_chart.h"

using namespace perflab;
using namespace perflab::charts;

namespace {

const QSize kChartSize(800, 500);

// A numeric group "long" of one series of `n` points whose medians `y(i)` gives.
template <class Y>
Run long_run(int n, Y y) {
  Run run;
  run.experiment = "iolist";
  run.ensure_group({"long", "A long sweep", "us/op", "events", true, false, ""});
  Series s;
  s.group = "long";
  s.name = "noisy";
  for (int i = 0; i < n; ++i) {
    Point p;
    p.x = i + 1;
    p.label = std::to_string(i + 1);
    p.stats.median = y(i);
    s.points.push_back(p);
  }
  run.series.push_back(s);
  return run;
}

// The chart of `run` laid out and painted at kChartSize, as a window's view paints it.
struct Painted {
  std::unique_ptr<QChart> chart;
  QImage image;
};
Painted paint(const Run& run, bool for_screen) {
  ChartOptions o;
  o.for_screen = for_screen;
  o.log_x = false;
  o.log_y = false;
  Painted out{build_chart(run, "long", o), QImage(kChartSize, QImage::Format_ARGB32_Premultiplied)};
  QGraphicsScene scene;
  scene.addItem(out.chart.get());
  const QRectF area(QPointF(0, 0), kChartSize);
  out.chart->setGeometry(area);
  out.chart->layout()->activate();
  scene.setSceneRect(area);
  out.image.fill(Qt::white);
  QPainter painter(&out.image);
  painter.setRenderHint(QPainter::Antialiasing);
  scene.render(&painter, area, area);
  painter.end();
  scene.removeItem(out.chart.get());
  return out;
}

QLineSeries* line_of(QChart& chart) {
  return qobject_cast<QLineSeries*>(chart.series().front());
}

// Pixels of `a` and `b` whose colours differ by more than `tolerance` in a channel.
int pixels_differing(const QImage& a, const QImage& b, int tolerance) {
  int n = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) {
      const QColor p = a.pixelColor(x, y), q = b.pixelColor(x, y);
      if (std::abs(p.red() - q.red()) > tolerance || std::abs(p.green() - q.green()) > tolerance ||
          std::abs(p.blue() - q.blue()) > tolerance)
        ++n;
    }
  return n;
}

// Whether a pixel is inked: some channel below half (the line's colour, text, axes; not the
// white plot, its light grid or the lightest shades of a line's smoothed edge).
bool ink(const QImage& img, int x, int y) {
  const QColor c = img.pixelColor(x, y);
  return std::min({c.red(), c.green(), c.blue()}) < 128;
}

// Inked pixels of `a` with no inked pixel of `b` at or beside them (one pixel in any direction):
// a line drawn elsewhere, a part missing. Smoothed edges shaded otherwise are not counted.
int ink_missing(const QImage& a, const QImage& b) {
  int n = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) {
      if (!ink(a, x, y)) continue;
      bool near = false;
      for (int dy = -1; dy <= 1 && !near; ++dy)
        for (int dx = -1; dx <= 1 && !near; ++dx) {
          const int bx = x + dx, by = y + dy;
          near = bx >= 0 && by >= 0 && bx < b.width() && by < b.height() && ink(b, bx, by);
        }
      if (!near) ++n;
    }
  return n;
}

// The same picture: every inked pixel of either image inked in the other (or beside it), and
// what differs only the shading of smoothed edges, on few pixels. (Exactly the same pixels
// cannot be asked: 2-pixel smoothed strokes through other points shade a line's edge a little
// differently.)
void same_picture(const QImage& whole, const QImage& drawn) {
  const int shaded = pixels_differing(whole, drawn, 64);
  qInfo("pixels differing: %d at all, %d by more than 64 of 255; inked in one only: %d, %d",
        pixels_differing(whole, drawn, 0), shaded, ink_missing(whole, drawn),
        ink_missing(drawn, whole));
  QCOMPARE(ink_missing(whole, drawn), 0);
  QCOMPARE(ink_missing(drawn, whole), 0);
  QVERIFY2(shaded < whole.width() * whole.height() / 1000, qPrintable(QString::number(shaded)));
}

}  // namespace

class LineDecimationTest : public QObject {
  Q_OBJECT
 private slots:
  void keepsEachColumnsFirstLowestHighestAndLast() {
    // Columns 1 wide from 0: [0, 1) holds four points, [2, 3) one, [5, 6) three.
    const QList<QPointF> pts = {{0.1, 5}, {0.3, 9}, {0.5, 1}, {0.9, 4},
                                {2.5, 7}, {5.0, 3}, {5.2, 3}, {5.9, 2}};
    QCOMPARE(column_extremes(pts, 0, 1), (std::vector<qsizetype>{0, 1, 2, 3, 4, 5, 7}));
    QCOMPARE(column_extremes({}, 0, 1), std::vector<qsizetype>{});
  }

  void aLongLineIsPaintedAsTheWholeLine() {
    // 40,000 points swinging up and down within every pixel column: the window's chart draws a
    // few per column, and paints what the whole line paints.
    const Run run = long_run(40000, [](int i) { return 100 + 40 * std::sin(i * 0.7) + i * 0.01; });
    const Painted whole = paint(run, false);
    const Painted screen = paint(run, true);
    QCOMPARE(line_of(*whole.chart)->count(), 40000);
    const int drawn = static_cast<int>(line_of(*screen.chart)->count());
    QVERIFY2(drawn < 4 * 2 * kChartSize.width(), qPrintable(QString::number(drawn)));
    QCOMPARE(line_of(*screen.chart)->property("perflab_labels").toStringList().size(), drawn);
    // Drawn when its chart was laid out, over the whole line's extent: its first and last
    // points, its lowest and highest.
    const QList<QPointF> all = line_of(*whole.chart)->points(),
                         few = line_of(*screen.chart)->points();
    QCOMPARE(few.front(), all.front());
    QCOMPARE(few.back(), all.back());
    const auto by_y = [](QPointF a, QPointF b) { return a.y() < b.y(); };
    QCOMPARE(*std::min_element(few.begin(), few.end(), by_y),
             *std::min_element(all.begin(), all.end(), by_y));
    QCOMPARE(*std::max_element(few.begin(), few.end(), by_y),
             *std::max_element(all.begin(), all.end(), by_y));
    same_picture(whole.image, screen.image);
  }

  void aLineForTheScreenIsDrawnForItsLaidOutPlot() {
    // Built for the screen, a long line is drawn once its chart is laid out, for the plot it
    // is laid out to: the columns of a plot half as wide hold fewer points.
    const Run run = long_run(40000, [](int i) { return 100 + 40 * std::sin(i * 0.7); });
    ChartOptions o;
    o.for_screen = true;
    o.log_x = false;
    o.log_y = false;
    auto chart = build_chart(run, "long", o);
    QGraphicsScene scene;
    scene.addItem(chart.get());
    qsizetype wide = 0;
    for (const int width : {800, 400}) {
      chart->setGeometry(QRectF(0, 0, width, 500));
      chart->layout()->activate();
      QLineSeries* line = line_of(*chart);
      const qsizetype drawn = line->count();
      QVERIFY2(drawn > 0 && drawn <= 4 * 2 * static_cast<qsizetype>(chart->plotArea().width() + 1),
               qPrintable(QString::number(drawn)));
      QCOMPARE(line->points().front(), QPointF(1, 100));
      QCOMPARE(line->property("perflab_labels").toStringList().size(), drawn);
      if (wide > 0) QVERIFY(drawn < wide);
      wide = drawn;
    }
    scene.removeItem(chart.get());
  }

  void aSpikeIsStillDrawn() {
    // One point of 40,000 far above the rest: its column's highest, drawn to the top.
    const int spike = 23456;
    const Run run = long_run(40000, [&](int i) { return i == spike ? 1000.0 : 10.0 + (i % 3); });
    const Painted screen = paint(run, true);
    QVERIFY(line_of(*screen.chart)->count() < 40000);
    QLineSeries* line = line_of(*screen.chart);
    const QPointF top = screen.chart->mapToPosition(QPointF(spike + 1, 1000), line);
    const QPointF half = screen.chart->mapToPosition(QPointF(spike + 1, 505), line);
    const QColor colour = line->pen().color();
    auto line_near = [&](QPointF at) {
      for (int dx = -2; dx <= 2; ++dx) {
        const QColor c = screen.image.pixelColor(int(at.x()) + dx, int(at.y()));
        if (std::abs(c.red() - colour.red()) < 40 && std::abs(c.green() - colour.green()) < 40 &&
            std::abs(c.blue() - colour.blue()) < 40)
          return true;
      }
      return false;
    };
    QVERIFY2(line_near(top), "the spike's top is painted");
    QVERIFY2(line_near(half), "the line up to the spike is painted");
    const Painted whole = paint(run, false);
    same_picture(whole.image, screen.image);
  }
};

QTEST_MAIN(LineDecimationTest)
#include "test_line_decimation.moc"
