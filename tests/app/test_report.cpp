// The report as a handout, checked on the PDF itself (decoded with poppler's pdftotext and
// pdfimages): one block per finding never split across pages, each chart on a page of its own
// with its heading, the title once with the run's note under it, chart text of at least 9 pt.
#include <QProcess>
#include <QRegularExpression>
#include <QScreen>
#include <QTemporaryDir>
#include <QtTest>

#include "charts/run_chart.h"
#include "common/finding.h"
#include "report/report.h"
#include "report/teaching.h"
#include "sample_runs.h"

using namespace perflab;
using namespace perflab::gui;

namespace {

// The sample IO-list run with as many findings as a default sharding run has (about 40), with
// long contexts whose blocks take several lines: enough to run over several pages.
Run handout_run() {
  Run run = test::sample_run();
  run.title = load_teaching("iolist")->title.toStdString();  // as a run is titled by default
  run.note = "Thursday lecture: the room's laptop, on battery";
  for (int i = 0; i < 40; ++i) {
    const std::string n = std::to_string(i + 1);
    const double v = 100.0 + i;
    ComparisonSpec spec;
    spec.id = "handout." + n;
    spec.context = "Append 100 events with " + n + " writers over a pool of " + n +
                   " connections, each writer in a transaction of its own";
    spec.what = {"iolist", "interpolate", "wall time per append"};
    if (i % 3 == 0) spec.claim = claim_value(0.78, 0.05);
    const std::vector<double> subject{v * 0.8, v * 0.82, v * 0.79, v * 0.81};
    const std::vector<double> baseline{v, v * 1.02, v * 0.99, v * 1.01};
    if (auto f = comparison_finding(spec, run.threshold, subject, baseline))
      run.findings.push_back(*f);
  }
  return run;
}

QString strip(QString s) {
  return s.remove(QRegularExpression("\\s"));
}

// A poppler tool's output (the tools are found at configure time: scripts/deps.sh installs them).
QString run_tool(const QString& tool, const QStringList& args) {
  QProcess p;
  p.start(tool, args);
  if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
    return QString();
  return QString::fromUtf8(p.readAllStandardOutput());
}

// The text of each page, in order.
QStringList page_texts(const QString& pdf) {
  QStringList pages = run_tool(PERFLAB_PDFTOTEXT, {pdf, "-"}).split('\f');
  if (!pages.isEmpty() && pages.last().trimmed().isEmpty()) pages.removeLast();
  return pages;
}

// Each picture of the PDF: its page and its horizontal resolution on the page (pixels per inch).
struct PdfImage {
  int page = 0;
  int width = 0;
  double x_ppi = 0;
};
std::vector<PdfImage> pdf_images(const QString& pdf) {
  std::vector<PdfImage> out;
  // "page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio"
  const QStringList lines = run_tool(PERFLAB_PDFIMAGES, {"-list", pdf}).split('\n');
  for (const QString& line : lines.mid(2)) {
    const QStringList f = line.simplified().split(' ');
    if (f.size() < 14 || f[2] != "image") continue;  // smask: the alpha of the one before
    out.push_back({f[0].toInt(), f[3].toInt(), f[12].toDouble()});
  }
  return out;
}

// What a finding's block says, in its order (teaching.cpp's FindingsLayout::Blocks).
QString block_text(const Finding& f) {
  QString t =
      QString::fromStdString(f.text) + "this run:" + QString::fromStdString(finding_figure(f));
  if (!finding_verdict(f).empty()) t += "—" + QString::fromStdString(finding_verdict(f));
  if (f.claim) t += QString::fromStdString(finding_claim(f));
  return strip(t);
}

}  // namespace

class ReportTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString pdf_;
  Run run_;
  QStringList pages_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    run_ = handout_run();
    QVERIFY(run_.findings.size() >= 40);
    pdf_ = dir_.filePath("report.pdf");
    write_report(run_, pdf_, QString());
    pages_ = page_texts(pdf_);
    QVERIFY2(!pages_.isEmpty(), "pdftotext read no page");
  }

  void everyFindingIsOneBlockOnOnePage() {
    for (const Finding& f : run_.findings) {
      const QString block = block_text(f);
      int whole = 0;
      for (const QString& page : pages_) whole += strip(page).count(block);
      // Found whole on exactly one page: not split, not repeated.
      QVERIFY2(whole == 1, qPrintable(QString::fromStdString(f.text) + ": found whole on " +
                                      QString::number(whole) + " pages"));
    }
  }

  void aboutOnePagePerChartPlusTheFindings() {
    const auto groups = charts::chart_groups(run_);
    const int charts = static_cast<int>(groups.size());
    // Each chart on a page of its own, under its heading (its description between them).
    const auto images = pdf_images(pdf_);
    QCOMPARE(images.size(), groups.size());
    for (int i = 0; i < charts; ++i) {
      if (i > 0) QVERIFY(images[i].page > images[i - 1].page);
      const QString page = pages_[images[i].page - 1];
      const QString title = QString::fromStdString(run_.group(groups[i])->title);
      QVERIFY2(page.contains(title),
               qPrintable(title + " not on page " + QString::number(images[i].page)));
    }
    // Before them: the title, the teaching text (two pages) and the findings, six or more a page.
    const int findings = static_cast<int>(run_.findings.size());
    QVERIFY2(images.front().page - 1 <= 2 + (findings + 5) / 6,
             qPrintable(QString::number(images.front().page - 1) + " pages before the charts"));
    // After them, the parameters and the host: at most one more page.
    QVERIFY2(pages_.size() <= images.back().page + 1,
             qPrintable(QString::number(pages_.size()) + " pages"));
  }

  void titleOnceAndTheNoteUnderIt() {
    const QString all = strip(pages_.join(""));
    const QString title = strip(QString::fromStdString(run_.title));
    QCOMPARE(all.count(title), 1);
    const QString first = strip(pages_.first());
    QVERIFY(first.startsWith(title));
    QVERIFY(first.indexOf(strip(QString::fromStdString(run_.note))) == title.size());
  }

  void chartTextIsAtLeastNinePointsOnThePage() {
    const auto groups = charts::chart_groups(run_);
    const auto images = pdf_images(pdf_);
    QCOMPARE(images.size(), groups.size());
    const double dpi = QGuiApplication::primaryScreen()->logicalDotsPerInch();
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const ReportChartSize size = report_chart_size(run_, groups[i]);
      QVERIFY2(size.smallest_text_pt >= kMinChartTextPt,
               qPrintable(QString::number(size.smallest_text_pt)));
      // The PDF shows the picture at the scale the size was computed for: as wide as the text.
      QCOMPARE(images[i].width, size.pixels.width());
      const double shown_pt = images[i].width * 72.0 / images[i].x_ppi;
      QVERIFY(std::abs(shown_pt - report_page_layout().paintRectPoints().width()) < 2);
      // The chart's axis labels and legend, in points on paper, from the chart's own fonts.
      charts::ChartOptions opts;
      opts.presentation = true;
      const auto chart = charts::build_chart(run_, groups[i], opts);
      std::vector<QFont> fonts{chart->legend()->font()};
      for (const auto* axis : chart->axes()) fonts.push_back(axis->labelsFont());
      for (const QFont& f : fonts) {
        const double on_paper = f.pointSizeF() * dpi / images[i].x_ppi;
        QVERIFY2(on_paper >= kMinChartTextPt - 0.05, qPrintable(QString::number(on_paper)));
      }
    }
  }

  void htmlPageKeepsBlocksWholeWhenPrinted() {
    const QString page = QString::fromUtf8(report_html_page(run_));
    QCOMPARE(page.count("<h1>"), 1);
    QVERIFY(page.contains("page-break-inside:avoid"));
    QVERIFY(page.contains(QString::fromStdString(run_.note)));
    QCOMPARE(page.count("data:image/png;base64,"),
             static_cast<int>(charts::chart_groups(run_).size()));
  }
};

QTEST_MAIN(ReportTest)
#include "test_report.moc"
