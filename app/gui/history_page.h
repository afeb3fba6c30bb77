#pragma once
// The History tab: the runs of a RunHistory in a sortable table (a HistoryModel); open, compare
// two, rename, delete (Delete key; to a trash, undone by Ctrl+Z or restored from the trash),
// import, reveal the folder. The list loads in a background thread at start-up.
#include <functional>
#include <vector>

#include <QFutureWatcher>
#include <QWidget>

#include "models/run_history.h"

class QLabel;
class QTableView;

namespace perflab::gui {

class HistoryModel;

class HistoryPage : public QWidget {
  Q_OBJECT
 public:
  HistoryPage(RunHistory* history, QWidget* parent = nullptr);
  ~HistoryPage() override;
  // Waits for a background listing (it uses the store): before the store goes.
  void waitForBackground() { watcher_.waitForFinished(); }

  // Lists the runs again now (cheap: the store reads only new or changed files).
  void refresh();
  // Lists the runs in a background thread; loaded() follows. A refresh() meanwhile wins.
  void loadInBackground();
  bool loading() const { return watcher_.isRunning(); }
  const std::vector<HistoryEntry>& entries() const;  // newest first
  HistoryModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  // Row actions without dialogs (the buttons ask first, then call these).
  void selectPath(const QString& path);
  QString selectedPath() const;
  QStringList selectedPaths() const;  // in the order the table shows them
  bool renameSelected(const QString& new_name, QString* error = nullptr);
  // The person's note of a run (empty removes it), saved into its file; noteChanged follows.
  bool setNote(const QString& path, const QString& note, QString* error = nullptr);
  bool setNoteOfSelected(const QString& note, QString* error = nullptr);
  bool deleteSelected(QString* error = nullptr);  // to the trash
  bool undoDelete(QString* error = nullptr);      // restores what the last delete removed
  bool restore(const QStringList& trash_paths, QString* error = nullptr);
  bool importFile(const QString& path, QString* error = nullptr);

 signals:
  void openRequested(const QString& path);
  void compareRequested(const QString& old_path, const QString& new_path);
  void noteChanged(const QString& path, const QString& note);
  void loaded();

 private:
  void askRename();
  void askNote();
  void showTrash();
  void askImport();
  void reveal();
  void compareSelected();
  // Applies a change to the store (returns the file to select, or empty), then lists the runs
  // again; false with the reason when it throws.
  bool change(const std::function<QString()>& apply, QString* error);
  void showEntries(std::vector<HistoryEntry> entries, const QStringList& skipped);
  RunHistory* history_;
  HistoryModel* model_;
  QTableView* table_;
  QLabel* info_;
  QStringList last_deleted_;  // their paths in the trash
  int generation_ = 0;        // of the listing on show: a stale background listing is dropped
  struct Listing {
    std::vector<HistoryEntry> entries;
    QStringList skipped;
  };
  QFutureWatcher<Listing> watcher_;
};

}  // namespace perflab::gui
