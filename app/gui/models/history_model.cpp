#include "models/history_model.h"

#include <QDir>
#include <QFileInfo>

#include "models/value_text.h"

namespace perflab::gui {

namespace {

QString path_key(const QString& path) {
  return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

QString cell_text(const HistoryEntry& e, int column) {
  switch (column) {
    case HistoryModel::NameColumn:
      return e.name;
    case HistoryModel::DateColumn:
      return e.started.toString("yyyy-MM-dd HH:mm:ss");
    case HistoryModel::ExperimentColumn:
      return e.experiment;
    case HistoryModel::StatusColumn:
      return e.status;
    case HistoryModel::DurationColumn:
      return e.duration_ms < 0 ? QString() : format_duration(e.duration_ms);
    case HistoryModel::ParamsColumn:
      return e.params;
    case HistoryModel::TargetsColumn:
      return e.targets;
    default:  // the person's note, then why the run failed or stopped
      return e.note.isEmpty() || e.message.isEmpty() ? e.note + e.message
                                                     : e.note + " — " + e.message;
  }
}

}  // namespace

HistoryModel::HistoryModel(QObject* parent)
    : SortedTableModel(
          {"Name", "Date", "Experiment", "Status", "Duration", "Parameters", "Targets", "Note"},
          parent) {}

void HistoryModel::setEntries(std::vector<HistoryEntry> entries) {
  beginResetModel();
  entries_ = std::move(entries);
  by_path_.clear();
  for (std::size_t i = 0; i < entries_.size(); ++i)
    by_path_.insert(path_key(entries_[i].path), static_cast<int>(i));
  setSourceRowCount(static_cast<int>(entries_.size()));
  endResetModel();
}

const HistoryEntry* HistoryModel::entry(int row) const {
  int s = sourceRow(row);
  return s < 0 ? nullptr : &entries_[static_cast<std::size_t>(s)];
}

int HistoryModel::rowOfPath(const QString& path) const {
  auto it = by_path_.constFind(path_key(path));
  return it == by_path_.cend() ? -1 : rowOfSource(it.value());
}

QVariant HistoryModel::cell(int source_row, int column, int role) const {
  const HistoryEntry& e = entries_[static_cast<std::size_t>(source_row)];
  switch (role) {
    case Qt::DisplayRole:
      return cell_text(e, column);
    case Qt::ToolTipRole:  // long targets and notes are cut in the view; the name tells the note
      return column == NameColumn && !e.note.isEmpty() ? e.name + "\n" + e.note
                                                       : cell_text(e, column);
    case ValueRole:
      if (column == DurationColumn) return QVariant::fromValue(e.duration_ms);
      return column == DateColumn ? QVariant(e.started) : QVariant(cell_text(e, column));
    case PathRole:
      return e.path;
    default:
      return {};
  }
}

bool HistoryModel::lessThan(int a, int b, int column) const {
  const HistoryEntry& x = entries_[static_cast<std::size_t>(a)];
  const HistoryEntry& y = entries_[static_cast<std::size_t>(b)];
  if (column == DateColumn) return x.started < y.started;
  if (column == DurationColumn) return x.duration_ms < y.duration_ms;
  return natural_less(cell_text(x, column).toStdString(), cell_text(y, column).toStdString());
}

}  // namespace perflab::gui
