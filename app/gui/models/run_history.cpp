#include "models/run_history.h"

#include <algorithm>
#include <stdexcept>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>
#include <nlohmann/json.hpp>

#include "common/run_io.h"
#include "common/run_measured.h"
#include "qt_text/qt_text.h"

namespace perflab::gui {

namespace {

std::filesystem::path fs(const QString& p) {
  return std::filesystem::path(p.toStdString());
}

QString targets_text(const Run& run) {
  QStringList t;
  for (const auto& x : run.targets)
    t << QString("%1%2 %3").arg(q(x.kind), x.managed ? " (managed)" : "", q(x.address));
  return t.join("; ");
}

// The parameters a run changed from its defaults (ParamDefaults: "writers=1,10; repetitions=5"),
// or "defaults"; a run on a plan: the plan and what it changed from the plan's values
// ("plan=lecture; repetitions=5").
QString key_params(const Run& run, const RunHistory::ParamDefaults& defaults_of) {
  const std::map<std::string, std::string> defaults =
      defaults_of ? defaults_of(run) : std::map<std::string, std::string>{};
  QStringList out;
  for (const auto& [k, v] : run.params) {
    const auto d = defaults.find(k);
    if (d == defaults.end() || d->second != v) out << q(k) + "=" + q(v);
  }
  return out.isEmpty() ? QStringLiteral("defaults") : out.join("; ");
}

bool newest_first(const HistoryEntry& a, const HistoryEntry& b) {
  return a.started != b.started ? a.started > b.started : a.name > b.name;
}

// ---- the summary index: file name -> {size, mtime, run, summary} ----

using json = nlohmann::json;

std::string utf8(const QString& text) {
  return text.toStdString();
}

// A member of an index object as a string or a whole number; def (or empty) when it is absent
// or of another type: a damaged index reads as entries to refresh, never as an error.
QString text_of(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? q(it->get_ref<const std::string&>()) : QString();
}
qint64 integer_of(const json& o, const char* key, qint64 def = 0) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number_integer() ? it->get<qint64>() : def;
}
// The index's record of a file: an object, empty when there is none.
json record_of(const json& index, const QString& name) {
  const auto it = index.find(utf8(name));
  return it != index.end() && it->is_object() ? *it : json::object();
}

json to_json(const HistoryEntry& e, const QFileInfo& fi) {
  return {{"size", fi.size()},
          {"mtime", fi.lastModified().toMSecsSinceEpoch()},
          {"run", true},
          {"started", e.started.toMSecsSinceEpoch()},
          {"experiment", utf8(e.experiment)},
          {"title", utf8(e.title)},
          {"status", utf8(e.status)},
          {"targets", utf8(e.targets)},
          {"message", utf8(e.message)},
          {"note", utf8(e.note)},
          {"duration_ms", e.duration_ms},
          {"params", utf8(e.params)}};
}

HistoryEntry from_json(const json& o, const QFileInfo& fi) {
  HistoryEntry e;
  e.path = fi.filePath();
  e.name = fi.completeBaseName();
  e.started = QDateTime::fromMSecsSinceEpoch(integer_of(o, "started"));
  e.experiment = text_of(o, "experiment");
  e.title = text_of(o, "title");
  e.status = text_of(o, "status");
  e.targets = text_of(o, "targets");
  e.message = text_of(o, "message");
  e.note = text_of(o, "note");
  e.duration_ms = integer_of(o, "duration_ms", -1);
  e.params = text_of(o, "params");
  return e;
}

bool current(const json& o, const QFileInfo& fi) {
  return integer_of(o, "size", -1) == fi.size() &&
         integer_of(o, "mtime", -1) == fi.lastModified().toMSecsSinceEpoch();
}

json not_a_run(const QFileInfo& fi) {
  return {{"size", fi.size()}, {"mtime", fi.lastModified().toMSecsSinceEpoch()}, {"run", false}};
}

// 2: entries carry the run's note (an index of version 1 is rebuilt).
constexpr int kIndexVersion = 2;

QString index_path(const QString& dir) {
  return QDir(dir).filePath(RunHistory::kIndexName);
}

// The index's files (an object); empty when there is no index or it is damaged.
json read_index(const QString& dir) {
  QFile f(index_path(dir));
  if (!f.open(QIODevice::ReadOnly)) return json::object();
  const QByteArray text = f.readAll();
  const json doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (!doc.is_object() || integer_of(doc, "version") != kIndexVersion) return json::object();
  const auto files = doc.find("files");
  return files != doc.end() && files->is_object() ? *files : json::object();
}

// Best effort: an index that cannot be written is rebuilt on the next listing.
void write_index(const QString& dir, const json& files) {
  QSaveFile f(index_path(dir));
  if (!f.open(QIODevice::WriteOnly)) return;
  f.write(QByteArray::fromStdString(json{{"version", kIndexVersion}, {"files", files}}.dump(
      -1, ' ', false, json::error_handler_t::replace)));
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

RunHistory::RunHistory(QString dir, ParamDefaults defaults)
    : dir_(std::move(dir)), defaults_(std::move(defaults)) {
  QDir().mkpath(dir_);
}

RunHistory::~RunHistory() = default;

QString RunHistory::default_dir() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/runs";
}

QString RunHistory::trashDir() const {
  return QDir(dir_).filePath(".trash");
}

HistoryEntry RunHistory::summarize(const Run& run, const QString& path) const {
  HistoryEntry e;
  e.path = path;
  e.name = QFileInfo(path).completeBaseName();
  e.started = QDateTime::fromMSecsSinceEpoch(run.started_unix_ms);
  e.experiment = q(run.experiment);
  e.title = q(run.title);
  e.status = QString::fromLatin1(to_string(run.status));
  e.targets = targets_text(run);
  e.message = q(run.message);
  e.note = q(run.note);
  e.duration_ms = run.ended_unix_ms >= run.started_unix_ms && run.ended_unix_ms > 0
                      ? run.ended_unix_ms - run.started_unix_ms
                      : -1;
  e.params = key_params(run, defaults_);
  return e;
}

std::vector<HistoryEntry> RunHistory::list(QStringList* skipped) const {
  json index;
  {
    std::lock_guard lock(mu_);
    index = read_index(dir_);
  }
  // Files new or changed since the index was written are read, without holding the lock.
  std::vector<HistoryEntry> out;
  json fresh = json::object();  // what was read now
  const QFileInfoList files = QDir(dir_).entryInfoList({"*.json"}, QDir::Files);
  for (const QFileInfo& fi : files) {
    json rec = record_of(index, fi.fileName());
    if (rec.empty() || !current(rec, fi)) {
      try {
        rec = to_json(summarize(load_run(fs(fi.filePath())), fi.filePath()), fi);
      } catch (const std::exception&) {
        rec = not_a_run(fi);
      }
      fresh[utf8(fi.fileName())] = rec;
    }
    if (rec.value("run", json()) == true)
      out.push_back(from_json(rec, fi));
    else if (skipped)
      *skipped << fi.fileName();
  }
  if (!fresh.empty() || index.size() != static_cast<std::size_t>(files.size())) {
    std::lock_guard lock(mu_);
    json now = read_index(dir_);  // another thread may have added to it meanwhile
    for (const auto& [name, rec] : fresh.items()) now[name] = rec;
    for (auto it = now.begin(); it != now.end();)
      it = QFileInfo::exists(QDir(dir_).filePath(q(it.key()))) ? std::next(it) : now.erase(it);
    write_index(dir_, now);
  }
  std::stable_sort(out.begin(), out.end(), newest_first);
  return out;
}

void RunHistory::remember(const QString& path, const HistoryEntry& e) const {
  std::lock_guard lock(mu_);
  json index = read_index(dir_);
  index[utf8(QFileInfo(path).fileName())] = to_json(e, QFileInfo(path));
  write_index(dir_, index);
}

void RunHistory::forget(const QString& path) const {
  std::lock_guard lock(mu_);
  json index = read_index(dir_);
  index.erase(utf8(QFileInfo(path).fileName()));
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

Run RunHistory::loadToShow(const QString& path) {
  Run run = load_run(fs(path));
  if (run.status != RunStatus::Failed && run.status != RunStatus::Cancelled)
    check_measured(run, fs(path));
  return run;
}

void RunHistory::set_note(const QString& path, const QString& note) const {
  Run run = load_run(fs(path));
  run.note = note.trimmed().toStdString();
  save_run(run, fs(path));
  remember(path, summarize(run, path));
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
  json index = read_index(dir_);
  const std::string from = utf8(QFileInfo(path).fileName());
  if (index.contains(from)) {
    index[utf8(QFileInfo(target).fileName())] = index[from];
    index.erase(from);
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
