#pragma once
// The History tab: the runs of a RunHistory in a sortable table (a HistoryModel); open, compare
// two, rename, delete, import, reveal the folder.
#include <functional>
#include <vector>

#include <QWidget>

#include "run_history.h"

class QLabel;
class QTableView;

namespace perflab::gui {

class HistoryModel;

class HistoryPage : public QWidget {
  Q_OBJECT
 public:
  HistoryPage(RunHistory* history, QWidget* parent = nullptr);

  void refresh();
  const std::vector<HistoryEntry>& entries() const;  // newest first
  HistoryModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  // Row actions without dialogs (the buttons ask first, then call these).
  void selectPath(const QString& path);
  QString selectedPath() const;
  QStringList selectedPaths() const;  // in the order the table shows them
  bool renameSelected(const QString& new_name, QString* error = nullptr);
  bool deleteSelected(QString* error = nullptr);
  bool importFile(const QString& path, QString* error = nullptr);

 signals:
  void openRequested(const QString& path);
  void compareRequested(const QString& old_path, const QString& new_path);

 private:
  void askRename();
  void askDelete();
  void askImport();
  void reveal();
  void compareSelected();
  // Applies a change to the store (returns the file to select, or empty), then lists the runs
  // again; false with the reason when it throws.
  bool change(const std::function<QString()>& apply, QString* error);
  RunHistory* history_;
  HistoryModel* model_;
  QTableView* table_;
  QLabel* info_;
};

}  // namespace perflab::gui
