// perflab-cli's option layer as a user meets it (a subprocess in a folder of its own): an option
// that takes a value never takes the next option as that value, in every subcommand; it is a
// usage error (exit 2, one line naming the command and the option) that writes nothing.
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "common/run_io.h"
#include "sample_runs.h"

using namespace perflab;

namespace {

struct Result {
  int exit_code = -1;
  QString out, err;
};

Result cli(const QString& dir, const QStringList& args) {
  QProcess p;
  p.setWorkingDirectory(dir);
  p.start(PERFLAB_CLI, args);
  Result r;
  if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit) return r;
  r.exit_code = p.exitCode();
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

}  // namespace

class CliOptionsTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString run_;

  // The folder's files but the run's.
  QStringList written() const {
    QStringList files = QDir(dir_.path()).entryList(QDir::Files | QDir::Hidden);
    files.removeAll("run.json");
    return files;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    run_ = dir_.filePath("run.json");
    save_run(test::sample_run(), run_.toStdString());
  }

  void anOptionIsNeverAnotherOptionsValue_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("option");  // the option left without its value
    QTest::addColumn<QString>("word");    // the option it did not take as its value
    const QString run = "run.json";
    QTest::newRow("report --pdf --html") << QStringList{"report", run, "--pdf", "--html"} << "--pdf"
                                         << "--html";
    QTest::newRow("report --html --pdf F")
        << QStringList{"report", run, "--html", "--pdf", "r.pdf"} << "--html"
        << "--pdf";
    QTest::newRow("report --pdf=--html") << QStringList{"report", run, "--pdf=--html"} << "--pdf"
                                         << "--html";
    QTest::newRow("chart --png --svg F")
        << QStringList{"chart", run, "--png", "--svg", "c.svg"} << "--png"
        << "--svg";
    QTest::newRow("chart --group --log")
        << QStringList{"chart", run, "--group", "--log", "--png", "c.png"} << "--group"
        << "--log";
    QTest::newRow("export --csv --json F")
        << QStringList{"export", run, "--csv", "--json", "e.json"} << "--csv"
        << "--json";
    QTest::newRow("compare -d --help")
        << QStringList{"compare", run, run, "-d", "--help"} << "--diff"
        << "--help";
    QTest::newRow("run --out -q") << QStringList{"run", "iolist", "--out", "-q"} << "--out"
                                  << "-q";
    QTest::newRow("run -p --pg") << QStringList{"run", "iolist", "-p", "--pg", "x"} << "--param"
                                 << "--pg";
    QTest::newRow("bench -h -p") << QStringList{"bench", "-h", "-p", "1"} << "-h"
                                 << "-p";
  }

  void anOptionIsNeverAnotherOptionsValue() {
    QFETCH(QStringList, args);
    QFETCH(QString, option);
    QFETCH(QString, word);
    const Result r = cli(dir_.path(), args);
    QCOMPARE(r.exit_code, 2);
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.startsWith("perflab-cli " + args.first() + ": " + option + ": "),
             qPrintable(r.err));
    // The reason names the word: this rule's, or an option's own check when it has one and
    // speaks first ("--diff: --help not in {ratio,percent}").
    QVERIFY2(r.err.contains(word), qPrintable(r.err));
    QCOMPARE(r.out, QString());
    QCOMPARE(written(), QStringList());  // no file named "--html", nor any other
  }

  void valuesThatLookLikeNumbersOrStdinStayValues() {
    // "-1" is a value (the validator of -P then refuses it as a count, not as an option).
    Result r = cli(dir_.path(), {"bench", "-P", "-1"});
    QCOMPARE(r.exit_code, 2);
    QVERIFY2(!r.err.contains("is an option"), qPrintable(r.err));
    // With values, the same command line writes both files.
    r = cli(dir_.path(), {"report", "run.json", "--pdf", "r.pdf", "--html=r.html"});
    QCOMPARE(r.exit_code, 0);
    QCOMPARE(written(), (QStringList{"r.html", "r.pdf"}));
  }
};

QTEST_MAIN(CliOptionsTest)
#include "test_cli_options.moc"
