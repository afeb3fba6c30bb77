#include "history_page.h"

#include <algorithm>
#include <functional>
#include <tuple>

#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

#include "history_model.h"

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
  add("Delete…", "historyDelete", [this] { askDelete(); });
  add("Import…", "historyImport", [this] { askImport(); });
  add("Reveal folder", "historyReveal", [this] { reveal(); });
  add("Refresh", "historyRefresh", [this] { refresh(); });
  buttons->addStretch();
  v->addLayout(buttons);
  connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    if (const HistoryEntry* e = model_->entry(index.row())) emit openRequested(e->path);
  });
  refresh();
}

void HistoryPage::refresh() {
  QStringList skipped;
  QString keep = selectedPath();
  model_->setEntries(history_->list(&skipped));
  QString text = QString("%1 run(s) in %2").arg(model_->rowCount()).arg(history_->dir());
  if (!skipped.isEmpty()) text += "\nNot runs (skipped): " + skipped.join(", ");
  info_->setText(text);
  if (!keep.isEmpty()) selectPath(keep);
}

const std::vector<HistoryEntry>& HistoryPage::entries() const {
  return model_->entries();
}

void HistoryPage::selectPath(const QString& path) {
  int row = model_->rowOfPath(path);
  if (row < 0) return;
  table_->selectRow(row);
  table_->scrollTo(model_->index(row, 0));
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

bool HistoryPage::deleteSelected(QString* error) {
  QStringList paths = selectedPaths();
  if (paths.isEmpty()) return false;
  return change(
      [&] {
        for (const auto& p : paths) history_->remove(p);
        return QString();
      },
      error);
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

void HistoryPage::askDelete() {
  QStringList paths = selectedPaths();
  if (paths.isEmpty()) return;
  if (QMessageBox::question(
          this, "Delete runs",
          QString("Delete %1 run file(s)? This cannot be undone.").arg(paths.size())) !=
      QMessageBox::Yes)
    return;
  QString error;
  if (!deleteSelected(&error) && !error.isEmpty()) QMessageBox::warning(this, "Delete runs", error);
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
