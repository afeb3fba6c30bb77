// The main window's Run tab (run_page.h): its widgets, the status line and the banner.
#include "run_page.h"

#include <algorithm>

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "chart_panel.h"
#include "common/report.h"
#include "models/value_text.h"
#include "param_form.h"
#include "qt_text/qt_text.h"

namespace perflab::gui {

RunPage::RunPage(const std::vector<ExperimentInfo>& experiments, QWidget* parent)
    : QSplitter(Qt::Horizontal, parent) {
  addWidget(buildControls(experiments));
  auto* right = new QWidget;
  auto* rv = new QVBoxLayout(right);
  banner_ = new QLabel;
  banner_->setObjectName("banner");
  banner_->setWordWrap(true);
  banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  banner_->hide();
  rv->addWidget(banner_);
  results_ = new ChartPanel;
  rv->addWidget(results_, 1);
  addWidget(right);
  setStretchFactor(1, 1);
  setSizes({400, 1000});
}

QWidget* RunPage::buildControls(const std::vector<ExperimentInfo>& experiments) {
  auto* left = new QWidget;
  auto* lv = new QVBoxLayout(left);
  lv->addWidget(new QLabel("<b>Experiment</b>"));
  experiment_list_ = new QListWidget;
  experiment_list_->setObjectName("experimentList");
  experiment_list_->setWordWrap(true);
  experiment_list_->setMaximumHeight(110);
  for (const auto& e : experiments) {
    auto* item = new QListWidgetItem(q(e.title));
    item->setData(Qt::UserRole, q(e.id));
    item->setToolTip(q(e.purpose));
    experiment_list_->addItem(item);
  }
  if (experiments.empty()) experiment_list_->addItem("No experiments are built into this Perflab.");
  lv->addWidget(experiment_list_);
  purpose_ = new QLabel;
  purpose_->setWordWrap(true);
  purpose_->setObjectName("experimentPurpose");
  lv->addWidget(purpose_);
  lv->addWidget(new QLabel("<b>Parameters</b>"));
  form_ = new ParamForm;
  auto* scroll = new QScrollArea;
  scroll->setWidget(form_);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  lv->addWidget(scroll, 1);
  auto* buttons = new QHBoxLayout;
  run_button_ = new QPushButton("▶ Run");
  run_button_->setObjectName("runButton");
  again_button_ = new QPushButton("↻ Run again");
  again_button_->setObjectName("runAgainButton");
  again_button_->setToolTip(
      "The run on show again: its experiment and parameters (now in the form), on the targets "
      "of the Targets tab");
  again_button_->hide();
  stop_button_ = new QPushButton("■ Stop");
  stop_button_->setObjectName("stopButton");
  stop_button_->setEnabled(false);
  buttons->addWidget(run_button_);
  buttons->addWidget(again_button_);
  buttons->addWidget(stop_button_);
  lv->addLayout(buttons);
  progress_ = new QProgressBar;
  progress_->setObjectName("progressBar");
  progress_->setRange(0, 1000);
  progress_->setValue(0);
  progress_->setFormat("%p%");
  lv->addWidget(progress_);
  status_ = new QLabel("Ready.");
  status_->setObjectName("runStatus");
  status_->setWordWrap(true);
  lv->addWidget(status_);
  left->setMinimumWidth(340);
  return left;
}

bool RunPage::selectExperiment(const QString& id) {
  for (int i = 0; i < experiment_list_->count(); ++i)
    if (experiment_list_->item(i)->data(Qt::UserRole).toString() == id) {
      experiment_list_->setCurrentRow(i);
      return true;
    }
  return false;
}

QString RunPage::currentExperiment() const {
  auto* item = experiment_list_->currentItem();
  return item ? item->data(Qt::UserRole).toString() : QString();
}

void RunPage::setPurpose(const QString& text) {
  purpose_->setText(text);
}

void RunPage::setRunControls(bool running) {
  run_button_->setEnabled(!running);
  again_button_->setEnabled(!running);
  stop_button_->setEnabled(running);
  experiment_list_->setEnabled(!running);
  form_->setEnabled(!running);
}

void RunPage::setBanner(const QString& text, const QString& colour) {
  banner_->setText(text);
  banner_->setStyleSheet(QString("QLabel { border: 1px solid %1; color: %1; padding: 6px; "
                                 "border-radius: 4px; }")
                             .arg(colour));
  banner_->setVisible(!text.isEmpty());
}

void RunPage::hideBanner() {
  banner_->hide();
}

QString RunPage::bannerText() const {
  return banner_->isVisible() ? banner_->text() : QString();
}

QString RunPage::statusText() const {
  return status_->text();
}

void RunPage::updateStatus() {
  if (!elapsed_.isValid()) return;
  qint64 ms = finished_ms_ >= 0 ? finished_ms_ : elapsed_.elapsed();
  QString text = QString("Step: %1\nElapsed: %2").arg(step_, format_duration(ms));
  if (finished_ms_ < 0) {
    if (const auto left = time_left_.seconds_left(ms / 1000.0); left && fraction_ < 1)
      text += *left >= 1 ? QString(" — about %1 left").arg(format_duration(qint64(*left * 1000)))
                         : QString(" — finishing…");
    else
      text += " — estimating time left…";
  }
  status_->setText(text);
}

void RunPage::startClock(const QString& step) {
  fraction_ = 0;
  time_left_.reset();
  step_ = step;
  finished_ms_ = -1;
  progress_->setValue(0);
  elapsed_.start();
}

void RunPage::stopClock() {
  finished_ms_ = elapsed_.elapsed();
}

void RunPage::setStep(const QString& step) {
  step_ = step;
  updateStatus();
}

void RunPage::setStepText(const QString& step) {
  step_ = step;
  status_->setText(step_);
}

void RunPage::setProgress(double fraction, const std::optional<QString>& step) {
  fraction_ = std::clamp(fraction, 0.0, 1.0);
  if (elapsed_.isValid() && finished_ms_ < 0)
    time_left_.add(fraction_, elapsed_.elapsed() / 1000.0);
  if (step) step_ = *step;
  progress_->setValue(static_cast<int>(fraction_ * 1000));
  updateStatus();
}

void RunPage::showOutcome(const Run& run, const QString& saved_note) {
  switch (run.status) {
    case RunStatus::Finished:
      progress_->setValue(1000);
      step_ = "finished";
      if (!saved_note.isEmpty())
        setBanner(saved_note.trimmed(), "#b00020");
      else if (auto noise = run_noise_summary(run))
        setBanner(q(*noise), "#8a6d00");
      else
        banner_->hide();
      break;
    case RunStatus::Cancelled:
      step_ = "stopped";
      setBanner(
          "Run stopped: what was measured before the stop is kept and shown (marked "
          "cancelled)." +
              saved_note,
          "#8a6d00");
      break;
    case RunStatus::Failed:
    case RunStatus::Running:
      step_ = "failed";
      setBanner("Run failed: " + q(run.message) +
                    "\nWhat was measured before the failure is kept and shown." + saved_note,
                "#b00020");
      break;
  }
  updateStatus();
}

void RunPage::showOpened(const Run& run, const QString& path) {
  finished_ms_ = run.ended_unix_ms - run.started_unix_ms;
  step_ = QString("opened %1 (%2)").arg(QFileInfo(path).fileName(), to_string(run.status));
  elapsed_.start();
  progress_->setValue(run.status == RunStatus::Finished ? 1000 : 0);
  updateStatus();
  if (run.status == RunStatus::Failed)
    setBanner("This run failed: " + q(run.message), "#b00020");
  else if (run.status == RunStatus::Cancelled)
    setBanner("This run was stopped before the end: partial results.", "#8a6d00");
  else
    banner_->hide();
}

void RunPage::clear() {
  results_->clear();
  banner_->hide();
  elapsed_.invalidate();
  finished_ms_ = -1;
  fraction_ = 0;
  time_left_.reset();
  progress_->setValue(0);
  status_->setText("Ready.");
}

}  // namespace perflab::gui
