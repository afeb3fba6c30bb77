#include "report/teaching.h"

#include <cmath>

#include <QFile>
#include <QResizeEvent>
#include <QScrollBar>
#include <nlohmann/json.hpp>

#include "common/figure_format.h"
#include "common/report.h"
#include "qt_text/qt_text.h"
#include "registry/registry.h"

namespace perflab::gui {

std::optional<TeachingData> parse_teaching(const QByteArray& text) {
  using nlohmann::json;
  const json o = json::parse(text.begin(), text.end(), nullptr, false);
  if (!o.is_object()) return std::nullopt;  // not JSON (discarded), or not an object
  // A string, or empty for anything else; a list's elements likewise.
  const auto string = [](const json& v) {
    return v.is_string() ? q(v.get_ref<const std::string&>()) : QString();
  };
  const auto member = [&](const char* key) { return o.value(key, json()); };
  const auto list = [&](const char* key) {
    QStringList out;
    if (const json a = member(key); a.is_array())
      for (const json& v : a) out << string(v);
    return out;
  };
  TeachingData d;
  d.experiment = string(member("experiment"));
  d.title = string(member("title"));
  d.demonstrates = string(member("demonstrates"));
  d.how_measured = list("how_measured");
  d.notes = list("notes");
  d.leads = list("leads");
  if (d.experiment.isEmpty()) return std::nullopt;
  return d;
}

std::optional<TeachingData> load_teaching(const QString& experiment_id) {
  QFile f(":/teaching/" + experiment_id + ".json");
  if (!f.open(QIODevice::ReadOnly)) return std::nullopt;
  return parse_teaching(f.readAll());
}

QString findings_html(const Run& run, FindingsLayout layout, const QStringList& leads) {
  // The run's findings: those the teaching prose leads with first (TeachingData::leads), then
  // those the article has a figure for, then the others. Each with its interval and verdict,
  // and the article's figure judged against the interval.
  if (run.findings.empty()) {
    if (run.status == RunStatus::Finished || run.groups.empty())
      return "<p><i>This run has no derived figures.</i></p>";
    return "<p><i>This run is " + QString::fromLatin1(to_string(run.status)) +
           " before any figure could be derived from what it measured: the charts show its "
           "points.</i></p>";
  }
  const bool table = layout == FindingsLayout::Table;
  QString h = "<h3>The article beside this run</h3>";
  if (table)
    h += "<table border='1' cellspacing='0' cellpadding='4'>"
         "<tr><th>figure</th><th>this run [interval] (level)</th><th>verdict</th>"
         "<th>article's claim</th></tr>";
  auto rank = [&](const Finding& f) {
    for (const auto& lead : leads)
      if (q(f.id).contains(lead)) return 0;
    return f.claim ? 1 : 2;
  };
  // Every word below comes from the finding's model (common/finding.h).
  for (int pass : {0, 1, 2})
    for (const auto& f : run.findings) {
      if (rank(f) != pass) continue;
      const QString measured = q(finding_figure(f));
      const QString verdict = q(finding_verdict(f));
      const QString error = q(finding_error(f));
      QString judged;
      if (f.claim) {
        const Reproduction r = f.reproduction();
        const char* colour = r == Reproduction::Reproduced      ? "#008000"
                             : r == Reproduction::NotReproduced ? "#b00020"
                                                                : "#806000";
        judged = QString("<span style='color:%1'>%2</span>").arg(colour, esc(q(finding_claim(f))));
      }
      // A finding's own block (stacked, or boxed for the report): title, figure — verdict, the
      // tool's error, claim.
      const QString block =
          "<b>" + esc(q(f.text)) + "</b>" +
          (measured.isEmpty() ? QString() : "<br>this run: <b>" + esc(measured) + "</b>") +
          (verdict.isEmpty() ? QString() : " — " + esc(verdict)) +
          (error.isEmpty() ? QString() : "; " + esc(error)) +
          (judged.isEmpty() ? QString() : "<br>" + judged);
      if (layout == FindingsLayout::Blocks)
        h += "<table width='100%' border='1' cellspacing='0' cellpadding='6' "
             "style='margin-top:6px'><tr><td>" +
             block + "</td></tr></table>";
      else if (table)
        h += "<tr><td>" + esc(q(f.text)) + "</td><td align='right'><b>" + esc(measured) +
             "</b></td><td>" + (verdict.isEmpty() ? QString("—") : esc(verdict)) + "</td><td>" +
             (judged.isEmpty() ? QString("—") : judged) + "</td></tr>";
      else
        h += "<p>" + block + "</p>";
    }
  if (table) h += "</table>";
  h += "<p><small>A ratio is called faster or slower only when its whole interval lies beyond "
       "1 ± " +
       esc(q(format_percent(run.threshold))) +
       ", equivalent when it lies wholly inside; an article's claim is <i>reproduced</i> when the "
       "whole interval lies inside the claim's band, <i>not reproduced</i> when wholly outside, "
       "and <i>inconclusive</i> otherwise (docs/verdicts.md).</small></p>";
  if (auto note = interval_level_note(run)) h += "<p><small>" + esc(q(*note)) + "</small></p>";
  if (run.machine && run.machine->busy())
    h += "<p><b>The machine was busy (" + esc(q(describe_machine(*run.machine))) +
         "): these figures may be noisy — rerun, or raise repetitions.</b></p>";
  if (run.status != RunStatus::Finished)
    h += "<p><i>This run is " + QString::fromLatin1(to_string(run.status)) +
         ": figures are from what was measured before it stopped.</i></p>";
  return h;
}

QString teaching_html(const std::optional<TeachingData>& data, const Article& article,
                      const QString& title, const QString& purpose, const Run* run,
                      FindingsLayout layout, bool with_title) {
  QString h;
  if (with_title) h += "<h2>" + esc(data && !data->title.isEmpty() ? data->title : title) + "</h2>";
  if (data) {
    h += "<h3>What it demonstrates</h3><p>" + esc(data->demonstrates) + "</p>";
  } else {
    h += "<p>" + esc(purpose) + "</p>";
  }

  if (run) h += findings_html(*run, layout, data ? data->leads : QStringList{});

  if (data) {
    h += "<h3>How Perflab measures it</h3><ul>";
    for (const auto& m : data->how_measured) h += "<li>" + esc(m) + "</li>";
    h += "</ul>";
  }
  if (!article.tables.empty()) {
    h += "<h3>The article's figures</h3>";
    if (!article.source.empty()) h += "<p><small>" + esc(q(article.source)) + "</small></p>";
  }
  for (const auto& t : article.tables) {
    h += "<h4>" + esc(q(t.title)) + (t.unit.empty() ? QString() : " (" + esc(q(t.unit)) + ")") +
         "</h4>";
    h += "<table border='1' cellspacing='0' cellpadding='4'><tr>";
    for (const auto& c : t.columns) h += "<th>" + esc(q(c)) + "</th>";
    h += "</tr>";
    for (const auto& r : t.rows) {
      h += "<tr>";
      for (const auto& c : r) h += "<td>" + esc(q(c)) + "</td>";
      h += "</tr>";
    }
    h += "</table>";
  }
  QStringList notes = data ? data->notes : QStringList();
  for (const auto& n : article.notes) notes << q(n);
  if (!notes.isEmpty()) {
    h += "<h3>Notes</h3><ul>";
    for (const auto& n : notes) h += "<li>" + esc(n) + "</li>";
    h += "</ul>";
  }
  return h;
}

TeachingPanel::TeachingPanel(QWidget* parent) : QTextBrowser(parent) {
  setObjectName("teachingPanel");
  setOpenExternalLinks(true);
}

void TeachingPanel::setExperiment(const QString& id, const QString& title, const QString& purpose) {
  if (id != id_) {
    run_.reset();
    loading_ = false;
  }
  id_ = id;
  title_ = title;
  purpose_ = purpose;
  data_ = load_teaching(id);
  const auto exp = make_experiment(id.toStdString());
  article_ = exp ? exp->article() : Article{};
  render();
}

void TeachingPanel::setRun(std::shared_ptr<const Run> run) {
  run_ = std::move(run);
  loading_ = false;
  render();
}

void TeachingPanel::setRunLoading() {
  run_.reset();
  loading_ = true;
  render();
}

FindingsLayout TeachingPanel::layoutForWidth() const {
  return viewport()->width() >= 560 ? FindingsLayout::Table : FindingsLayout::Stacked;
}

void TeachingPanel::resizeEvent(QResizeEvent* e) {
  QTextBrowser::resizeEvent(e);
  if (layoutForWidth() != layout_ && run_) {
    const int at = verticalScrollBar()->value();
    render();
    verticalScrollBar()->setValue(at);
  }
}

void TeachingPanel::render() {
  layout_ = layoutForWidth();
  const QString html = teaching_html(data_, article_, title_, purpose_, run_.get(), layout_);
  setHtml(loading_ ? "<p><i>Loading this run's figures…</i></p>" + html : html);
}

}  // namespace perflab::gui
