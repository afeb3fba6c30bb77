#include "run_history.h"

#include <algorithm>
#include <stdexcept>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

#include "common/run_io.h"
#include "registry.h"

namespace perflab::gui {

namespace {

std::filesystem::path fs(const QString& p) {
  return std::filesystem::path(p.toStdString());
}

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

QString targets_text(const Run& run) {
  QStringList t;
  for (const auto& x : run.targets)
    t << QString("%1%2 %3").arg(q(x.kind), x.managed ? " (managed)" : "", q(x.address));
  return t.join("; ");
}

// The parameters a run changed from its experiment's defaults ("writers=1,10; repetitions=5"),
// or "defaults".
QString key_params(const Run& run) {
  const auto exp = make_experiment(run.experiment);
  QStringList out;
  for (const auto& [k, v] : run.params) {
    bool is_default = false;
    if (exp)
      for (const auto& spec : exp->params())
        if (spec.name == k) {
          try {
            is_default = validate_param(spec, spec.default_value) == v;
          } catch (const std::exception&) {
          }
        }
    if (!is_default) out << q(k) + "=" + q(v);
  }
  return out.isEmpty() ? QStringLiteral("defaults") : out.join("; ");
}

bool newest_first(const HistoryEntry& a, const HistoryEntry& b) {
  return a.started != b.started ? a.started > b.started : a.name > b.name;
}

// ---- the summary index: file name -> {size, mtime, run, summary} ----

QJsonObject to_json(const HistoryEntry& e, const QFileInfo& fi) {
  return {{"size", fi.size()},
          {"mtime", fi.lastModified().toMSecsSinceEpoch()},
          {"run", true},
          {"started", e.started.toMSecsSinceEpoch()},
          {"experiment", e.experiment},
          {"title", e.title},
          {"status", e.status},
          {"targets", e.targets},
          {"message", e.message},
          {"duration_ms", e.duration_ms},
          {"params", e.params}};
}

HistoryEntry from_json(const QJsonObject& o, const QFileInfo& fi) {
  HistoryEntry e;
  e.path = fi.filePath();
  e.name = fi.completeBaseName();
  e.started = QDateTime::fromMSecsSinceEpoch(o["started"].toInteger());
  e.experiment = o["experiment"].toString();
  e.title = o["title"].toString();
  e.status = o["status"].toString();
  e.targets = o["targets"].toString();
  e.message = o["message"].toString();
  e.duration_ms = o["duration_ms"].toInteger(-1);
  e.params = o["params"].toString();
  return e;
}

bool current(const QJsonObject& o, const QFileInfo& fi) {
  return o["size"].toInteger(-1) == fi.size() &&
         o["mtime"].toInteger(-1) == fi.lastModified().toMSecsSinceEpoch();
}

QJsonObject not_a_run(const QFileInfo& fi) {
  return {{"size", fi.size()}, {"mtime", fi.lastModified().toMSecsSinceEpoch()}, {"run", false}};
}

QString index_path(const QString& dir) {
  return QDir(dir).filePath(RunHistory::kIndexName);
}

QJsonObject read_index(const QString& dir) {
  QFile f(index_path(dir));
  if (!f.open(QIODevice::ReadOnly)) return {};
  const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
  return doc.isObject() && doc.object()["version"].toInt() == 1 ? doc.object()["files"].toObject()
                                                                : QJsonObject{};
}

// Best effort: an index that cannot be written is rebuilt on the next listing.
void write_index(const QString& dir, const QJsonObject& files) {
  QSaveFile f(index_path(dir));
  if (!f.open(QIODevice::WriteOnly)) return;
  f.write(
      QJsonDocument(QJsonObject{{"version", 1}, {"files", files}}).toJson(QJsonDocument::Compact));
  f.commit();
}

// A file name from any text: the characters rename accepts, never hidden.
QString safe_base(QString base) {
  static const QRegularExpression bad("[^A-Za-z0-9 ._-]");
  base.replace(bad, "_");
  while (base.startsWith('.')) base.remove(0, 1);
  return base.trimmed().isEmpty() ? QStringLiteral("run") : base.trimmed();
}

}  // namespace

RunHistory::RunHistory(QString dir) : dir_(std::move(dir)) {
  QDir().mkpath(dir_);
}

RunHistory::~RunHistory() = default;

QString RunHistory::default_dir() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/runs";
}

QString RunHistory::trashDir() const {
  return QDir(dir_).filePath(".trash");
}

HistoryEntry RunHistory::summarize(const Run& run, const QString& path) {
  HistoryEntry e;
  e.path = path;
  e.name = QFileInfo(path).completeBaseName();
  e.started = QDateTime::fromMSecsSinceEpoch(run.started_unix_ms);
  e.experiment = q(run.experiment);
  e.title = q(run.title);
  e.status = QString::fromLatin1(to_string(run.status));
  e.targets = targets_text(run);
  e.message = q(run.message);
  e.duration_ms = run.ended_unix_ms >= run.started_unix_ms && run.ended_unix_ms > 0
                      ? run.ended_unix_ms - run.started_unix_ms
                      : -1;
  e.params = key_params(run);
  return e;
}

