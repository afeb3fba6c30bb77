#pragma once
// The runs of the history as a table: name, date, experiment, status, duration, the parameters
// changed from the defaults, targets, note. It holds
// the entries as RunHistory lists them (newest first) and finds the row of a file by a hash.
#include <vector>

#include <QHash>

#include "models/run_history.h"
#include "models/sorted_table_model.h"

namespace perflab::gui {

class HistoryModel : public SortedTableModel {
  Q_OBJECT
 public:
  enum Column {
    NameColumn,
    DateColumn,
    ExperimentColumn,
    StatusColumn,
    DurationColumn,
    ParamsColumn,
    TargetsColumn,
    NoteColumn,
    ColumnCount
  };
  // Every cell also answers the run file's path.
  enum Role { PathRole = FirstModelRole };

  explicit HistoryModel(QObject* parent = nullptr);

  void setEntries(std::vector<HistoryEntry> entries);  // keeps the sort
  // In the order given to setEntries (RunHistory: newest first), whatever the sort.
  const std::vector<HistoryEntry>& entries() const { return entries_; }
  const HistoryEntry* entry(int row) const;  // at a view row; nullptr when out of range
  int rowOfPath(const QString& path) const;  // -1 when the file is not listed

 private:
  QVariant cell(int source_row, int column, int role) const override;
  bool lessThan(int a, int b, int column) const override;

  std::vector<HistoryEntry> entries_;
  QHash<QString, int> by_path_;  // absolute clean path -> source row
};

}  // namespace perflab::gui
