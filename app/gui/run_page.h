#pragma once
// The main window's Run tab: the experiments and the purpose of the one chosen, its parameter
// form, Run and Stop, the progress bar and the status line (step, elapsed time, time left), the
// banner (why a run failed, stopped or is noisy) and the results (chart + table). It shows what
// the window tells it; runs, history and settings stay with the window.
#include <optional>
#include <string>
#include <vector>

#include <QElapsedTimer>
#include <QSplitter>

#include "common/params.h"
#include "common/run.h"
#include "runner/plan.h"
#include "runner/time_left.h"

class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;

namespace perflab::gui {

class ChartPanel;
class ParamForm;

// An experiment as the window offers it (from the registry).
struct ExperimentInfo {
  std::string id, title, purpose;
  std::vector<ParamSpec> specs;
  std::vector<Plan> plans;
};

class RunPage : public QSplitter {
  Q_OBJECT
 public:
  explicit RunPage(const std::vector<ExperimentInfo>& experiments, QWidget* parent = nullptr);

  QListWidget* experimentList() const { return experiment_list_; }
  ParamForm* form() const { return form_; }
  QPushButton* runButton() const { return run_button_; }
  QPushButton* stopButton() const { return stop_button_; }
  // "Run again": shown while a run is on show (opened or finished), objectName "runAgainButton".
  QPushButton* againButton() const { return again_button_; }
  QProgressBar* progressBar() const { return progress_; }
  ChartPanel* results() const { return results_; }

  bool selectExperiment(const QString& id);  // false when it is not in the list
  QString currentExperiment() const;
  void setPurpose(const QString& text);
  // While a run goes: Run, the experiment list and the form disabled, Stop enabled.
  void setRunControls(bool running);

  void setBanner(const QString& text, const QString& colour);  // empty text: hidden
  void hideBanner();
  QString bannerText() const;  // empty when hidden

  // The status line: "Step: <step>\nElapsed: <time>", with the time left while a run goes.
  QString statusText() const;
  void updateStatus();  // the elapsed time now (a timer calls it while a run goes)
  // A run starts: no progress, the clock from now, `step` on the status line (updateStatus).
  void startClock(const QString& step);
  void stopClock();                       // the run ended: the elapsed time stays what it is now
  void setStep(const QString& step);      // and updateStatus
  void setStepText(const QString& step);  // the step alone on the status line, no clock
  // The run's progress, 0..1; `step` replaces the step when given.
  void setProgress(double fraction, const std::optional<QString>& step);
  // A run that ended on show: progress, step and banner by its status (`saved_note` says why
  // it was not saved, when it was not).
  void showOutcome(const Run& run, const QString& saved_note);
  // An opened run file on show: its duration, "opened <file> (<status>)" and a banner when it
  // failed or was stopped.
  void showOpened(const Run& run, const QString& path);
  void clear();  // no run: chart, banner, progress and elapsed time reset, "Ready."

 private:
  QWidget* buildControls(const std::vector<ExperimentInfo>& experiments);

  QListWidget* experiment_list_;
  ParamForm* form_;
  QPushButton *run_button_, *again_button_, *stop_button_;
  QProgressBar* progress_;
  QLabel *status_, *banner_, *purpose_;
  ChartPanel* results_;
  QString step_;
  double fraction_ = 0;
  TimeLeft time_left_;  // re-estimated from each progress report
  QElapsedTimer elapsed_;
  qint64 finished_ms_ = -1;
};

}  // namespace perflab::gui
