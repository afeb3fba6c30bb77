#pragma once
// Run history: every run saved atomically (perflab::save_run) as a JSON file in one folder
// (by default QStandardPaths::AppDataLocation/runs), listed with date, experiment, status and
// targets; open, rename, delete, import, reveal the folder.
#include <vector>

#include <QDateTime>
#include <QString>
#include <QWidget>

#include "common/run.h"

class QTableWidget;
class QLabel;

namespace perflab::gui {

struct HistoryEntry {
  QString path;
  QString name;  // file name without .json: what rename changes
  QDateTime started;
  QString experiment, title, status, targets, message;
};

class RunHistory {
 public:
  explicit RunHistory(QString dir);
  const QString& dir() const { return dir_; }
  static QString default_dir();

  // Newest first. Files that are not readable runs are skipped; their names go to `skipped`.
  std::vector<HistoryEntry> list(QStringList* skipped = nullptr) const;
  // Saves atomically under a new name "<yyyyMMdd-HHmmss>-<experiment>[-n].json"; returns the path.
  QString save(const Run& run) const;
  Run load(const QString& path) const;  // throws RunFormatError
  // New name: letters, digits, space, '.', '_' and '-'; not taken. Returns the new path.
  // Throws std::runtime_error with the reason.
  QString rename(const QString& path, const QString& new_name) const;
  void remove(const QString& path) const;  // throws std::runtime_error
  // Validates the file as a run, then saves a copy into the history. Throws RunFormatError.
  QString import_file(const QString& path) const;

 private:
  QString unique_path(const QString& base) const;
  QString dir_;
};

class HistoryPage : public QWidget {
  Q_OBJECT
 public:
  HistoryPage(RunHistory* history, QWidget* parent = nullptr);

  void refresh();
  const std::vector<HistoryEntry>& entries() const { return entries_; }
  QTableWidget* table() const { return table_; }
  // Row actions without dialogs (the buttons ask first, then call these).
  void selectPath(const QString& path);
  QString selectedPath() const;
  QStringList selectedPaths() const;
  bool renameSelected(const QString& new_name, QString* error = nullptr);
  bool deleteSelected(QString* error = nullptr);
  bool importFile(const QString& path, QString* error = nullptr);

 signals:
  void openRequested(const QString& path);
  void compareRequested(const QString& old_path, const QString& new_path);
  void changed();  // entries added, renamed or deleted

 private:
  void askRename();
  void askDelete();
  void askImport();
  void reveal();
  RunHistory* history_;
  std::vector<HistoryEntry> entries_;
  QTableWidget* table_;
  QLabel* info_;
};

}  // namespace perflab::gui
