#include "main_window.h"

#include <QAction>
#include <QChartView>
#include <QCloseEvent>
#include <QDockWidget>
#include <QEventLoop>
#include <QFileInfo>
#include <QGuiApplication>
#include <QListWidget>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QShowEvent>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>

#include "background_stop.h"
#include "chart_panel.h"
#include "common/text.h"
#include "compare_page.h"
#include "export_actions.h"
#include "history_page.h"
#include "param_form.h"
#include "presentation_view.h"
#include "qt_text/qt_text.h"
#include "registry/registry.h"
#include "report/resources.h"
#include "report/teaching.h"
#include "run_controller.h"
#include "run_opener.h"
#include "targets_page.h"
#include "window_settings.h"

namespace perflab::gui {

MainWindow::MainWindow(WindowOptions opts, QWidget* parent)
    : QMainWindow(parent),
      opts_(std::move(opts)),
      settings_(open_settings(opts_.settings_file, opts_.read_only_settings)),
      history_(opts_.history_dir.isEmpty() ? RunHistory::default_dir() : opts_.history_dir,
               [](const Run& run) { return param_defaults(run.experiment, run.params); }) {
  perflab_init_gui_resources();
  setWindowIcon(QIcon(":/icons/perflab.svg"));
  for (const auto& e : all_experiments())
    experiments_.push_back({e->id(), e->title(), e->purpose(), e->params(), e->plans()});
  controller_ = new RunController(this);
  connect(controller_, &RunController::progressed, this, &MainWindow::onProgress);
  connect(controller_, &RunController::updated, this, &MainWindow::onUpdated);
  connect(controller_, &RunController::finished, this, &MainWindow::onFinished);
  connect(controller_, &RunController::refused, this, &MainWindow::onRefused);
  opener_ = new RunOpener(this);
  buildUi();
  buildMenus();
  loadSettings();
  updateTitle();
}

MainWindow::~MainWindow() {
  // The run's thread first (it uses the targets), then background tests, then the servers.
  delete controller_;
  controller_ = nullptr;
  targets_page_->waitForBackground();
  history_page_->waitForBackground();       // it lists history_, a member that goes first
  opener_->waitForFinished();               // it reads through history_ too
  stop_in_background(std::move(targets_));  // the window is gone while managed servers stop
}

void MainWindow::buildUi() {
  tabs_ = new QTabWidget;
  tabs_->setDocumentMode(true);
  setCentralWidget(tabs_);
  run_page_ = new RunPage(experiments_);
  form_ = run_page_->form();
  results_ = run_page_->results();
  exports_ = new ExportActions(this, settings_.get(), results_, &current_);
  tabs_->addTab(run_page_, "Run");
  history_page_ = new HistoryPage(&history_);
  tabs_->addTab(history_page_, "History");
  compare_ = new ComparePage(&history_, history_page_->model());
  tabs_->addTab(compare_, "Compare");
  targets_page_ = new TargetsPage([this] { return targets(); });
  auto* tscroll = new QScrollArea;
  tscroll->setWidget(targets_page_);
  tscroll->setWidgetResizable(true);
  tabs_->addTab(tscroll, "Targets");

  teaching_ = new TeachingPanel;
  teaching_->setMinimumWidth(240);  // never a column of single letters
  auto* dock = new QDockWidget("About this experiment");
  dock->setObjectName("teachingDock");
  dock->setWidget(teaching_);
  addDockWidget(Qt::RightDockWidgetArea, dock);

  tick_ = new QTimer(this);
  tick_->setInterval(250);
  refresh_ = new QTimer(this);  // coalesces live chart updates: at most ~3 per second
  refresh_->setSingleShot(true);
  refresh_->setInterval(300);
  connectUi();
}

void MainWindow::connectUi() {
  connect(tick_, &QTimer::timeout, run_page_, &RunPage::updateStatus);
  connect(refresh_, &QTimer::timeout, this, [this] {
    results_->setRun(current_);
    teaching_->setRun(current_);
  });
  connect(run_page_->experimentList(), &QListWidget::currentRowChanged, this,
          &MainWindow::onExperimentChanged);
  connect(form_, &ParamForm::changed, this, &MainWindow::saveParams);
  connect(form_, &ParamForm::changed, this, &MainWindow::planTargets);
  // A plan chosen: its servers start now, so that Run measures at once.
  connect(form_, &ParamForm::planChosen, this, [this](const QString& plan) {
    auto exp = make_experiment(currentExperiment().toStdString());
    if (!exp || plan.toStdString() == kDefaultPlan || running()) return;
    try {
      targets_page_->startManaged(exp->needs(resolve_params(*exp, form_->values())));
    } catch (const std::exception&) {  // an invalid field: the run will say which
    }
  });
  connect(run_page_->runButton(), &QPushButton::clicked, this, [this] {
    QString error;
    if (!startRun(&error)) run_page_->setBanner(error, "#b00020");
  });
  connect(run_page_->againButton(), &QPushButton::clicked, this, [this] {
    QString error;
    if (!runAgain(&error)) run_page_->setBanner(error, "#b00020");
  });
  connect(run_page_->stopButton(), &QPushButton::clicked, this, &MainWindow::stopRun);
  connect(history_page_, &HistoryPage::openRequested, this, &MainWindow::openRunInBackground);
  connect(history_page_, &HistoryPage::noteChanged, this,
          [this](const QString& path, const QString& note) {
            // A copy with the note: the run on show is shared as it is (current_)
            if (!current_path_.isEmpty() && QFileInfo(path) == QFileInfo(current_path_)) {
              auto noted = std::make_shared<Run>(*current_);
              noted->note = note.toStdString();
              current_ = std::move(noted);
            }
          });
  connect(opener_, &RunOpener::fileRead, this, &MainWindow::onRunRead);
  connect(opener_, &RunOpener::superseded, this, &MainWindow::openRunInBackground);
  connect(history_page_, &HistoryPage::compareRequested, this,
          [this](const QString& a, const QString& b) {
            compare_->compareFiles(a, b);
            tabs_->setCurrentWidget(compare_);
          });
  connect(targets_page_, &TargetsPage::applyRequested, this, [this] {
    QString error;
    applyTargets(&error);
  });
  connect(targets_page_, &TargetsPage::revertRequested, this,
          [this] { targets_page_->setForm(applied_); });
  connect(results_, &ChartPanel::scaleChosen, this,
          [this](const QString& key, bool log_y, bool log_x) {
            settings_->setValue("scales/" + key,
                                QStringList{log_y ? "log" : "linear", log_x ? "log" : "linear"});
          });
  connect(results_, &ChartPanel::relativeChosen, this,
          [this](const QString& key, const QString& baseline) {
            settings_->setValue("relative/" + key, baseline);
          });
  connect(results_->splitter(), &QSplitter::splitterMoved, this,
          [this] { settings_->setValue("view/chartSplitter", results_->splitter()->saveState()); });
}

void MainWindow::loadSettings() {
  QSettings& s = *settings_;
  applied_ = load_targets_form(s);
  targets_page_->setForm(applied_);
  s.beginGroup("scales");
  for (const QString& key : s.allKeys()) {
    const QStringList v = s.value(key).toStringList();
    results_->setScaleChoice(key, v.value(0) == "log", v.value(1) == "log");
  }
  s.endGroup();
  s.beginGroup("relative");
  for (const QString& key : s.allKeys())
    results_->setRelativeChoice(key, s.value(key).toString().toStdString());
  s.endGroup();
  results_->splitter()->restoreState(s.value("view/chartSplitter").toByteArray());
  dark_action_->setChecked(s.value("view/dark", false).toBool());
  if (!restoreGeometry(s.value("window/geometry").toByteArray())) {
    // First start: most of the screen, the side panel a share of it (set once shown).
    if (const QScreen* screen = QGuiApplication::primaryScreen()) {
      const QRect avail = screen->availableGeometry();
      resize(avail.size() * 0.9);
      move(avail.center() - rect().center());
    }
  }
  first_layout_ = !restoreState(s.value("window/state").toByteArray());
  if (!selectExperiment(s.value("run/experiment").toString()) && !experiments_.empty())
    run_page_->experimentList()->setCurrentRow(0);
}

QString MainWindow::experimentTitle(const std::string& id) const {
  for (const auto& e : experiments_)
    if (e.id == id) return q(e.title);
  return q(id);
}

bool MainWindow::selectExperiment(const QString& id) {
  return run_page_->selectExperiment(id);
}

QString MainWindow::currentExperiment() const {
  return run_page_->currentExperiment();
}

void MainWindow::onExperimentChanged() {
  int row = run_page_->experimentList()->currentRow();
  if (row < 0 || row >= int(experiments_.size())) return;
  const auto& e = experiments_[row];
  QSignalBlocker block(form_);
  form_->setSpecs(e.specs, e.plans);
  std::map<std::string, std::string> saved;
  settings_->beginGroup("params/" + q(e.id));
  for (const auto& key : settings_->childKeys())
    saved[key.toStdString()] = settings_->value(key).toString().toStdString();
  settings_->endGroup();
  // Saved by an older Perflab: a renamed parameter under today's name; one it no longer has, or
  // a value out of today's range, is said once and forgotten (the field keeps its default).
  if (const auto refused = form_->setValues(with_current_names(e.specs, saved)); !refused.empty()) {
    run_page_->setBanner(q("Saved parameters not used: " + join(refused, "; ")), "#8a6d00");
    settings_->remove("params/" + q(e.id));
    saveParams();
  }
  settings_->setValue("run/experiment", q(e.id));
  if (!running() && !current_->experiment.empty() && current_->experiment != e.id) clearResults();
  run_page_->setPurpose(q(e.purpose));
  teaching_->setExperiment(q(e.id), q(e.title), q(e.purpose));
  if (current_->experiment == e.id) teaching_->setRun(current_);
  planTargets();
}

void MainWindow::planTargets() {
  TargetNeeds needs;
  if (auto exp = make_experiment(currentExperiment().toStdString())) try {
      needs = exp->needs(resolve_params(*exp, form_->values()));
    } catch (const std::exception&) {  // an invalid field: the run will say which
    }
  targets_page_->setPlannedNeeds(needs);
}

void MainWindow::saveParams() {
  QString id = currentExperiment();
  if (id.isEmpty()) return;
  settings_->beginGroup("params/" + id);
  for (const auto& [k, v] : form_->values()) settings_->setValue(q(k), q(v));
  settings_->endGroup();
}

std::shared_ptr<Targets> MainWindow::targets() {
  if (!targets_) {
    TargetsConfig cfg;
    try {
      cfg = to_config(applied_);
    } catch (const std::exception& e) {
      targets_page_->setApplyError(QString("Saved targets are not usable (%1): using managed "
                                           "servers.")
                                       .arg(e.what()));
    }
    targets_ = std::make_shared<Targets>(cfg);
  }
  return targets_;
}

bool MainWindow::applyTargets(QString* error) {
  TargetsForm f = targets_page_->form();
  auto fail = [&](const QString& why) {
    targets_page_->setApplyError(why);
    if (error) *error = why;
    return false;
  };
  targets_page_->clearTargetErrors();
  try {
    to_config(f);
  } catch (const TargetsFormError& e) {
    targets_page_->setTargetError(e.field(), QString::fromStdString(e.what()));
    if (error) *error = QString::fromStdString(e.what());
    return false;
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
  if (f == applied_ && targets_) {
    targets_page_->setApplyError({});
    return true;
  }
  if (running()) return fail("Stop the run before changing the targets.");
  applied_ = f;
  save_targets_form(*settings_, applied_);
  targets_.reset();  // managed servers of the old configuration stop (once unused)
  targets_page_->setApplyError({});
  targets_page_->refreshManagedState();
  return true;
}

bool MainWindow::running() const {
  return controller_ && controller_->running();
}

bool MainWindow::startRun(QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (running()) return fail("A run is already going.");
  QString id = currentExperiment();
  auto exp = make_experiment(id.toStdString());
  if (!exp) return fail("Pick an experiment first.");
  QString invalid = form_->validationError();
  if (!invalid.isEmpty()) return fail("Parameters: " + invalid);
  auto params = form_->values();
  try {
    resolve_params(*exp, params);
  } catch (const std::exception& e) {
    return fail(QString("Parameters: %1").arg(e.what()));
  }
  saveParams();
  opener_->cancelTurns();  // an opened run's remaining slices are not wanted
  auto starting = std::make_shared<Run>();
  starting->experiment = id.toStdString();
  starting->title = exp->title();
  starting->params = params;
  current_ = std::move(starting);
  current_path_.clear();
  results_->setRun(current_);
  teaching_->setRun(nullptr);
  run_page_->hideBanner();
  run_page_->startClock("checking the targets, then starting (managed servers start on first use)");
  targets_page_->clearTargetErrors();
  controller_->start(std::move(exp), targets(), params);
  setRunControls(true);
  tick_->start();
  run_page_->updateStatus();
  updateTitle();
  emit runStarted();
  return true;
}

bool MainWindow::runAgain(QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (running()) return fail("A run is already going.");
  if (current_->experiment.empty()) return fail("No run is on show to run again.");
  if (!selectExperiment(q(current_->experiment)))
    return fail(q("This Perflab has no experiment '" + current_->experiment + "'."));
  if (const auto refused = showRunParams(); !refused.empty())
    return fail(q("Not run again: " + join(refused, "; ")));
  return startRun(error);
}

void MainWindow::stopRun() {
  if (!running()) return;
  controller_->stop();
  run_page_->stopButton()->setEnabled(false);
  stop_action_->setEnabled(false);
  run_page_->setStep("stopping…");
}

void MainWindow::onProgress(double fraction, const QString& step) {
  run_page_->setProgress(fraction,
                         controller_->stopping() ? std::nullopt : std::optional<QString>(step));
}

void MainWindow::onUpdated(const Run& run) {
  if (!running()) return;
  current_ = std::make_shared<const Run>(run);
  if (!refresh_->isActive()) refresh_->start();
}

void MainWindow::setRunControls(bool running) {
  run_page_->setRunControls(running);
  run_action_->setEnabled(!running);
  stop_action_->setEnabled(running);
  updateAgain();
}

void MainWindow::updateAgain() {
  const bool on_show = !current_->experiment.empty();
  run_page_->againButton()->setVisible(on_show);
  again_action_->setEnabled(on_show && !running());
}

void MainWindow::onRefused(TargetField field, const QString& why, bool stopped) {
  tick_->stop();
  run_page_->stopClock();
  setRunControls(false);
  if (stopped) {
    run_page_->hideBanner();
  } else {
    targets_page_->setTargetError(field, why);
    run_page_->setBanner("Run not started: " + why + "\nChange the target on the Targets tab.",
                         "#b00020");
  }
  run_page_->setStep("not started");
  emit runRefused(why);
}

void MainWindow::onFinished(const Run& run) {
  refresh_->stop();
  tick_->stop();
  run_page_->stopClock();
  current_ = std::make_shared<const Run>(run);
  results_->setRun(current_);
  results_->setGroup(charts::headline_group(*current_));  // not the chart that came first
  teaching_->setRun(current_);
  setRunControls(false);
  QString saved_note;
  try {
    current_path_ = history_.save(*current_);
  } catch (const std::exception& e) {
    saved_note = QString(" It could not be saved: %1").arg(e.what());
  }
  run_page_->showOutcome(run, saved_note);
  updateTitle();
  history_page_->refresh();
  history_page_->selectPath(current_path_);  // the pickers of Compare follow its model
  targets_page_->refreshManagedState();
  emit runFinished(run);
}

QString MainWindow::statusText() const {
  return run_page_->statusText();
}
QString MainWindow::bannerText() const {
  return run_page_->bannerText();
}

QProgressBar* MainWindow::progressBar() const {
  return run_page_->progressBar();
}

bool MainWindow::openRun(const QString& path, QString* error) {
  if (running()) {
    if (error) *error = "A run is going: stop it or wait before opening another.";
    return false;
  }
  try {
    showRun(history_.loadToShow(path), path);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return true;
}

void MainWindow::openRunInBackground(const QString& path) {
  openRunRead(path, {});
}

void MainWindow::openRunRead(const QString& path, QFuture<OpenedRun> reading) {
  if (running()) {
    const QString why = "A run is going: stop it or wait before opening another.";
    run_page_->setBanner(why, "#b00020");
    emit runOpened(false, why);
    return;
  }
  if (!opener_->open(path, std::move(reading)))
    return;  // a file is being read: the newest request waits for it
  run_page_->setStepText(QString("opening %1 (%2 MB)…")
                             .arg(QFileInfo(path).fileName())
                             .arg(QFileInfo(path).size() / 1e6, 0, 'f', 1));
}

bool MainWindow::opening() const {
  return opener_->opening();
}

void MainWindow::onRunRead(const QString& path, std::shared_ptr<Run> run, const QString& error) {
  if (!run || running()) {
    const QString why = run ? "A run started while the file was read: it was not opened."
                            : QString("Cannot open %1: %2").arg(QFileInfo(path).fileName(), error);
    run_page_->setStep({});
    run_page_->setBanner(why, "#b00020");
    emit runOpened(false, why);
    return;
  }
  showRun(std::move(*run), path, true);
  emit runOpened(true, {});
}

void MainWindow::showRun(Run run, const QString& path, bool sliced) {
  selectExperiment(q(run.experiment));  // another experiment's run on show is cleared first
  opener_->cancelTurns();
  current_ = std::make_shared<const Run>(std::move(run));
  current_path_ = path;
  if (currentExperiment() != q(current_->experiment))
    teaching_->setExperiment(q(current_->experiment), q(current_->title), {});
  QWidget* chart_view = results_->chartView();
  chart_view->setUpdatesEnabled(!sliced);  // sliced: the chart's paint gets a turn of its own
  results_->setRun(current_, sliced);
  if (sliced) {
    teaching_->setRunLoading();
    // Each turn waits for the one before it and for the paint that one queued.
    opener_->showInTurns(
        // whatever came since: the chart view is not frozen
        [chart_view] { chart_view->setUpdatesEnabled(true); },
        {[this] { teaching_->setRun(current_); },
         [this] {
           results_->showTable();
           emit runShown();
         }});
  } else {
    teaching_->setRun(current_);
  }
  run_page_->showOpened(*current_, path);
  if (const auto refused = showRunParams(); !refused.empty())
    run_page_->setBanner(
        q("This run's parameters not in the form (the form keeps its own): " + join(refused, "; ")),
        "#8a6d00");
  updateAgain();
  tabs_->setCurrentIndex(0);
  updateTitle();
}

std::vector<std::string> MainWindow::showRunParams() {
  if (currentExperiment() != q(current_->experiment)) return {};  // not an experiment of ours
  return form_->setValues(with_current_names(form_->specs(), current_->params));
}

void MainWindow::exportChart(const QString& path, QSize size, bool all_groups) {
  exports_->exportChart(path, size, all_groups);
}

void MainWindow::exportData(const QString& path) {
  exports_->exportData(path);
}

void MainWindow::copyChart() {
  exports_->copyChart();
}

void MainWindow::setPresentation(bool on) {
  if (presentation_action_->isChecked() != on) {
    presentation_action_->setChecked(on);  // toggled() comes back here
    return;
  }
  if (!on) {
    if (presentation_view_) presentation_view_->close();
    return;
  }
  ChartPanel* panel = tabs_->currentWidget() == compare_ && compare_->chartPanel()->hasRun()
                          ? compare_->chartPanel()
                          : results_;
  if (!presentation_view_) {
    presentation_view_ = new PresentationView(this);
    connect(presentation_view_, &PresentationView::closed, this,
            [this] { presentation_action_->setChecked(false); });
  }
  disconnect(presentation_follow_);  // the panel shown follows the view's steps
  presentation_follow_ = connect(presentation_view_, &PresentationView::groupChanged, panel,
                                 [panel](const std::string& g) { panel->setGroup(g); });
  // Each chart as the panel would draw it: its scales, hidden series, the whole of its options.
  presentation_view_->setRun(panel->run(), panel->group(),
                             [panel](const std::string& g) { return panel->optionsFor(g); });
  presentation_view_->showFullScreen();
  presentation_view_->activateWindow();
  presentation_view_->setFocus();
}

bool MainWindow::presentation() const {
  return presentation_view_ && presentation_view_->isVisible();
}

void MainWindow::showEvent(QShowEvent* e) {
  QMainWindow::showEvent(e);
  if (!first_layout_) return;
  first_layout_ = false;
  // A sensible share of the width for the side panel: its text reads as paragraphs.
  if (auto* dock = findChild<QDockWidget*>("teachingDock"))
    resizeDocks({dock}, {std::clamp(width() / 4, 280, 520)}, Qt::Horizontal);
}

void MainWindow::clearResults() {
  opener_->cancelTurns();
  current_ = std::make_shared<const Run>();
  current_path_.clear();
  run_page_->clear();
  teaching_->setRun(nullptr);
  updateAgain();
  updateTitle();
}

void MainWindow::updateTitle() {
  QStringList parts;
  if (!current_path_.isEmpty())
    parts << QFileInfo(current_path_).completeBaseName();
  else if (running())
    parts << "running";
  if (!current_->experiment.empty()) parts << experimentTitle(current_->experiment);
  parts << "Perflab";
  setWindowTitle(parts.join(" — "));
}

void MainWindow::closeEvent(QCloseEvent* e) {
  settings_->setValue("window/geometry", saveGeometry());
  settings_->setValue("window/state", saveState());
  hide();  // at once: what follows (a run's end, the servers' stop) goes on unseen
  if (running()) {
    // Stop, and give the run a moment to end so what it measured is saved.
    controller_->stop();
    QEventLoop loop;
    connect(controller_, &RunController::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(5000, &loop, &QEventLoop::quit);
    if (running()) loop.exec();
  }
  QMainWindow::closeEvent(e);
}

}  // namespace perflab::gui
