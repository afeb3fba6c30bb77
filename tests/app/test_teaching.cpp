// The teaching panel's words, without a window: the article's figures beside a run's, judged
// against the run's interval; the published tables from the experiment; the prose read from its
// JSON whatever shape it has; the IO-list panel's order of findings.
#include <QFile>
#include <QTextDocument>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "common/figure_format.h"
#include "common/finding.h"
#include "registry/registry.h"
#include "report/teaching.h"
#include "sample_runs.h"

using namespace perflab;
using namespace perflab::gui;

class TeachingTest : public QObject {
  Q_OBJECT

 private slots:
  void teachingShowsSmallRatiosWithSignificantDigits() {
    Run run = test::sample_run();
    Finding collapse =
        figure_finding({.id = "collapse", .what = "per-reply / coalesced at -P 2"}, 0.00782);
    collapse.claim = claim_below(0.00754, 1.0 / 30);
    generate_text(collapse);
    run.findings.push_back(collapse);
    const QString html = gui::teaching_html(std::nullopt, {}, "t", "p", &run);
    QVERIFY2(html.contains("0.00782") && html.contains("0.00754"), qPrintable(html));
  }

  void teachingJudgesTheArticleAgainstTheInterval() {
    Run run = test::sample_run();
    run.findings.clear();
    // Twelve interleaved rounds, no real difference: the article's 0.78 is not reproduced.
    std::vector<double> a, b;
    for (int i = 0; i < 12; ++i) {
      b.push_back(100 * (1 + 0.03 * (i % 4)));
      a.push_back(b.back() * (1 + 0.01 * ((i * 5) % 3 - 1)));
    }
    auto f = comparison_finding(
        {.id = "append_1.iolist_vs_interpolate",
         .context = "Append, 1 writer",
         .what = {.subject = "iolist", .baseline = "interpolate", .metric = "time per append"},
         .interleaved = true,
         .claim = claim_value(0.78, 0.08)},
        0.02, a, b);
    QVERIFY(f && f->verdict());
    run.findings.push_back(*f);
    QString html = gui::teaching_html(std::nullopt, {}, "t", "p", &run);
    QTextDocument doc;
    doc.setHtml(html);
    const QString text = doc.toPlainText();
    QVERIFY2(text.contains(QString::fromStdString(format_estimate(*f->ci))), qPrintable(text));
    // The verdict as the finding's model words it, naming its sides or its band.
    QVERIFY2(text.contains(QString::fromStdString(finding_verdict(*f))), qPrintable(text));
    QVERIFY2(text.contains("not reproduced"), qPrintable(text));
    QVERIFY(html.contains("#b00020"));  // not reproduced, in red
    // Inside the interval: reproduced, in green; a busy machine is said.
    run.findings[0].claim = claim_value(f->ci->value, 0.1);
    MachineNoise busy;
    busy.stolen = true;
    busy.steal_share = 0.12;
    run.machine = busy;
    html = gui::teaching_html(std::nullopt, {}, "t", "p", &run);
    doc.setHtml(html);
    QVERIFY2(doc.toPlainText().contains("): reproduced") &&
                 !doc.toPlainText().contains("): not reproduced"),
             qPrintable(doc.toPlainText()));
    QVERIFY(html.contains("#008000"));
    QVERIFY(doc.toPlainText().contains("The machine was busy (CPU steal 12% during the run)"));
  }

  void teachingTablesComeFromTheExperiment() {
    // The published tables are the experiment's (core); the JSON holds the prose only.
    TeachingPanel panel;
    panel.setExperiment("sharding", "Sharding", "p");
    QVERIFY(panel.data());
    QVERIFY(!panel.data()->demonstrates.isEmpty());
    QCOMPARE(panel.article().tables.size(), make_experiment("sharding")->article().tables.size());
    const QString text = panel.toPlainText();
    QVERIFY2(text.contains("195.46") && text.contains("25906.74"), qPrintable(text));
    QVERIFY(text.contains("seed 002"));                 // the source, from the experiment
    QVERIFY(text.contains("≈ 0.0098 for SET"));         // a note derived from the table
    QVERIFY(text.contains("How Perflab measures it"));  // the prose, from the JSON
    QFile json(":/teaching/sharding.json");
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QByteArray prose = json.readAll();
    const auto o = nlohmann::json::parse(prose.begin(), prose.end());
    QVERIFY(!o.contains("tables") && !o.contains("figures") && !o.contains("source"));
  }

  void teachingTextOfAnotherShapeReadsAsWhatItHolds() {
    QVERIFY(!gui::parse_teaching("{ not json"));
    QVERIFY(!gui::parse_teaching("[1, 2]"));
    QVERIFY(!gui::parse_teaching(R"({"title": "no experiment"})"));
    const auto d = gui::parse_teaching(
        R"({"experiment": "x", "title": 5, "notes": ["a", 5], "leads": "b", "how_measured": ["\u00e9"]})");
    QVERIFY(d);
    QCOMPARE(d->experiment, QString("x"));
    QVERIFY(d->title.isEmpty());  // a member of another type reads as empty
    QCOMPARE(d->notes, QStringList({"a", ""}));
    QVERIFY(d->leads.isEmpty());
    QCOMPARE(d->how_measured, QStringList({QString::fromUtf8("\xC3\xA9")}));
  }

  void iolistTeachingLeadsWithWhereAnAppendsTimeGoes() {
    // The iolist panel's table starts with the breakdown's findings (the prose's "leads"), then
    // those with the article's figure, whatever order the run holds them in.
    const auto data = gui::load_teaching("iolist");
    QVERIFY(data && !data->leads.isEmpty());
    Run run = test::sample_run();
    run.findings.clear();
    const auto row = [](const char* id, const char* text, double v, bool article) {
      Finding f = figure_finding({.id = id, .what = text}, v);
      if (article) f.claim = claim_value(0.78, 0.08);
      generate_text(f);
      return f;
    };
    run.findings.push_back(row("append_1.iolist_vs_interpolate", "ARTICLE ROW", 1.0, true));
    run.findings.push_back(row("relay.overhead", "OTHER ROW", 1.01, false));
    run.findings.push_back(row("append_1.build_share.iolist", "BUILD SHARE ROW", 0.01, false));
    run.findings.push_back(
        row("append_1.pipeline_vs_round_trips.iolist", "PIPELINE ROW", 0.6, false));
    QTextDocument doc;
    doc.setHtml(gui::teaching_html(data, {}, "t", "p", &run));
    const QString text = doc.toPlainText();
    const auto at = [&](const char* row) { return text.indexOf(row); };
    QVERIFY2(at("BUILD SHARE ROW") >= 0 && at("BUILD SHARE ROW") < at("PIPELINE ROW"),
             qPrintable(text));
    QVERIFY(at("PIPELINE ROW") < at("ARTICLE ROW"));
    QVERIFY(at("ARTICLE ROW") < at("OTHER ROW"));
  }
};

QTEST_MAIN(TeachingTest)
#include "test_teaching.moc"