std::vector<HistoryEntry> RunHistory::list(QStringList* skipped) const {
  QJsonObject index;
  {
    std::lock_guard lock(mu_);
    index = read_index(dir_);
  }
  // Files new or changed since the index was written are read, without holding the lock.
  std::vector<HistoryEntry> out;
  QJsonObject fresh;  // what was read now
  const QFileInfoList files = QDir(dir_).entryInfoList({"*.json"}, QDir::Files);
  for (const QFileInfo& fi : files) {
    QJsonObject rec = index[fi.fileName()].toObject();
    if (rec.isEmpty() || !current(rec, fi)) {
      try {
        rec = to_json(summarize(load_run(fs(fi.filePath())), fi.filePath()), fi);
      } catch (const std::exception&) {
        rec = not_a_run(fi);
      }
      fresh[fi.fileName()] = rec;
    }
    if (rec["run"].toBool())
      out.push_back(from_json(rec, fi));
    else if (skipped)
      *skipped << fi.fileName();
  }
  if (!fresh.isEmpty() || index.size() != files.size()) {
    std::lock_guard lock(mu_);
    QJsonObject now = read_index(dir_);  // another thread may have added to it meanwhile
    for (auto it = fresh.begin(); it != fresh.end(); ++it) now[it.key()] = it.value();
    for (const QString& name : now.keys())
      if (!QFileInfo::exists(QDir(dir_).filePath(name))) now.remove(name);
    write_index(dir_, now);
  }
  std::stable_sort(out.begin(), out.end(), newest_first);
  return out;
}

void RunHistory::remember(const QString& path, const HistoryEntry& e) const {
  std::lock_guard lock(mu_);
  QJsonObject index = read_index(dir_);
  index[QFileInfo(path).fileName()] = to_json(e, QFileInfo(path));
  write_index(dir_, index);
}

void RunHistory::forget(const QString& path) const {
  std::lock_guard lock(mu_);
  QJsonObject index = read_index(dir_);
  index.remove(QFileInfo(path).fileName());
  write_index(dir_, index);
}

QString RunHistory::unique_path(const QString& dir, const QString& base) const {
  QString path = QDir(dir).filePath(base + ".json");
  for (int n = 2; QFileInfo::exists(path); ++n)
    path = QDir(dir).filePath(QString("%1-%2.json").arg(base).arg(n));
  return path;
}

QString RunHistory::save(const Run& run) const {
  QDir().mkpath(dir_);
  QDateTime when =
      QDateTime::fromMSecsSinceEpoch(run.started_unix_ms > 0 ? run.started_unix_ms : unix_ms_now());
  QString exp = q(run.experiment).replace(QRegularExpression("[^A-Za-z0-9_-]"), "_");
  QString path =
      unique_path(dir_, when.toString("yyyyMMdd-HHmmss") + "-" + (exp.isEmpty() ? "run" : exp));
  save_run(run, fs(path));
  remember(path, summarize(run, path));
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
  std::lock_guard lock(mu_);
  QJsonObject index = read_index(dir_);
  const QString from = QFileInfo(path).fileName();
  if (index.contains(from)) {
    index[QFileInfo(target).fileName()] = index[from];
    index.remove(from);
    write_index(dir_, index);
  }
  return target;
}

QString RunHistory::remove(const QString& path) const {
  QDir().mkpath(trashDir());
  const QString target = unique_path(trashDir(), QFileInfo(path).completeBaseName());
  if (!QFileInfo(path).isFile() || !QFile::rename(path, target))
    throw std::runtime_error("cannot delete '" + path.toStdString() + "'");
  forget(path);
  return target;
}

std::vector<HistoryEntry> RunHistory::trashed() const {
  std::vector<std::pair<QDateTime, HistoryEntry>> found;
  for (const QFileInfo& fi : QDir(trashDir()).entryInfoList({"*.json"}, QDir::Files)) {
    try {
      found.emplace_back(fi.metadataChangeTime(),
                         summarize(load_run(fs(fi.filePath())), fi.filePath()));
    } catch (const std::exception&) {
      // Not a run: not offered for restoring.
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<HistoryEntry> out;
  for (auto& [when, e] : found) out.push_back(std::move(e));
  return out;
}

QString RunHistory::restore(const QString& trash_path) const {
  const Run run = load_run(fs(trash_path));  // a run, or RunFormatError
  const QString target = unique_path(dir_, QFileInfo(trash_path).completeBaseName());
  if (!QFile::rename(trash_path, target))
    throw std::runtime_error("cannot restore '" + trash_path.toStdString() + "'");
  remember(target, summarize(run, target));
  return target;
}

QString RunHistory::import_file(const QString& path) const {
  const Run run = load_run(fs(path));  // validates; throws RunFormatError
  QFile in(path);
  if (!in.open(QIODevice::ReadOnly))
    throw std::runtime_error("cannot read '" + path.toStdString() + "'");
  const QByteArray bytes = in.readAll();
  QDir().mkpath(dir_);
  const QString target = unique_path(dir_, safe_base(QFileInfo(path).completeBaseName()));
  write_file_atomically(fs(target), bytes.toStdString());
  remember(target, summarize(run, target));
  return target;
}

}  // namespace perflab::gui
