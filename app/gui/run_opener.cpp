// Run files opened on a worker thread and put on show in turns (run_opener.h).
#include "run_opener.h"

#include <utility>

#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include "models/run_history.h"

namespace perflab::gui {

QFuture<OpenedRun> read_run_to_show(const QString& path) {
  return QtConcurrent::run([path]() -> OpenedRun {
    try {
      return {std::make_shared<Run>(RunHistory::loadToShow(path)), {}};
    } catch (const std::exception& e) {
      return {nullptr, QString::fromStdString(e.what())};
    }
  });
}

RunOpener::RunOpener(QObject* parent)
    : QObject(parent), watch_(new QFutureWatcher<OpenedRun>(this)) {
  connect(watch_, &QFutureWatcherBase::finished, this, &RunOpener::onRead);
}

RunOpener::~RunOpener() {
  waitForFinished();
}

void RunOpener::waitForFinished() {
  watch_->waitForFinished();
}

bool RunOpener::open(const QString& path, QFuture<OpenedRun> reading) {
  if (opening()) {
    next_path_ = path;
    return false;
  }
  path_ = path;
  watch_->setFuture(reading.isValid() ? reading : read_run_to_show(path));
  return true;
}

void RunOpener::onRead() {
  const QString path = std::exchange(path_, QString());
  if (!next_path_.isEmpty()) {  // a newer request: this file is no longer wanted
    emit superseded(std::exchange(next_path_, QString()));
    return;
  }
  const OpenedRun opened = watch_->result();
  emit fileRead(path, opened.run, opened.error);
}

void RunOpener::showInTurns(std::function<void()> first, std::vector<std::function<void()>> then) {
  const quint64 generation = ++generation_;
  auto turns = std::make_shared<std::vector<std::function<void()>>>(std::move(then));
  QTimer::singleShot(1, this, [this, generation, first = std::move(first), turns] {
    first();
    nextTurn(generation, turns, 0);
  });
}

void RunOpener::nextTurn(quint64 generation,
                         std::shared_ptr<std::vector<std::function<void()>>> turns, std::size_t i) {
  if (generation != generation_ || i == turns->size()) return;
  QTimer::singleShot(1, this, [this, generation, turns, i] {
    if (generation != generation_) return;
    (*turns)[i]();
    nextTurn(generation, turns, i + 1);
  });
}

}  // namespace perflab::gui
