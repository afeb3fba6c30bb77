#pragma once
// Opens run files for the main window without blocking it (as hotspot's PerfParser parses): a
// file is read and checked on a worker thread (a 100,000-point run is ~90 MB of JSON) and the
// run is put on show in turns of the event loop, so the window never stops answering for long.
#include <functional>
#include <memory>
#include <vector>

#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include "common/run.h"

namespace perflab::gui {

// A run file read to show: the run, or why it could not be read.
struct OpenedRun {
  std::shared_ptr<Run> run;  // null when it could not be read
  QString error;
};

// Starts reading `path` on a worker thread as the window reads a run to show
// (RunHistory::loadToShow). A run named on the command line is read so while the window is
// built, then handed to RunOpener::open.
QFuture<OpenedRun> read_run_to_show(const QString& path);

class RunOpener : public QObject {
  Q_OBJECT
 public:
  explicit RunOpener(QObject* parent = nullptr);
  ~RunOpener() override;  // waits for the reader

  // Reads `path` on a worker thread; fileRead tells the outcome. A file being read cannot be
  // interrupted: then `path` waits for it (the last one asked for wins), false is returned, and
  // superseded hands `path` back once the file read meanwhile is dropped. `reading`: the read of
  // `path` already under way (read_run_to_show), else it starts now.
  bool open(const QString& path, QFuture<OpenedRun> reading = {});
  bool opening() const { return !path_.isEmpty(); }
  void waitForFinished();

  // Puts a run on show in turns: `first` one turn of the event loop from now, each of `then` a
  // turn after the one before. A 1 ms timer, not a 0 ms one (in Qt 6 that is a posted call, sent
  // in the same batch as the paint the turn before queued, so input and the window's timers
  // would wait for both). `first` runs whatever happens meanwhile (what must not be left half
  // done, like a frozen view); the others only while no later showInTurns or cancelTurns came.
  void showInTurns(std::function<void()> first, std::vector<std::function<void()>> then);
  void cancelTurns() { ++generation_; }

 signals:
  // The file asked for was read: a run (`run`), or not (`run` null and `error` why).
  void fileRead(const QString& path, std::shared_ptr<perflab::Run> run, const QString& error);
  // A newer request came while a file was read: that file is dropped and `path` is to be opened.
  void superseded(const QString& path);

 private:
  void onRead();
  void nextTurn(quint64 generation, std::shared_ptr<std::vector<std::function<void()>>> turns,
                std::size_t i);

  QString path_, next_path_;  // the file being read, the one asked for after it
  QFutureWatcher<OpenedRun>* watch_;
  quint64 generation_ = 0;  // turns run only while it is unchanged
};

}  // namespace perflab::gui
