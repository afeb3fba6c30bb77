#pragma once
// The teaching panel: what an experiment demonstrates, how Perflab measures it, the article's
// published figures (kept as data in resources/teaching/<experiment>.json) and, beside them,
// the findings of the run on screen ("article: 0.78; this run: 0.81").
#include <optional>
#include <string>
#include <vector>

#include <QString>
#include <QTextBrowser>

#include "common/run.h"

namespace perflab::gui {

struct TeachingTable {
  QString title, unit;
  QStringList columns;
  std::vector<QStringList> rows;
};

struct TeachingFigure {
  std::string finding;  // Finding::id of a run
  QString text;
  std::optional<double> article;
};

struct TeachingData {
  QString experiment, title, demonstrates, source;
  QStringList how_measured, notes;
  std::vector<TeachingTable> tables;
  std::vector<TeachingFigure> figures;
};

// Reads ":/teaching/<id>.json" (or a file path); nullopt when there is none or it is malformed.
std::optional<TeachingData> load_teaching(const QString& experiment_id);
std::optional<TeachingData> parse_teaching(const QByteArray& json);

// The panel's HTML: the teaching data (or the experiment's own title/purpose when there is no
// data) and the article-vs-run table for `run` (may be null).
QString teaching_html(const std::optional<TeachingData>& data, const QString& title,
                      const QString& purpose, const Run* run);

class TeachingPanel : public QTextBrowser {
  Q_OBJECT
 public:
  explicit TeachingPanel(QWidget* parent = nullptr);
  void setExperiment(const QString& id, const QString& title, const QString& purpose);
  void setRun(const Run* run);  // nullptr: no run yet
  void setPresentation(bool on);
  const std::optional<TeachingData>& data() const { return data_; }

 private:
  void render();
  QString id_, title_, purpose_;
  std::optional<TeachingData> data_;
  std::optional<Run> run_;
};

}  // namespace perflab::gui
