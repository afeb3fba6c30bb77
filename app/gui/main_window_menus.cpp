// The main window's menus and toolbar, and the dialogs they open: About, opening a run file and
// a run's note.
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QInputDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QToolBar>
#include <QUrl>

#include "chart_panel.h"
#include "compare_page.h"
#include "export_actions.h"
#include "font_zoom.h"
#include "guides_window.h"
#include "history_page.h"
#include "main_window.h"
#include "registry/registry.h"
#include "run_page.h"

namespace perflab::gui {

namespace {

const QString kNoRunForNote = "A note goes on a run that has ended and is on show.";

}  // namespace

void MainWindow::buildMenus() {
  auto* file = menuBar()->addMenu("&File");
  auto act = [this](QMenu* menu, const QString& text, auto slot, QKeySequence key = {}) {
    QAction* a = menu->addAction(text);
    a->setShortcut(key);
    connect(a, &QAction::triggered, this, slot);
    return a;
  };
  act(file, "&Open run file…", &MainWindow::openRunDialog, QKeySequence::Open);
  file->addAction("&Import run into history…", this, [this] {
    QString path = QFileDialog::getOpenFileName(this, "Import a run file", QDir::homePath(),
                                                "Perflab runs (*.json)");
    QString error;
    if (!path.isEmpty() && !history_page_->importFile(path, &error))
      QMessageBox::warning(this, "Import run", error);
  });
  file->addSeparator();
  file->addAction(exports_->chartAction());
  file->addAction(exports_->dataAction());
  file->addAction(exports_->reportAction());
  file->addAction(exports_->copyAction());
  file->addSeparator();
  act(file, "&Quit", &QWidget::close, QKeySequence::Quit);

  auto* run = menuBar()->addMenu("&Run");
  run_action_ = run->addAction("&Run", this, [this] {
    QString error;
    if (!startRun(&error)) run_page_->setBanner(error, "#b00020");
  });
  run_action_->setShortcut(QKeySequence("Ctrl+R"));
  again_action_ = run->addAction("Run &again", this, [this] {
    QString error;
    if (!runAgain(&error)) run_page_->setBanner(error, "#b00020");
  });
  again_action_->setShortcut(QKeySequence("Ctrl+Shift+R"));
  again_action_->setToolTip("The run on show again, with its parameters");
  again_action_->setEnabled(false);
  stop_action_ = run->addAction("&Stop", this, &MainWindow::stopRun);
  stop_action_->setShortcut(QKeySequence("Ctrl+."));
  stop_action_->setEnabled(false);
  run->addSeparator();
  run->addAction("&Note…", this, &MainWindow::askRunNote);

  auto* view = menuBar()->addMenu("&View");
  presentation_action_ = view->addAction("&Presentation view");
  presentation_action_->setToolTip(
      "The chart full screen for a room: arrow keys or PageUp/PageDown step through the charts, "
      "Esc leaves");
  presentation_action_->setCheckable(true);
  presentation_action_->setShortcut(QKeySequence("F11"));
  connect(presentation_action_, &QAction::toggled, this, &MainWindow::setPresentation);
  dark_action_ = view->addAction("&Dark charts");
  dark_action_->setCheckable(true);
  connect(dark_action_, &QAction::toggled, this, [this](bool on) {
    results_->setTheme(on ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    compare_->chartPanel()->setTheme(on ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    settings_->setValue("view/dark", on);
  });
  view->addAction(findChild<QDockWidget*>("teachingDock")->toggleViewAction());
  view->addSeparator();
  zoom_ = new FontZoom(this, settings_.get(), {results_, compare_->chartPanel()});
  for (QAction* a : zoom_->actions()) view->addAction(a);

  auto* help = menuBar()->addMenu("&Help");
  QAction* guides = help->addAction("&Guides", this, &MainWindow::showGuides);
  guides->setObjectName("guidesAction");
  guides->setShortcut(QKeySequence::HelpContents);  // F1
  guides->setToolTip("Perflab's guides: each experiment, the lecture plans, reading a verdict");
  help->addSeparator();
  help->addAction("&About Perflab", this, &MainWindow::showAbout);
  help->addAction("About &Qt", qApp, &QApplication::aboutQt);

  auto* tb = addToolBar("Main");
  tb->setObjectName("mainToolbar");
  tb->addAction(run_action_);
  tb->addAction(stop_action_);
  tb->addSeparator();
  tb->addAction(exports_->chartAction());
  tb->addAction(exports_->copyAction());
  tb->addAction(exports_->dataAction());
  tb->addSeparator();
  tb->addAction(presentation_action_);
}

void MainWindow::showGuides() {
  if (!guides_) guides_ = new GuidesWindow(this);
  // The chosen experiment's own page (its id names it: iolist.md, sharding.md, caching.md).
  if (!guides_->isVisible()) guides_->showPage(currentExperiment() + ".md");
  guides_->show();
  guides_->raise();
  guides_->activateWindow();
}

void MainWindow::showAbout() {
  const QString dir = QUrl::fromLocalFile(history_.dir()).toString();
  QMessageBox::about(
      this, "About Perflab",
      QString("<b>Perflab %1</b> (Qt %2)"
              "<p>Re-runs published performance experiments against real PostgreSQL and Redis "
              "servers, with linear and log charts, comparison, export and the articles' figures "
              "beside the measured ones.</p>"
              "<p>Run history: <a href='%3'>%4</a><br>"
              "Settings: %5<br>"
              "Command line: <tt>perflab-cli --help</tt>; the sharding proxy: "
              "<tt>perflab-proxy --help</tt></p>")
          .arg(QString::fromLatin1(perflab_version()), QString::fromLatin1(qVersion()), dir,
               history_.dir().toHtmlEscaped(), settings_->fileName().toHtmlEscaped()));
}

void MainWindow::openRunDialog() {
  QString path = QFileDialog::getOpenFileName(this, "Open a run file", history_.dir(),
                                              "Perflab runs (*.json)");
  if (!path.isEmpty()) openRunInBackground(path);
}

bool MainWindow::setRunNote(const QString& note, QString* error) {
  if (running() || current_path_.isEmpty()) {
    if (error) *error = kNoRunForNote;
    return false;
  }
  return history_page_->setNote(current_path_, note, error);  // noteChanged updates current_
}

void MainWindow::askRunNote() {
  if (running() || current_path_.isEmpty()) {
    QMessageBox::information(this, "Note", kNoRunForNote);
    return;
  }
  bool ok = false;
  const QString note = QInputDialog::getMultiLineText(
      this, "Note",
      "A note of your own on this run (empty removes it):", QString::fromStdString(current_->note),
      &ok);
  QString error;
  if (ok && !setRunNote(note, &error)) QMessageBox::warning(this, "Note", error);
}

}  // namespace perflab::gui
