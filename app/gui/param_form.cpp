// The parameter form (param_form.h): an editor per spec, the plan choice, defaults restored.
#include "param_form.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "common/text.h"
#include "muted_text.h"
#include "qt_text/qt_text.h"

namespace perflab::gui {

namespace {

bool fits_int(const ParamSpec& s) {
  return s.min && s.max && *s.min >= INT_MIN && *s.max <= INT_MAX;
}

// Decimals a double field shows: as many as its default and its bounds need (1 to 4).
int decimals_of(const ParamSpec& s) {
  int d = 1;
  auto need = [&](const std::string& text) {
    const auto dot = text.find('.');
    if (dot != std::string::npos) d = std::max(d, static_cast<int>(text.size() - dot - 1));
  };
  need(s.default_value);
  if (s.min) need(format_bound(*s.min));
  if (s.max) need(format_bound(*s.max));
  return std::min(d, 4);
}

// Lets a spin box or combo box take the mouse wheel only when it has the focus (a click or Tab
// gives it): scrolling over the form scrolls the form instead of changing the fields it passes.
class WheelWhenFocused : public QObject {
 public:
  using QObject::QObject;
  static void guard(QWidget* editor) {
    static WheelWhenFocused* filter = new WheelWhenFocused(qApp);
    editor->setFocusPolicy(Qt::StrongFocus);  // the wheel itself gives no focus
    editor->installEventFilter(filter);
  }

 protected:
  bool eventFilter(QObject* watched, QEvent* e) override {
    if (e->type() != QEvent::Wheel || static_cast<QWidget*>(watched)->hasFocus()) return false;
    e->ignore();  // ignored: it goes on to the parents, the scroll area among them
    return true;
  }
};

}  // namespace

ParamForm::ParamForm(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  // The plan first, what it keeps under it: on first start the one-minute story is the first
  // thing in the form, not below the fold.
  plan_label_ = new QLabel("Plan:");
  plan_ = new QComboBox;
  plan_label_->setBuddy(plan_);
  connect(plan_, &QComboBox::activated, this,
          [this](int i) { applyPlan(plan_->itemText(i).toStdString()); });
  auto* plan_row = new QHBoxLayout;
  plan_row->addWidget(plan_label_);
  plan_row->addWidget(plan_);
  plan_row->addStretch();
  v->addLayout(plan_row);
  plan_summary_ = new QLabel;
  plan_summary_->setObjectName("planSummary");
  plan_summary_->setWordWrap(true);
  plan_summary_->setStyleSheet(muted_text_style(plan_summary_->palette()));
  v->addWidget(plan_summary_);
  plan_label_->hide();
  plan_->hide();
  plan_summary_->hide();
  layout_ = new QFormLayout;
  layout_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  v->addLayout(layout_);
  auto* restore = new QPushButton("Restore defaults");
  restore->setObjectName("restoreDefaults");
  connect(restore, &QPushButton::clicked, this, &ParamForm::restoreDefaults);
  v->addWidget(restore, 0, Qt::AlignLeft);
  v->addStretch();
}

void ParamForm::showPlanSummary() {
  const Plan* plan = find_plan(plans_, plan_->currentText().toStdString());
  plan_summary_->setText(plan ? q(plan->summary)
                              : QString("every parameter at its default: the whole experiment"));
  plan_summary_->setVisible(!plan_->isHidden());
}

QWidget* ParamForm::makeEditor(const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::Int:
      if (fits_int(spec)) {
        auto* sb = new QSpinBox;
        sb->setRange(static_cast<int>(*spec.min), static_cast<int>(*spec.max));
        sb->setAccelerated(true);
        if (const std::string unit = param_unit(spec); !unit.empty()) sb->setSuffix(q(" " + unit));
        connect(sb, &QSpinBox::valueChanged, this, &ParamForm::changed);
        return sb;
      }
      break;
    case ParamType::Double: {
      auto* sb = new QDoubleSpinBox;
      sb->setDecimals(decimals_of(spec));
      sb->setRange(spec.min.value_or(-1e12), spec.max.value_or(1e12));
      if (const std::string unit = param_unit(spec); !unit.empty()) sb->setSuffix(q(" " + unit));
      connect(sb, &QDoubleSpinBox::valueChanged, this, &ParamForm::changed);
      return sb;
    }
    case ParamType::Bool: {
      auto* cb = new QCheckBox;
      connect(cb, &QCheckBox::toggled, this, &ParamForm::changed);
      return cb;
    }
    case ParamType::SubsetOf: {  // a check box per choice
      auto* box = new QWidget;
      auto* grid = new QGridLayout(box);
      grid->setContentsMargins(0, 0, 0, 0);
      // Long choices two to a row, the longest ("redis-benchmark-cluster") one, so the form fits
      // a narrow side.
      std::size_t longest = 0;
      for (const auto& c : spec.choices) longest = std::max(longest, c.size());
      const int per_row = longest > 20 ? 1 : longest > 12 ? 2 : 3;
      int i = 0;
      for (const auto& c : spec.choices) {
        auto* cb = new QCheckBox(q(c));
        cb->setObjectName(q("choice_" + c));
        connect(cb, &QCheckBox::toggled, this, &ParamForm::changed);
        grid->addWidget(cb, i / per_row, i % per_row);
        ++i;
      }
      return box;
    }
    case ParamType::OneOf: {
      auto* combo = new QComboBox;
      for (const auto& c : spec.choices) combo->addItem(q(c));
      connect(combo, &QComboBox::currentIndexChanged, this, &ParamForm::changed);
      return combo;
    }
    case ParamType::String:
    case ParamType::IntList:
      break;
  }
  // Free text, validated against the spec as it is typed.
  auto* le = new QLineEdit;
  const std::size_t index = fields_.size();
  connect(le, &QLineEdit::textChanged, this, [this, index] {
    check(fields_[index]);
    emit changed();
  });
  return le;
}

