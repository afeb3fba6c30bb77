#include "run_history.h"

#include <stdexcept>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

#include "common/run_io.h"

namespace perflab::gui {

namespace {

std::filesystem::path fs(const QString& p) {
  return std::filesystem::path(p.toStdString());
}

QString targets_text(const Run& run) {
  QStringList t;
  for (const auto& x : run.targets)
    t << QString("%1%2 %3").arg(QString::fromStdString(x.kind), x.managed ? " (managed)" : "",
                                QString::fromStdString(x.address));
  return t.join("; ");
}

}  // namespace

RunHistory::RunHistory(QString dir) : dir_(std::move(dir)) {
  QDir().mkpath(dir_);
}

QString RunHistory::default_dir() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/runs";
}

std::vector<HistoryEntry> RunHistory::list(QStringList* skipped) const {
  std::vector<HistoryEntry> out;
  QDir d(dir_);
  for (const QFileInfo& fi : d.entryInfoList({"*.json"}, QDir::Files)) {
    try {
      Run r = load_run(fs(fi.filePath()));
      HistoryEntry e;
      e.path = fi.filePath();
      e.name = fi.completeBaseName();
      e.started = QDateTime::fromMSecsSinceEpoch(r.started_unix_ms);
      e.experiment = QString::fromStdString(r.experiment);
      e.title = QString::fromStdString(r.title);
      e.status = QString::fromLatin1(to_string(r.status));
      e.targets = targets_text(r);
      e.message = QString::fromStdString(r.message);
      out.push_back(std::move(e));
    } catch (const std::exception&) {
      if (skipped) *skipped << fi.fileName();
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const HistoryEntry& a, const HistoryEntry& b) {
    return a.started != b.started ? a.started > b.started : a.name > b.name;
  });
  return out;
}

QString RunHistory::unique_path(const QString& base) const {
  QString path = QDir(dir_).filePath(base + ".json");
  for (int n = 2; QFileInfo::exists(path); ++n)
    path = QDir(dir_).filePath(QString("%1-%2.json").arg(base).arg(n));
  return path;
}

QString RunHistory::save(const Run& run) const {
  QDir().mkpath(dir_);
  QDateTime when =
      QDateTime::fromMSecsSinceEpoch(run.started_unix_ms > 0 ? run.started_unix_ms : unix_ms_now());
  QString exp =
      QString::fromStdString(run.experiment).replace(QRegularExpression("[^A-Za-z0-9_-]"), "_");
  QString path =
      unique_path(when.toString("yyyyMMdd-HHmmss") + "-" + (exp.isEmpty() ? "run" : exp));
  save_run(run, fs(path));
  return path;
}

Run RunHistory::load(const QString& path) const {
  return load_run(fs(path));
}

QString RunHistory::rename(const QString& path, const QString& new_name) const {
  QString name = new_name.trimmed();
  if (name.endsWith(".json", Qt::CaseInsensitive)) name.chop(5);
  static const QRegularExpression ok("^[A-Za-z0-9 ._-]+$");
  if (name.isEmpty() || !ok.match(name).hasMatch() || name.startsWith('.'))
    throw std::runtime_error("a run name may hold letters, digits, spaces, '.', '_' and '-'");
  QString target = QDir(dir_).filePath(name + ".json");
  if (QFileInfo(target) == QFileInfo(path)) return path;
  if (QFileInfo::exists(target))
    throw std::runtime_error("a run named '" + name.toStdString() + "' already exists");
  if (!QFile::rename(path, target))
    throw std::runtime_error("cannot rename '" + path.toStdString() + "'");
  return target;
}

void RunHistory::remove(const QString& path) const {
  if (!QFile::remove(path)) throw std::runtime_error("cannot delete '" + path.toStdString() + "'");
}

QString RunHistory::import_file(const QString& path) const {
  Run r = load_run(fs(path));  // validates; throws RunFormatError
  return save(r);
}

}  // namespace perflab::gui
