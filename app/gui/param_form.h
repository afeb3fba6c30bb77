#pragma once
// A parameter form generated from an experiment's ParamSpecs: a widget per type (a combo box
// for one-of, a check box per choice for subset-of), ranges enforced as the person types (spin
// boxes, or live validation against the spec), help beside each field, "Restore defaults", and
// the experiment's plans first (the parameter `plan`: choosing one fills the form).
#include <map>
#include <string>
#include <vector>

#include <QWidget>

#include "common/params.h"
#include "runner/plan.h"

class QComboBox;
class QFormLayout;
class QLabel;

namespace perflab::gui {

class ParamForm : public QWidget {
  Q_OBJECT
 public:
  explicit ParamForm(QWidget* parent = nullptr);

  // The spec `plan`, when there is one, is the plan choice at the top of the form; `plans`
  // are the values it fills in.
  void setSpecs(const std::vector<ParamSpec>& specs, std::vector<Plan> plans = {});
  const std::vector<ParamSpec>& specs() const { return specs_; }
  // Textual values of every field (as the experiment's Params expects them).
  std::map<std::string, std::string> values() const;
  // Sets each field named; returns one message per value not taken, naming it: a name that is
  // no parameter of the experiment (find_param's message), or a value its spec refuses (that
  // field keeps what it had). Empty when every value was taken.
  [[nodiscard]] std::vector<std::string> setValues(
      const std::map<std::string, std::string>& values);
  void restoreDefaults();
  // Every field at its default, then the plan's values, and the plan choice on it ("default":
  // restoreDefaults()). Emits planChosen.
  void applyPlan(const std::string& name);
  // The first invalid field's message ("parameter 'writers': …"), empty when all are valid.
  QString validationError() const;
  // The field widget of a parameter (objectName "param_<name>"), for tests.
  QWidget* field(const std::string& name) const;

 signals:
  void changed();
  // A plan was chosen (by the person or applyPlan) and the form filled with it.
  void planChosen(const QString& name);

 private:
  struct Field {
    ParamSpec spec;
    QWidget* widget = nullptr;
  };
  QWidget* makeEditor(const ParamSpec& spec);           // the editor that suits the spec's type
  void addRow(const ParamSpec& spec, QWidget* editor);  // label, editor and help text
  std::string text_of(const Field& f) const;
  void set_text(Field& f, const std::string& text);
  void check(Field& f);

  std::vector<ParamSpec> specs_;
  std::vector<Plan> plans_;
  void showPlanSummary();  // the chosen plan's summary under its choice

  QLabel* plan_label_;
  QLabel* plan_summary_;  // objectName "planSummary"
  QComboBox* plan_;       // objectName "param_plan": the field of the spec `plan`
  std::vector<Field> fields_;
  QFormLayout* layout_;
};

}  // namespace perflab::gui
