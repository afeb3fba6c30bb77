#pragma once
// The History tab: the runs of a RunHistory in a table; open, compare two, rename, delete,
// import, reveal the folder.
#include <vector>

#include <QWidget>

#include "run_history.h"

class QTableWidget;
class QLabel;

namespace perflab::gui {

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
