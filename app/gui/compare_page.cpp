#include "compare_page.h"

#include <QApplication>
#include <QButtonGroup>
#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "chart_panel.h"
#include "charts/run_chart.h"
#include "run_history.h"

namespace perflab::gui {

namespace {
QString q(const std::string& s) {
  return QString::fromStdString(s);
}
}  // namespace

ComparePage::ComparePage(RunHistory* history, QWidget* parent)
    : QWidget(parent), history_(history) {
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
  v->addWidget(error_);

  auto* split = new QSplitter(Qt::Vertical);
  auto* top = new QWidget;
  auto* tv = new QVBoxLayout(top);
  tv->setContentsMargins(0, 0, 0, 0);
  table_ = new QTableWidget(0, 6);
  table_->setObjectName("compareTable");
  table_->setHorizontalHeaderLabels(
      {"Benchmark", "Unit", "Old (median)", "New (median)", "New / old", "Change"});
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  tv->addWidget(table_);
  unmatched_ = new QLabel;
  unmatched_->setWordWrap(true);
  tv->addWidget(unmatched_);
  split->addWidget(top);
  chart_ = new ChartPanel;
  split->addWidget(chart_);
  v->addWidget(split, 1);

  connect(go, &QPushButton::clicked, this, [this] {
    compareFiles(old_box_->currentData().toString(), new_box_->currentData().toString());
  });
  connect(ratio_, &QRadioButton::toggled, this, &ComparePage::fillTable);
  connect(copy, &QPushButton::clicked, this,
          [this] { QGuiApplication::clipboard()->setText(comparisonText()); });
  refresh();
}

void ComparePage::refresh() {
  QString old_sel = old_box_->currentData().toString(),
          new_sel = new_box_->currentData().toString();
  old_box_->clear();
  new_box_->clear();
  auto entries = history_->list();
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
    error_->setText("Pick two runs from the history.");
    return false;
  }
  try {
    return compare(history_->load(old_path), history_->load(new_path));
  } catch (const std::exception& e) {
    error_->setText(QString::fromStdString(e.what()));
    return false;
  }
}

bool ComparePage::compare(const Run& old_run, const Run& new_run) {
  if (old_run.experiment != new_run.experiment) {
    error_->setText(QString("These runs are of different experiments (%1 and %2): pick two runs of "
                            "the same experiment.")
                        .arg(q(old_run.experiment), q(new_run.experiment)));
    return false;
  }
  error_->clear();
  old_ = old_run;
  new_ = new_run;
  cmp_ = compare_runs(old_, new_);
  fillTable();
  chart_->setRun(charts::overlay_runs(old_, "old", new_, "new"));
  return true;
}

QString ComparePage::comparisonText() const {
  return q(
      format_comparison(cmp_, ratio_->isChecked() ? CompareFormat::Ratio : CompareFormat::Percent));
}

QString ComparePage::error() const {
  return error_->text();
}

void ComparePage::fillTable() {
  table_->setRowCount(0);
  int row = 0;
  for (const auto& r : cmp_.rows) {
    table_->insertRow(row);
    // Better or worse depends on the group's direction.
    std::string gid = r.name.substr(0, r.name.find('/'));
    const Group* g = new_.group(gid);
    bool lower_better = !g || g->lower_is_better;
    QStringList cells = {q(r.name),
                         q(r.unit),
                         format_value(r.old_value),
                         format_value(r.new_value),
                         QString::number(r.ratio, 'f', 3),
                         QString("%1%2%").arg(r.percent >= 0 ? "+" : "").arg(r.percent, 0, 'f', 1)};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c >= 2) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (c >= 4 && std::abs(r.ratio - 1) > 0.03) {
        bool better = lower_better ? r.ratio < 1 : r.ratio > 1;
        item->setForeground(better ? QColor(0, 128, 0) : QColor(176, 0, 32));
      }
      table_->setItem(row, c, item);
    }
    ++row;
  }
  table_->setColumnHidden(4, !ratio_->isChecked());
  table_->setColumnHidden(5, ratio_->isChecked());
  QStringList extra;
  auto join = [](const std::vector<std::string>& v) {
    QStringList l;
    for (const auto& s : v) l << q(s);
    return l.join(", ");
  };
  if (!cmp_.only_in_old.empty()) extra << "Only in the old run: " + join(cmp_.only_in_old);
  if (!cmp_.only_in_new.empty()) extra << "Only in the new run: " + join(cmp_.only_in_new);
  unmatched_->setText(extra.join("\n"));
}

void ComparePage::setPresentation(bool on) {
  QFont f = QApplication::font();
  if (on) f.setPointSizeF(f.pointSizeF() * 1.6);
  table_->setFont(f);
  chart_->setPresentation(on);
}

}  // namespace perflab::gui
