#pragma once
// The teaching panel: what an experiment demonstrates and how Perflab measures it (prose, in
// resources/teaching/<experiment>.json), the article's published tables (from the experiment:
// Experiment::article(), the one place its figures are written) and the findings of the run on
// screen, each with the article's figure it carries ("article: 0.78; this run: 0.81").
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <QString>
#include <QTextBrowser>

#include "common/run.h"
#include "runner/experiment.h"

namespace perflab::gui {

// The prose of the panel; figures come from the experiment and the run.
struct TeachingData {
  QString experiment, title, demonstrates;
  QStringList how_measured, notes;
  // Parts of finding ids ("leads" in the JSON): the run's findings whose id contains one lead
  // the table, in the run's order, before those the article has a figure for.
  QStringList leads;
};

// Reads ":/teaching/<id>.json" (or a file path); nullopt when there is none or it is malformed.
std::optional<TeachingData> load_teaching(const QString& experiment_id);
std::optional<TeachingData> parse_teaching(const QByteArray& json);

// How findings are laid out: a table where there is room (the presentation view), one block per
// finding in a narrow panel (five columns in 300 px wrap a letter per line), or one boxed block
// per finding, a one-cell table each, that a printed page keeps whole (the report).
enum class FindingsLayout { Table, Stacked, Blocks };

// The run's findings beside the article's figures they carry (or a line saying why there are
// none): the panel's, the presentation view's and the report's. Findings whose id contains one
// of `leads` (TeachingData::leads) come first.
QString findings_html(const Run& run, FindingsLayout layout = FindingsLayout::Table,
                      const QStringList& leads = {});

// The panel's HTML: the teaching prose (or the experiment's own title/purpose when there is
// none), the run's findings beside the article's figures they carry (`run` may be null), and
// the article's published tables. Without `with_title`, no heading of its own (the report has one).
QString teaching_html(const std::optional<TeachingData>& data, const Article& article,
                      const QString& title, const QString& purpose, const Run* run,
                      FindingsLayout layout = FindingsLayout::Table, bool with_title = true);

class TeachingPanel : public QTextBrowser {
  Q_OBJECT
 public:
  explicit TeachingPanel(QWidget* parent = nullptr);
  void setExperiment(const QString& id, const QString& title, const QString& purpose);
  // The run on show, shared with the window (a large run is not copied); null: no run yet.
  void setRun(std::shared_ptr<const Run> run);
  // A run is going on show and its figures come next (setRun): the prose, and a line saying
  // they are loading in their place.
  void setRunLoading();
  bool runLoading() const { return loading_; }
  const std::optional<TeachingData>& data() const { return data_; }
  const Article& article() const { return article_; }

 protected:
  void resizeEvent(QResizeEvent* e) override;  // the findings' layout follows the width

 private:
  void render();
  FindingsLayout layoutForWidth() const;
  FindingsLayout layout_ = FindingsLayout::Table;
  QString id_, title_, purpose_;
  std::optional<TeachingData> data_;
  Article article_;  // of the experiment on show (from the registry)
  std::shared_ptr<const Run> run_;
  bool loading_ = false;
};

}  // namespace perflab::gui
