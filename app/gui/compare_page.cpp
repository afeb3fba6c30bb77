#include "compare_page.h"

#include <QButtonGroup>
#include <QClipboard>
#include <QComboBox>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "chart_panel.h"
#include "charts/run_chart.h"
#include "models/comparison_model.h"
#include "models/history_model.h"
#include "models/run_history.h"
#include "qt_text/qt_text.h"

namespace perflab::gui {

ComparePage::ComparePage(RunHistory* history, const HistoryModel* runs, QWidget* parent)
    : QWidget(parent), history_(history), runs_(runs) {
  auto* v = new QVBoxLayout(this);
  auto* pick = new QHBoxLayout;
  old_box_ = new QComboBox;
  new_box_ = new QComboBox;
  old_box_->setObjectName("compareOld");
  new_box_->setObjectName("compareNew");
  old_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  new_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  pick->addWidget(new QLabel("Old:"));
  pick->addWidget(old_box_, 1);
  pick->addWidget(new QLabel("New:"));
  pick->addWidget(new_box_, 1);
  auto* go = new QPushButton("Compare");
  go->setObjectName("compareButton");
  pick->addWidget(go);
  v->addLayout(pick);
  auto* fmt = new QHBoxLayout;
  ratio_ = new QRadioButton("new / old ratio");
  percent_ = new QRadioButton("percent change");
  ratio_->setObjectName("compareRatio");
  percent_->setObjectName("comparePercent");
  ratio_->setChecked(true);
  auto* group = new QButtonGroup(this);
  group->addButton(ratio_);
  group->addButton(percent_);
  fmt->addWidget(ratio_);
  fmt->addWidget(percent_);
  auto* copy = new QPushButton("Copy as text");
  fmt->addWidget(copy);
  fmt->addStretch();
  v->addLayout(fmt);
  error_ = new QLabel;
  error_->setStyleSheet("color: #b00020;");
  error_->setWordWrap(true);
  error_->hide();  // takes no line until there is a reason to show
  v->addWidget(error_);

  // The figures and the overlaid chart each fill a tab: side by side or stacked at 1280×800,
  // the chart's legend and description would squeeze its plot and the table would show a row.
  views_ = new QTabWidget;
  views_->setObjectName("compareViews");
  auto* figures = new QWidget;
  auto* tv = new QVBoxLayout(figures);
  tv->setContentsMargins(0, 0, 0, 0);
  model_ = new ComparisonModel(this);
  table_ = new QTableView;
  table_->setObjectName("compareTable");
  table_->setModel(model_);
  setup_table_view(table_);
  fit_columns(table_, {ComparisonModel::BenchmarkColumn});
  tv->addWidget(table_, 1);
  // The benchmarks of one run only: a few lines that scroll, never a wall of text.
  unmatched_ = new QPlainTextEdit;
  unmatched_->setObjectName("compareUnmatched");
  unmatched_->setReadOnly(true);
  unmatched_->setMaximumHeight(unmatched_->fontMetrics().lineSpacing() * 4 +
                               2 * unmatched_->frameWidth() + 8);
  unmatched_->hide();
  tv->addWidget(unmatched_);
  views_->addTab(figures, "Figures");
  chart_ = new ChartPanel;
  chart_->setOverlayLabels("old", "new");
  views_->addTab(chart_, "Chart");
  v->addWidget(views_, 1);

  connect(go, &QPushButton::clicked, this, [this] {
    compareFiles(old_box_->currentData().toString(), new_box_->currentData().toString());
  });
  connect(ratio_, &QRadioButton::toggled, this, &ComparePage::showFormat);
  connect(copy, &QPushButton::clicked, this,
          [this] { QGuiApplication::clipboard()->setText(comparisonText()); });
  connect(runs_, &QAbstractItemModel::modelReset, this, &ComparePage::refresh);
  showFormat();
  refresh();
}

void ComparePage::refresh() {
  QString old_sel = old_box_->currentData().toString(),
          new_sel = new_box_->currentData().toString();
  old_box_->clear();
  new_box_->clear();
  const auto& entries = runs_->entries();
  for (const auto& e : entries) {
    QString text = QString("%1 — %2 — %3 (%4)")
                       .arg(e.name, e.experiment, e.started.toString("yyyy-MM-dd HH:mm"), e.status);
    old_box_->addItem(text, e.path);
    new_box_->addItem(text, e.path);
  }
  // Default: the newest as new, the one before as old.
  int oi = old_box_->findData(old_sel), ni = new_box_->findData(new_sel);
  new_box_->setCurrentIndex(ni >= 0 ? ni : 0);
  old_box_->setCurrentIndex(oi >= 0 ? oi : (entries.size() > 1 ? 1 : 0));
}

bool ComparePage::compareFiles(const QString& old_path, const QString& new_path) {
  if (old_path.isEmpty() || new_path.isEmpty()) {
    return refuse("Pick two runs from the history.");
  }
  // Both pickers show the runs compared, also when the list is not up to date yet.
  auto show = [](QComboBox* box, const QString& path) {
    int i = box->findData(path);
    if (i < 0) {
      box->addItem(QFileInfo(path).completeBaseName(), path);
      i = box->count() - 1;
    }
    box->setCurrentIndex(i);
  };
  show(old_box_, old_path);
  show(new_box_, new_path);
  if (QFileInfo(old_path) == QFileInfo(new_path))
    return refuse("Old and new are the same run: pick two different runs to compare.");
  try {
    return compare(history_->load(old_path), history_->load(new_path));
  } catch (const std::exception& e) {
    return refuse(QString::fromStdString(e.what()));
  }
}

bool ComparePage::refuse(const QString& reason) {
  error_->setText(reason);
  error_->show();
  model_->setComparison({});
  unmatched_->clear();
  unmatched_->hide();
  chart_->clear();
  return false;
}

bool ComparePage::compare(const Run& old_run, const Run& new_run) {
  if (old_run.experiment != new_run.experiment)
    return refuse(QString("These runs are of different experiments (%1 and %2): pick two runs of "
                          "the same experiment.")
                      .arg(q(old_run.experiment), q(new_run.experiment)));
  error_->clear();
  error_->hide();
  model_->setComparison(compare_runs(old_run, new_run));
  const Comparison& cmp = model_->comparison();
  QStringList extra;
  auto join = [](const std::vector<std::string>& v) {
    QStringList l;
    for (const auto& s : v) l << q(s);
    return l.join(", ");
  };
  if (!cmp.only_in_old.empty()) extra << "Only in the old run: " + join(cmp.only_in_old);
  if (!cmp.only_in_new.empty()) extra << "Only in the new run: " + join(cmp.only_in_new);
  unmatched_->setPlainText(extra.join("\n"));
  unmatched_->setVisible(!extra.isEmpty());
  chart_->setRun(charts::overlay_runs(old_run, "old", new_run, "new"));
  return true;
}

const Comparison& ComparePage::comparison() const {
  return model_->comparison();
}

QString ComparePage::comparisonText() const {
  return q(format_comparison(comparison(),
                             ratio_->isChecked() ? CompareFormat::Ratio : CompareFormat::Percent));
}

QString ComparePage::error() const {
  return error_->text();
}

void ComparePage::showFormat() {
  table_->setColumnHidden(ComparisonModel::RatioColumn, !ratio_->isChecked());
  table_->setColumnHidden(ComparisonModel::ChangeColumn, ratio_->isChecked());
}

}  // namespace perflab::gui
