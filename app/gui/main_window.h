#pragma once
// perflab's main window: experiments and their parameter forms, background runs with progress
// and Stop, results (chart + table), history, compare, targets, teaching, export.
// Thin: it drives the core libraries and perflab_charts and measures nothing itself. Its parts:
// the Run tab (RunPage), opening run files (RunOpener), the exports (ExportActions), the pages.
#include <memory>

#include <QMainWindow>

#include "gui_types.h"
#include "models/run_history.h"
#include "run_opener.h"
#include "run_page.h"
#include "runner/experiment.h"
#include "targets_settings.h"

class QAction;
class QProgressBar;
class QSettings;
class QTabWidget;
class QTimer;

namespace perflab::gui {

class ChartPanel;
class ComparePage;
class ExportActions;
class FontZoom;
class GuidesWindow;
class HistoryPage;
class ParamForm;
class PresentationView;
class RunController;
class RunOpener;
class TargetsPage;
class TeachingPanel;

struct WindowOptions {
  QString history_dir;              // empty: QStandardPaths::AppDataLocation/runs
  QString settings_file;            // empty: the platform's QSettings for Perflab/perflab
  bool read_only_settings = false;  // read them, never write them (a --screenshot)
};

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(WindowOptions opts = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  // --- What the tests and the screenshot mode drive (the buttons call the same code) ---
  bool selectExperiment(const QString& id);
  QString currentExperiment() const;
  // Starts the selected experiment with the form's parameters; false + reason if it cannot.
  bool startRun(QString* error = nullptr);
  // The run on show (opened or just finished) again: its experiment, its parameters in the form
  // (renamed ones under today's names), the Targets tab's targets; false + reason if it cannot
  // (a parameter this Perflab does not have, named).
  bool runAgain(QString* error = nullptr);
  void stopRun();
  bool running() const;
  const Run& currentRun() const { return *current_; }
  QString currentRunPath() const { return current_path_; }  // its history file, once saved
  QString statusText() const;
  QString bannerText() const;
  // Applies the targets page's form (restarts nothing while a run is going: returns false).
  bool applyTargets(QString* error = nullptr);
  std::shared_ptr<Targets> targets();  // the window's Targets, created on first use
  bool openRun(const QString& path, QString* error = nullptr);
  // Opens a run file without blocking the window: it is read and checked on a worker thread (a
  // 100,000-point run is ~90 MB of JSON) while the status line says so; runOpened tells the
  // outcome, and the banner the reason a file cannot be opened. A request during a load
  // replaces it (the last one asked for is shown).
  void openRunInBackground(const QString& path);
  // The same with the file's read already under way (read_run_to_show): a run named on the
  // command line is read while the window is built.
  void openRunRead(const QString& path, QFuture<OpenedRun> reading);
  bool opening() const;
  void exportChart(const QString& path, QSize size, bool all_groups = false);  // throws
  void exportData(const QString& path);  // .csv, .json, .gbench.json; throws
  void copyChart();
  // The person's note of the run on show (Run::note; empty removes it), saved into its file
  // in the history; false + reason when no finished run is on show.
  bool setRunNote(const QString& note, QString* error = nullptr);
  // The presentation view (F11): the chart on show (Run tab, or Compare when it is the current
  // tab) full screen; false closes it.
  void setPresentation(bool on);
  bool presentation() const;
  PresentationView* presentationView() const { return presentation_view_; }
  // Help > Guides (F1): the guides of docs/, opened at the chosen experiment's page.
  void showGuides();
  GuidesWindow* guidesWindow() const { return guides_; }

  TargetsPage* targetsPage() const { return targets_page_; }
  ParamForm* paramForm() const { return form_; }
  ChartPanel* resultsPanel() const { return results_; }
  HistoryPage* historyPage() const { return history_page_; }
  ComparePage* comparePage() const { return compare_; }
  TeachingPanel* teachingPanel() const { return teaching_; }
  QProgressBar* progressBar() const;
  FontZoom* fontZoom() const { return zoom_; }
  RunHistory& history() { return history_; }

 signals:
  void runStarted();
  void runFinished(const perflab::Run& run);
  // The targets' check refused the run (the reason is beside the field on the Targets page).
  void runRefused(const QString& why);
  // openRunInBackground's outcome: ok (the run's headline chart is on show), or the reason the
  // file could not be opened.
  void runOpened(bool ok, const QString& error);
  // A run opened by openRunInBackground is wholly on show: after its chart, the side panel's
  // figures and the results table came in turns of the event loop (each says "Loading…" in
  // its place until then). Not sent when another run or a live one took its place meanwhile.
  void runShown();

 protected:
  void closeEvent(QCloseEvent* e) override;
  void showEvent(QShowEvent* e) override;

 private:
  // The window's parts; then connectUi() wires them (pages, timers, controller signals).
  void buildUi();
  void connectUi();
  void buildMenus();
  void loadSettings();
  void saveParams();
  void planTargets();  // the Targets page shows the standbys and PgBouncer a run will start
  void onExperimentChanged();
  void onProgress(double fraction, const QString& step);
  void onUpdated(const Run& run);
  void onFinished(const Run& run);
  void onRefused(TargetField field, const QString& why, bool stopped);
  void setRunControls(bool running);
  void updateAgain();  // "Run again" offered while a run is on show, usable when none is going
  void openRunDialog();
  void askRunNote();
  // An opened run on show. Sliced (a large run opened in the background): the headline chart
  // built now and painted in the next turn of the event loop, the side panel's figures and the
  // table in the turns after, so the window never stops answering for long; a later showRun,
  // clearResults or startRun cancels the rest.
  void showRun(Run run, const QString& path, bool sliced = false);
  // The run on show's parameters into the form; the messages of those not taken.
  std::vector<std::string> showRunParams();
  // openRunInBackground's file is read: `run` on show, or the reason it is not.
  void onRunRead(const QString& path, std::shared_ptr<Run> run, const QString& error);
  void clearResults();  // no run on show: chart, banner, progress and elapsed time reset
  void updateTitle();   // "<run> — <experiment> — Perflab"
  void showAbout();
  QString experimentTitle(const std::string& id) const;

  WindowOptions opts_;
  std::unique_ptr<QSettings> settings_;
  RunHistory history_;
  std::vector<ExperimentInfo> experiments_;
  TargetsForm applied_;
  std::shared_ptr<Targets> targets_;
  RunController* controller_;
  // The run on show, never changed once there (another takes its place): the chart panel and
  // the side panel share it, a large run is not copied for each.
  std::shared_ptr<const Run> current_ = std::make_shared<const Run>();
  QString current_path_;
  bool first_layout_ = false;  // no saved window state: size the side panel on the first show
  RunOpener* opener_;          // openRunInBackground's reader, showRun's turns
  ExportActions* exports_;
  FontZoom* zoom_ = nullptr;  // Ctrl +/-: the window's and the charts' fonts

  QTabWidget* tabs_;
  RunPage* run_page_;
  ParamForm* form_;      // run_page_'s
  ChartPanel* results_;  // run_page_'s
  HistoryPage* history_page_;
  ComparePage* compare_;
  PresentationView* presentation_view_ = nullptr;
  GuidesWindow* guides_ = nullptr;
  QMetaObject::Connection presentation_follow_;
  TargetsPage* targets_page_;
  TeachingPanel* teaching_;
  QTimer *tick_, *refresh_;
  QAction *run_action_, *again_action_, *stop_action_, *presentation_action_, *dark_action_;
};

}  // namespace perflab::gui
