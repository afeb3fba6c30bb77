#pragma once
// Run history, the store: every run saved atomically (perflab::save_run) as a JSON file in one
// folder (by default QStandardPaths::AppDataLocation/runs), listed with date, experiment, status
// and targets; load, rename, delete, import. The page that shows it is HistoryPage.
#include <vector>

#include <QDateTime>
#include <QString>

#include "common/run.h"

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

}  // namespace perflab::gui
