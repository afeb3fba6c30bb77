#include "history_page.h"

#include <algorithm>
#include <functional>
#include <tuple>

#include <QAction>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QShortcut>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "models/history_model.h"

namespace perflab::gui {

HistoryPage::HistoryPage(RunHistory* history, QWidget* parent)
    : QWidget(parent), history_(history) {
  auto* v = new QVBoxLayout(this);
  info_ = new QLabel;
  info_->setWordWrap(true);
  v->addWidget(info_);
  model_ = new HistoryModel(this);
  table_ = new QTableView;
  table_->setObjectName("historyTable");
  table_->setModel(model_);
  setup_table_view(table_);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  v->addWidget(table_, 1);
  auto* buttons = new QHBoxLayout;
  auto add = [&](const char* text, const char* name, auto slot) {
    auto* b = new QPushButton(text);
    b->setObjectName(name);
    connect(b, &QPushButton::clicked, this, slot);
    buttons->addWidget(b);
    return b;
  };
  add("Open", "historyOpen", [this] {
    if (!selectedPath().isEmpty()) emit openRequested(selectedPath());
  });
  add("Compare the two selected", "historyCompare", [this] { compareSelected(); });
  add("Rename…", "historyRename", [this] { askRename(); });
  add("Note…", "historyNote", [this] { askNote(); });
  add("Delete", "historyDelete", [this] {
    QString error;
    if (!deleteSelected(&error) && !error.isEmpty())
      QMessageBox::warning(this, "Delete runs", error);
  });
  add("Trash…", "historyTrash", [this] { showTrash(); });
  add("Import…", "historyImport", [this] { askImport(); });
  add("Reveal folder", "historyReveal", [this] { reveal(); });
  add("Refresh", "historyRefresh", [this] { refresh(); });
  buttons->addStretch();
  v->addLayout(buttons);
  // A right click on a run: what the buttons do to it.
  table_->setContextMenuPolicy(Qt::ActionsContextMenu);
  const auto menu = [this](const QString& text, auto slot) {
    auto* a = new QAction(text, table_);
    connect(a, &QAction::triggered, this, slot);
    table_->addAction(a);
  };
  menu("Open", [this] {
    if (!selectedPath().isEmpty()) emit openRequested(selectedPath());
  });
  menu("Rename…", [this] { askRename(); });
  menu("Note…", [this] { askNote(); });
  connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    if (const HistoryEntry* e = model_->entry(index.row())) emit openRequested(e->path);
  });
  auto* del = new QShortcut(QKeySequence::Delete, table_);
  del->setContext(Qt::WidgetShortcut);
  connect(del, &QShortcut::activated, this, [this] { deleteSelected(); });
  auto* undo = new QShortcut(QKeySequence::Undo, this);
  undo->setContext(Qt::WidgetWithChildrenShortcut);
  connect(undo, &QShortcut::activated, this, [this] { undoDelete(); });
  connect(&watcher_, &QFutureWatcher<Listing>::finished, this, [this] {
    if (watcher_.property("generation").toInt() == generation_) {
      Listing l = watcher_.result();
      showEntries(std::move(l.entries), l.skipped);
    }
    emit loaded();
  });
  info_->setText("Loading the run history…");
  loadInBackground();
}

HistoryPage::~HistoryPage() {
  waitForBackground();
}

void HistoryPage::showEntries(std::vector<HistoryEntry> entries, const QStringList& skipped) {
  QString keep = selectedPath();
  model_->setEntries(std::move(entries));
  QString text = QString("%1 run(s) in %2").arg(model_->rowCount()).arg(history_->dir());
  if (!skipped.isEmpty()) text += "\nNot runs (skipped): " + skipped.join(", ");
  if (!last_deleted_.isEmpty())
    text += QString(
                "\nDeleted %1 run(s) to the trash: Ctrl+Z brings them back, Trash… lists "
                "every deleted run.")
                .arg(last_deleted_.size());
  info_->setText(text);
  if (!keep.isEmpty()) selectPath(keep);
}

void HistoryPage::refresh() {
  ++generation_;
  QStringList skipped;
  auto entries = history_->list(&skipped);
  showEntries(std::move(entries), skipped);
}

void HistoryPage::loadInBackground() {
  watcher_.setProperty("generation", ++generation_);
  RunHistory* history = history_;
  watcher_.setFuture(QtConcurrent::run([history] {
    Listing l;
    l.entries = history->list(&l.skipped);
    return l;
  }));
}

const std::vector<HistoryEntry>& HistoryPage::entries() const {
  return model_->entries();
}

