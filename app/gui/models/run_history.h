#pragma once
// Run history, the store: every run saved atomically (perflab::save_run) as a JSON file in one
// folder (by default QStandardPaths::AppDataLocation/runs), listed with date, experiment, status,
// duration, key parameters and targets; load, rename, delete to a trash and restore, import.
//
// Listing does not read every run: a small summary index (".index.json" beside the runs) keeps
// each file's summary with its size and modification time; only files that are new or changed
// since are read (and the index is rebuilt when it is missing or unreadable). Saving, importing,
// renaming and deleting update the index from what they already know. Safe to use from a
// background thread and the UI thread at once. The page that shows it is HistoryPage.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
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
  QString note;             // the person's own (Run::note)
  qint64 duration_ms = -1;  // -1: unknown (not ended)
  QString params;           // the parameters that differ from the experiment's defaults
};

class RunHistory {
 public:
  // A run's parameters had it changed none (perflab::param_defaults, which the window passes):
  // the history lists what a run changed from them. None given: every parameter is listed.
  using ParamDefaults = std::function<std::map<std::string, std::string>(const Run&)>;
  explicit RunHistory(QString dir, ParamDefaults defaults = {});
  ~RunHistory();
  const QString& dir() const { return dir_; }
  QString trashDir() const;
  static QString default_dir();
  static constexpr const char* kIndexName = ".index.json";

  // Newest first. Files that are not readable runs are skipped; their names go to `skipped`.
  std::vector<HistoryEntry> list(QStringList* skipped = nullptr) const;
  // Saves atomically under a new name "<yyyyMMdd-HHmmss>-<experiment>[-n].json"; returns the path.
  QString save(const Run& run) const;
  Run load(const QString& path) const;  // throws RunFormatError
  // A run to show in the window: load(), and a run that finished must have measured something
  // (check_measured); a failed or stopped one without points opens for its message.
  static Run loadToShow(const QString& path);
  // Sets the person's note of a saved run (Run::note; empty removes it), the file rewritten
  // atomically. Throws RunFormatError, or std::runtime_error when it cannot be written.
  void set_note(const QString& path, const QString& note) const;
  // New name: letters, digits, space, '.', '_' and '-'; not taken. Returns the new path.
  // Throws std::runtime_error with the reason.
  QString rename(const QString& path, const QString& new_name) const;
  // Moves the run to the trash (restorable); returns its path there. Throws std::runtime_error.
  QString remove(const QString& path) const;
  // Runs in the trash, most recently deleted first.
  std::vector<HistoryEntry> trashed() const;
  // Moves a run from the trash back (under its name, or a free one); returns its path.
  QString restore(const QString& trash_path) const;
  // Validates the file as a run, then copies it into the history byte for byte, under its own
  // name (or a free one like it). Throws RunFormatError.
  QString import_file(const QString& path) const;

  // The summary of a run as the history lists it (path and name from `path`).
  HistoryEntry summarize(const Run& run, const QString& path) const;

 private:
  struct Index;
  QString unique_path(const QString& dir, const QString& base) const;
  void remember(const QString& path, const HistoryEntry& e) const;  // into the index
  void forget(const QString& path) const;
  QString dir_;
  ParamDefaults defaults_;
  mutable std::mutex mu_;  // the index file
};

}  // namespace perflab::gui