void ParamForm::addRow(const ParamSpec& spec, QWidget* editor) {
  // The unit once: in a spin box's suffix, else beside the field.
  const QString unit = q(param_unit(spec));
  const bool unit_in_editor = qobject_cast<QAbstractSpinBox*>(editor) != nullptr;
  QString help = q(spec.help);
  if (const std::string range = param_range_text(spec); !range.empty())
    help += QString(" [%1%2%3]")
                .arg(spec.type == ParamType::IntList ? "each " : "", q(range),
                     unit.isEmpty() ? QString() : " " + unit);
  // The parameter's id (what perflab-cli --param and the run file use) is in the tooltip.
  const QString tip = QString("<b>%1</b> (%2): %3")
                          .arg(q(spec.name), q(describe_param(spec)), help.toHtmlEscaped());
  editor->setObjectName(q("param_" + spec.name));
  editor->setToolTip(tip);
  if (qobject_cast<QAbstractSpinBox*>(editor) || qobject_cast<QComboBox*>(editor))
    WheelWhenFocused::guard(editor);

  auto* cell = new QWidget;
  auto* cv = new QVBoxLayout(cell);
  cv->setContentsMargins(0, 0, 0, 0);
  cv->setSpacing(1);
  if (unit.isEmpty() || unit_in_editor) {
    cv->addWidget(editor);
  } else {
    auto* row = new QHBoxLayout;
    row->addWidget(editor, 1);
    row->addWidget(new QLabel(unit));
    cv->addLayout(row);
  }
  auto* hl = new QLabel(help);
  hl->setWordWrap(true);
  hl->setStyleSheet(muted_text_style(hl->palette()) + " font-size: small;");
  cv->addWidget(hl);
  auto* label = new QLabel(q(param_label(spec)) + ":");
  label->setObjectName(q("label_" + spec.name));
  label->setToolTip(tip);
  label->setWordWrap(true);
  label->setBuddy(editor);
  layout_->addRow(label, cell);
}

void ParamForm::setSpecs(const std::vector<ParamSpec>& specs, std::vector<Plan> plans) {
  while (layout_->rowCount() > 0) layout_->removeRow(0);
  fields_.clear();
  specs_ = specs;
  plans_ = std::move(plans);
  plan_label_->hide();
  plan_->hide();
  for (const auto& spec : specs_) {
    if (spec.name == "plan" && spec.type == ParamType::OneOf) {  // at the top
      QSignalBlocker block(plan_);
      plan_->clear();
      for (const auto& c : spec.choices) plan_->addItem(q(c));
      plan_->setObjectName("param_plan");
      plan_->setToolTip(q("<b>plan</b>: " + spec.help));
      plan_label_->show();
      plan_->show();
      Field f{spec, plan_};
      set_text(f, spec.default_value);
      fields_.push_back(f);
      continue;
    }
    Field f{spec, makeEditor(spec)};
    addRow(spec, f.widget);
    set_text(f, spec.default_value);
    fields_.push_back(f);
  }
  showPlanSummary();
  for (auto& f : fields_) check(f);
}

