// `perflab-cli chart`: files written and decodable; bad input → one-line message, non-zero
// exit, nothing written.
#include <iostream>
#include <sstream>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QtTest>

#include "cli/chart_command.h"
#include "common/run_io.h"
#include "sample_runs.h"

#include "file_bytes.h"

using namespace perflab;

namespace {

struct Captured {
  int code = 0;
  std::string out, err;
};

Captured run_cmd(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  Captured c;
  c.code = run_chart_command(args);
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  c.out = out.str();
  c.err = err.str();
  return c;
}

std::string s(const QString& q) {
  return q.toStdString();
}

using test::read_all;

bool one_line(const std::string& msg) {
  return !msg.empty() && msg.back() == '\n' && msg.find('\n') == msg.size() - 1;
}

}  // namespace

class ChartCommandTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString run_path_;

  QString path(const char* name) { return dir_.filePath(name); }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    run_path_ = dir_.filePath("run.json");
    save_run(test::sample_run(), run_path_.toStdString());
  }

  void writesPngSvgPdf() {
    auto c =
        run_cmd({s(run_path_), "--log", "--width", "700", "--height", "450", "--png",
                 s(path("all.png")), "--svg", s(path("all.svg")), "--pdf", s(path("all.pdf"))});
    QCOMPARE(c.code, 0);
    QVERIFY(c.err.empty());
    QImage img(path("all.png"));
    QCOMPARE(img.size(), QSize(1400, 450));  // two groups side by side
    QSvgRenderer svg(path("all.svg"));
    QVERIFY(svg.isValid());
    QVERIFY(read_all(path("all.svg")).contains("events=100"));
    QVERIFY(read_all(path("all.pdf")).startsWith("%PDF-"));
  }

  void oneGroup() {
    auto c = run_cmd({s(run_path_), "--group", "build", "--png", s(path("build.png"))});
    QCOMPARE(c.code, 0);
    QCOMPARE(QImage(path("build.png")).size(), QSize(1000, 600));
  }

  void unreadableRunFileWritesNothing() {
    auto c = run_cmd({s(path("missing.json")), "--png", s(path("x.png"))});
    QCOMPARE(c.code, 1);
    QVERIFY(one_line(c.err));
    QVERIFY(c.err.find("missing.json") != std::string::npos);
    QVERIFY(!QFile::exists(path("x.png")));

    QFile bad(path("bad.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"schema\": \"perflab-run\", \"version\": 1, \"groups\": [");
    bad.close();
    // An existing output stays as it was.
    QFile keep(path("keep.png"));
    QVERIFY(keep.open(QIODevice::WriteOnly));
    keep.write("old");
    keep.close();
    c = run_cmd({s(path("bad.json")), "--png", s(path("keep.png")), "--svg", s(path("y.svg"))});
    QCOMPARE(c.code, 1);
    QVERIFY(one_line(c.err));
    QCOMPARE(read_all(path("keep.png")), QByteArray("old"));
    QVERIFY(!QFile::exists(path("y.svg")));
  }

  void unknownGroupWritesNothing() {
    auto c = run_cmd(
        {s(run_path_), "--group", "nope", "--png", s(path("g.png")), "--pdf", s(path("g.pdf"))});
    QCOMPARE(c.code, 1);
    QVERIFY(one_line(c.err));
    QVERIFY(c.err.find("nope") != std::string::npos);
    QVERIFY(!QFile::exists(path("g.png")));
    QVERIFY(!QFile::exists(path("g.pdf")));
  }

  void unwritableOutputWritesNothing() {
    auto c =
        run_cmd({s(run_path_), "--png", s(path("ok.png")), "--svg", s(path("no/such/dir/x.svg"))});
    QCOMPARE(c.code, 1);
    QVERIFY(one_line(c.err));
    QVERIFY(!QFile::exists(path("ok.png")));
  }

  void usageErrors() {
    const std::vector<std::vector<std::string>> bad = {
        {},
        {s(run_path_)},  // nothing to write
        {s(run_path_), "--png"},
        {s(run_path_), "--frobnicate", "--png", s(path("u.png"))},
        {s(run_path_), "--width", "12x", "--png", s(path("u.png"))},
        {s(run_path_), "--width", "50", "--png", s(path("u.png"))},
        {s(run_path_), "--theme", "neon", "--png", s(path("u.png"))},
        {s(run_path_), s(run_path_), "--png", s(path("u.png"))},
    };
    for (const auto& args : bad) {
      auto c = run_cmd(args);
      QCOMPARE(c.code, 2);
      QVERIFY2(one_line(c.err), c.err.c_str());
    }
    QVERIFY(!QFile::exists(path("u.png")));
    auto h = run_cmd({"--help"});
    QCOMPARE(h.code, 0);
    QVERIFY(h.out.find("--png") != std::string::npos);
  }
};

QTEST_MAIN(ChartCommandTest)
#include "test_chart_command.moc"
