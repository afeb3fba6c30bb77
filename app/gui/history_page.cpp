#include "history_page.h"

#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace perflab::gui {

HistoryPage::HistoryPage(RunHistory* history, QWidget* parent)
    : QWidget(parent), history_(history) {
  auto* v = new QVBoxLayout(this);
  info_ = new QLabel;
  info_->setWordWrap(true);
  v->addWidget(info_);
  table_ = new QTableWidget(0, 6);
  table_->setObjectName("historyTable");
  table_->setHorizontalHeaderLabels({"Name", "Date", "Experiment", "Status", "Targets", "Note"});
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
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
  add("Compare the two selected", "historyCompare", [this] {
    QStringList p = selectedPaths();
    if (p.size() == 2) emit compareRequested(p[1], p[0]);  // older first (list is newest first)
  });
  add("Rename…", "historyRename", [this] { askRename(); });
  add("Delete…", "historyDelete", [this] { askDelete(); });
  add("Import…", "historyImport", [this] { askImport(); });
  add("Reveal folder", "historyReveal", [this] { reveal(); });
  add("Refresh", "historyRefresh", [this] { refresh(); });
  buttons->addStretch();
  v->addLayout(buttons);
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    if (row >= 0 && row < int(entries_.size())) emit openRequested(entries_[row].path);
  });
  refresh();
}

void HistoryPage::refresh() {
  QStringList skipped;
  QString keep = selectedPath();
  entries_ = history_->list(&skipped);
  table_->setRowCount(0);
  for (int row = 0; row < int(entries_.size()); ++row) {
    const auto& e = entries_[row];
    table_->insertRow(row);
    QStringList cells = {e.name,       e.started.toString("yyyy-MM-dd HH:mm:ss"),
                         e.experiment, e.status,
                         e.targets,    e.message};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      item->setToolTip(cells[c]);
      table_->setItem(row, c, item);
    }
  }
  QString text = QString("%1 run(s) in %2").arg(entries_.size()).arg(history_->dir());
  if (!skipped.isEmpty()) text += "\nNot runs (skipped): " + skipped.join(", ");
  info_->setText(text);
  if (!keep.isEmpty()) selectPath(keep);
}

void HistoryPage::selectPath(const QString& path) {
  for (int row = 0; row < int(entries_.size()); ++row)
    if (QFileInfo(entries_[row].path) == QFileInfo(path)) {
      table_->selectRow(row);
      return;
    }
}

QStringList HistoryPage::selectedPaths() const {
  QStringList out;
  for (const auto& r : table_->selectionModel()->selectedRows())
    if (r.row() < int(entries_.size())) out << entries_[r.row()].path;
  return out;
}

QString HistoryPage::selectedPath() const {
  QStringList p = selectedPaths();
  return p.isEmpty() ? QString() : p.front();
}

bool HistoryPage::renameSelected(const QString& new_name, QString* error) {
  QString path = selectedPath();
  if (path.isEmpty()) return false;
  try {
    QString moved = history_->rename(path, new_name);
    refresh();
    selectPath(moved);
    emit changed();
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

bool HistoryPage::deleteSelected(QString* error) {
  QStringList paths = selectedPaths();
  if (paths.isEmpty()) return false;
  try {
    for (const auto& p : paths) history_->remove(p);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    refresh();
    return false;
  }
  refresh();
  emit changed();
  return true;
}

bool HistoryPage::importFile(const QString& path, QString* error) {
  try {
    QString saved = history_->import_file(path);
    refresh();
    selectPath(saved);
    emit changed();
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
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