std::string ParamForm::text_of(const Field& f) const {
  const QWidget* w = f.widget;
  if (auto* sb = qobject_cast<const QSpinBox*>(w)) return std::to_string(sb->value());
  if (auto* sb = qobject_cast<const QDoubleSpinBox*>(w))
    return QString::number(sb->value(), 'g', 15).toStdString();
  if (auto* cb = qobject_cast<const QCheckBox*>(w)) return cb->isChecked() ? "true" : "false";
  if (auto* combo = qobject_cast<const QComboBox*>(w)) return combo->currentText().toStdString();
  if (auto* le = qobject_cast<const QLineEdit*>(w)) return le->text().trimmed().toStdString();
  // Multi-choice: the checked ones, in the spec's order.
  std::string out;
  for (auto* cb : w->findChildren<QCheckBox*>())
    if (cb->isChecked()) {
      if (!out.empty()) out += ',';
      out += cb->text().toStdString();
    }
  return out;
}

void ParamForm::set_text(Field& f, const std::string& text) {
  QWidget* w = f.widget;
  QSignalBlocker block(w);
  if (auto* sb = qobject_cast<QSpinBox*>(w)) {
    sb->setValue(std::stoi(text));
  } else if (auto* sb = qobject_cast<QDoubleSpinBox*>(w)) {
    sb->setValue(std::stod(text));
  } else if (auto* cb = qobject_cast<QCheckBox*>(w)) {
    cb->setChecked(text == "true" || text == "1" || text == "yes" || text == "on");
  } else if (auto* combo = qobject_cast<QComboBox*>(w)) {
    combo->setCurrentText(q(text));
  } else if (auto* le = qobject_cast<QLineEdit*>(w)) {
    le->setText(q(text));
    check(f);
  } else {
    const auto items = split_commas(text);
    for (auto* cb : w->findChildren<QCheckBox*>()) {
      QSignalBlocker b(cb);
      cb->setChecked(std::find(items.begin(), items.end(), cb->text().toStdString()) !=
                     items.end());
    }
  }
}

void ParamForm::check(Field& f) {
  auto* le = qobject_cast<QLineEdit*>(f.widget);
  if (!le) return;
  try {
    validate_param(f.spec, le->text().trimmed().toStdString());
    le->setStyleSheet({});
    le->setToolTip(q(f.spec.name + " (" + describe_param(f.spec) + "): " + f.spec.help));
  } catch (const ParamError& e) {
    le->setStyleSheet("background: #ffe0e0;");
    le->setToolTip(QString::fromStdString(e.what()));
  }
}

std::map<std::string, std::string> ParamForm::values() const {
  std::map<std::string, std::string> out;
  for (const auto& f : fields_) out[f.spec.name] = text_of(f);
  return out;
}

std::vector<std::string> ParamForm::setValues(const std::map<std::string, std::string>& values) {
  std::vector<std::string> refused;
  for (const auto& [name, text] : values) {
    const auto f = std::find_if(fields_.begin(), fields_.end(),
                                [&](const Field& x) { return x.spec.name == name; });
    try {
      if (f == fields_.end()) {
        find_param(specs_, name);  // throws, naming it: every parameter has a field
        continue;
      }
      set_text(*f, validate_param(f->spec, text));
    } catch (const ParamError& e) {
      refused.emplace_back(e.what());
    }
  }
  showPlanSummary();
  emit changed();
  return refused;
}

void ParamForm::restoreDefaults() {
  for (auto& f : fields_) set_text(f, f.spec.default_value);
  showPlanSummary();
  emit changed();
}

void ParamForm::applyPlan(const std::string& name) {
  const Plan* plan = find_plan(plans_, name);
  for (auto& f : fields_) {
    std::string text = f.spec.default_value;
    if (f.widget == plan_) {
      text = plan ? plan->name : std::string(kDefaultPlan);
    } else if (plan) {
      if (auto it = plan->values.find(f.spec.name); it != plan->values.end()) text = it->second;
    }
    set_text(f, text);
  }
  showPlanSummary();
  emit changed();
  emit planChosen(plan_->currentText());
}

QString ParamForm::validationError() const {
  for (const auto& f : fields_) {
    try {
      validate_param(f.spec, text_of(f));
    } catch (const std::exception& e) {
      return QString::fromStdString(e.what());
    }
  }
  return {};
}

QWidget* ParamForm::field(const std::string& name) const {
  for (const auto& f : fields_)
    if (f.spec.name == name) return f.widget;
  return nullptr;
}

}  // namespace perflab::gui
