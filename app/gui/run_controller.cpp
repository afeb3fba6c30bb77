#include "run_controller.h"

#include <QMetaObject>

namespace perflab::gui {

RunController::RunController(QObject* parent) : QObject(parent) {
  qRegisterMetaType<perflab::Run>();
}

RunController::~RunController() {
  stop_.request_stop();
  if (worker_.joinable()) worker_.join();
}

bool RunController::start(std::unique_ptr<Experiment> exp, std::shared_ptr<Targets> targets,
                          std::map<std::string, std::string> params) {
  if (running_) return false;
  if (worker_.joinable()) worker_.join();
  stop_ = std::stop_source();
  running_ = true;
  {
    std::lock_guard lock(mu_);
    fraction_ = 0;
    step_ = "starting";
    latest_ = Run{};
  }
  std::stop_token token = stop_.get_token();
  worker_ = std::thread([this, exp = std::move(exp), targets = std::move(targets),
                         params = std::move(params), token]() mutable {
    RunHooks hooks;
    hooks.progress = [this](double f, std::string_view step) {
      {
        std::lock_guard lock(mu_);
        fraction_ = f;
        step_ = std::string(step);
      }
      post_progress();
    };
    hooks.on_update = [this](const Run& r) {
      {
        std::lock_guard lock(mu_);
        latest_ = r;
      }
      post_update();
    };
    Run run;
    try {
      try {
        preflight(*exp, *targets, params, token);
      } catch (const TargetError& e) {
        QMetaObject::invokeMethod(
            this,
            [this, field = e.field(), msg = QString::fromStdString(e.what()),
             stopped = token.stop_requested()] {
              if (worker_.joinable()) worker_.join();
              running_ = false;
              emit refused(field, msg, stopped);
            },
            Qt::QueuedConnection);
        return;
      }
      run = execute(*exp, *targets, params, hooks, token);
    } catch (const std::exception& e) {  // e.g. ParamError before anything started
      run.experiment = exp->id();
      run.title = exp->title();
      run.params = params;
      run.host = current_host();
      run.started_unix_ms = run.ended_unix_ms = unix_ms_now();
      run.status = RunStatus::Failed;
      run.message = e.what();
    }
    // Results go to the GUI thread; the context object drops them if the window is gone.
    QMetaObject::invokeMethod(
        this,
        [this, run = std::move(run)] {
          if (worker_.joinable()) worker_.join();
          running_ = false;
          emit finished(run);
        },
        Qt::QueuedConnection);
  });
  return true;
}

void RunController::stop() {
  if (running_) stop_.request_stop();
}

void RunController::post_progress() {
  if (progress_posted_.exchange(true)) return;  // one pending delivery carries the latest
  QMetaObject::invokeMethod(
      this,
      [this] {
        progress_posted_ = false;
        double f;
        std::string step;
        {
          std::lock_guard lock(mu_);
          f = fraction_;
          step = step_;
        }
        emit progressed(f, QString::fromStdString(step));
      },
      Qt::QueuedConnection);
}

void RunController::post_update() {
  if (update_posted_.exchange(true)) return;
  QMetaObject::invokeMethod(
      this,
      [this] {
        update_posted_ = false;
        Run snapshot;
        {
          std::lock_guard lock(mu_);
          snapshot = latest_;
        }
        emit updated(snapshot);
      },
      Qt::QueuedConnection);
}

}  // namespace perflab::gui