void HistoryPage::selectPath(const QString& path) {
  int row = model_->rowOfPath(path);
  if (row < 0) return;
  // Exactly this row, whatever keys are held (selectRow toggles with Ctrl).
  const QModelIndex index = model_->index(row, 0);
  table_->selectionModel()->setCurrentIndex(
      index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  table_->scrollTo(index);
}

QStringList HistoryPage::selectedPaths() const {
  QModelIndexList rows = table_->selectionModel()->selectedRows();
  std::sort(rows.begin(), rows.end(),
            [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
  QStringList out;
  for (const auto& r : rows)
    if (const HistoryEntry* e = model_->entry(r.row())) out << e->path;
  return out;
}

void HistoryPage::compareSelected() {
  QModelIndexList rows = table_->selectionModel()->selectedRows();
  if (rows.size() != 2) return;
  const HistoryEntry* a = model_->entry(rows[0].row());
  const HistoryEntry* b = model_->entry(rows[1].row());
  if (!a || !b) return;
  // The older run is "old", whatever order the table shows or the rows were picked in.
  if (std::tie(b->started, b->name) < std::tie(a->started, a->name)) std::swap(a, b);
  emit compareRequested(a->path, b->path);
}

QString HistoryPage::selectedPath() const {
  QStringList p = selectedPaths();
  return p.isEmpty() ? QString() : p.front();
}

bool HistoryPage::change(const std::function<QString()>& apply, QString* error) {
  bool ok = true;
  QString select;
  try {
    select = apply();
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    ok = false;
  }
  refresh();  // also after a failure: part of a change may have been made
  if (!select.isEmpty()) selectPath(select);
  return ok;
}

bool HistoryPage::renameSelected(const QString& new_name, QString* error) {
  QString path = selectedPath();
  if (path.isEmpty()) return false;
  return change([&] { return history_->rename(path, new_name); }, error);
}

bool HistoryPage::setNote(const QString& path, const QString& note, QString* error) {
  const bool ok = change(
      [&] {
        history_->set_note(path, note);
        return path;
      },
      error);
  if (ok) emit noteChanged(path, note.trimmed());
  return ok;
}

bool HistoryPage::setNoteOfSelected(const QString& note, QString* error) {
  const QString path = selectedPath();
  return !path.isEmpty() && setNote(path, note, error);
}

bool HistoryPage::deleteSelected(QString* error) {
  QStringList paths = selectedPaths();
  if (paths.isEmpty()) return false;
  last_deleted_.clear();
  return change(
      [&] {
        for (const auto& p : paths) last_deleted_ << history_->remove(p);
        return QString();
      },
      error);
}

bool HistoryPage::restore(const QStringList& trash_paths, QString* error) {
  if (trash_paths.isEmpty()) return false;
  return change(
      [&] {
        QString first;
        for (const auto& p : trash_paths) {
          QString back = history_->restore(p);
          last_deleted_.removeAll(p);
          if (first.isEmpty()) first = back;
        }
        return first;
      },
      error);
}

bool HistoryPage::undoDelete(QString* error) {
  return restore(QStringList(last_deleted_), error);
}

bool HistoryPage::importFile(const QString& path, QString* error) {
  return change([&] { return history_->import_file(path); }, error);
}

void HistoryPage::askRename() {
  QString path = selectedPath();
  if (path.isEmpty()) return;
  bool ok = false;
  QString name = QInputDialog::getText(this, "Rename run", "New name:", QLineEdit::Normal,
                                       QFileInfo(path).completeBaseName(), &ok);
  if (!ok) return;
  QString error;
  if (!renameSelected(name, &error)) QMessageBox::warning(this, "Rename run", error);
}

void HistoryPage::askNote() {
  const HistoryEntry* e = model_->entry(model_->rowOfPath(selectedPath()));
  if (!e) return;
  bool ok = false;
  const QString note = QInputDialog::getMultiLineText(
      this, "Note", QString("A note of your own on %1 (empty removes it):").arg(e->name), e->note,
      &ok);
  QString error;
  if (ok && !setNoteOfSelected(note, &error)) QMessageBox::warning(this, "Note", error);
}

void HistoryPage::showTrash() {
  QDialog dialog(this);
  dialog.setWindowTitle("Deleted runs");
  auto* v = new QVBoxLayout(&dialog);
  v->addWidget(
      new QLabel("Runs deleted from the history, most recent first. Restore puts them "
                 "back under their name."));
  auto* list = new QListWidget;
  list->setObjectName("trashList");
  list->setSelectionMode(QAbstractItemView::ExtendedSelection);
  for (const auto& e : history_->trashed()) {
    auto* item = new QListWidgetItem(
        QString("%1 — %2 — %3 (%4)")
            .arg(e.name, e.experiment, e.started.toString("yyyy-MM-dd HH:mm"), e.status));
    item->setData(Qt::UserRole, e.path);
    list->addItem(item);
  }
  if (list->count() == 0) list->addItem("The trash is empty.");
  v->addWidget(list, 1);
  auto* bb = new QDialogButtonBox(QDialogButtonBox::Close);
  auto* restore_button = bb->addButton("Restore", QDialogButtonBox::AcceptRole);
  restore_button->setEnabled(false);
  connect(list, &QListWidget::itemSelectionChanged, &dialog, [list, restore_button] {
    restore_button->setEnabled(!list->selectedItems().isEmpty() &&
                               list->selectedItems().front()->data(Qt::UserRole).isValid());
  });
  connect(bb, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(bb, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  v->addWidget(bb);
  dialog.resize(640, 360);
  if (dialog.exec() != QDialog::Accepted) return;
  QStringList paths;
  for (auto* item : list->selectedItems()) paths << item->data(Qt::UserRole).toString();
  QString error;
  if (!restore(paths, &error)) QMessageBox::warning(this, "Restore runs", error);
}

void HistoryPage::askImport() {
  QString path = QFileDialog::getOpenFileName(this, "Import a run file", QDir::homePath(),
                                              "Perflab runs (*.json)");
  if (path.isEmpty()) return;
  QString error;
  if (!importFile(path, &error)) QMessageBox::warning(this, "Import run", error);
}

void HistoryPage::reveal() {
  QDesktopServices::openUrl(QUrl::fromLocalFile(history_->dir()));
}

}  // namespace perflab::gui
