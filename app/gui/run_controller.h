#pragma once
// Runs one experiment in a worker thread through perflab::execute, with a std::stop_source for
// Stop. Progress and snapshots are marshalled to the GUI thread (queued, coalesced: the window
// gets the latest, never a backlog), so the window stays responsive during a run.
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

#include <QObject>
#include <QString>

#include "gui_types.h"
#include "runner/experiment.h"
#include "targets/targets.h"

namespace perflab::gui {

class RunController : public QObject {
  Q_OBJECT
 public:
  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;  // stops a run and waits for its thread

  // Checks the targets the run needs (preflight: a wrong target is refused within the connect
  // timeout, before anything is measured), then runs exp with the given parameters (already
  // validated by the caller; execute validates again and fails the run otherwise). A refusal
  // ends in refused(), not finished(): no run exists. Returns false when a run is going.
  bool start(std::unique_ptr<Experiment> exp, std::shared_ptr<Targets> targets,
             std::map<std::string, std::string> params);
  // Asks the run to stop; finished() follows with the run marked cancelled.
  void stop();
  bool running() const { return running_; }
  bool stopping() const { return running_ && stop_.stop_requested(); }

 signals:
  void progressed(double fraction, const QString& step);
  void updated(const perflab::Run& snapshot);
  void finished(const perflab::Run& run);
  // The targets' check failed (or was stopped): nothing ran.
  void refused(perflab::TargetField field, const QString& message, bool stopped);

 private:
  void post_progress();
  void post_update();

  std::thread worker_;
  std::stop_source stop_;
  bool running_ = false;
  std::mutex mu_;
  double fraction_ = 0;
  std::string step_;
  Run latest_;
  std::atomic<bool> progress_posted_{false}, update_posted_{false};
};

}  // namespace perflab::gui
