#pragma once
// The targets page: managed local servers (state, ports, versions, the hot standbys and the
// PgBouncer a run starts) or external PostgreSQL (with its hot standbys) and Redis, a test for
// each that answers within 5 s, Apply/Revert.
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>

#include <QFutureWatcher>
#include <QWidget>

#include "target_checks.h"
#include "targets_settings.h"

class QCheckBox;
class QComboBox;
class QGroupBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;
class QTimer;

namespace perflab::gui {

class TargetsPage : public QWidget {
  Q_OBJECT
 public:
  // `targets` gives the window's current Targets (used for managed servers).
  explicit TargetsPage(std::function<std::shared_ptr<Targets>()> targets,
                       QWidget* parent = nullptr);
  ~TargetsPage() override;

  TargetsForm form() const;
  void setForm(const TargetsForm& f);
  void setApplyError(const QString& text);  // empty clears
  // A refusal (a run's check of the targets, or Apply) shown beside the field it is about;
  // empty clears it.
  void setTargetError(TargetField field, const QString& text);
  QString targetError(TargetField field) const;
  void clearTargetErrors();

  // Starts a test in the background; the answer lands in the status label and in tested()
  // ("postgres", "standby", "redis").
  void testPostgres();
  void testStandbys();
  void testRedis();
  QString managedStatus() const;
  void refreshManagedState();
  // What the chosen experiment and parameters need: the managed state says which hot standbys
  // and PgBouncer the run will start.
  void setPlannedNeeds(const TargetNeeds& needs);
  // Starts in the background the managed servers a run will need (a plan was chosen), so that
  // pressing Run measures at once; the managed state shows them when they are ready and
  // managedStarted() tells how it went.
  void startManaged(const TargetNeeds& needs);
  // Window shutdown: stops a start of managed servers under way (what it started is stopped,
  // its folders removed) and waits for background tasks.
  void waitForBackground();

 signals:
  void applyRequested();
  void revertRequested();
  void tested(const QString& kind, bool ok, const QString& text);
  void managedStarted(bool ok, const QString& text);

 protected:
  void showEvent(QShowEvent* e) override;
  void hideEvent(QHideEvent* e) override;

 private:
  // The constructor's parts; then connectUi() wires the buttons, fields and background answers.
  QGroupBox* buildManagedBox();
  QGroupBox* buildPostgresBox();
  QGroupBox* buildRedisBox();
  QHBoxLayout* mode_row(QRadioButton* managed, QRadioButton* external);  // one of the two
  void connectUi();
  // The tests: PostgreSQL, its named standbys, Redis.
  enum Check { PgCheck, StandbyCheck, RedisCheck, kChecks };
  void onTestAnswered(Check c);
  void updateEnabled();
  void clearModeErrors(bool pg);  // a server's mode changed: what was said of it goes
  void runTest(Check c);

  std::function<std::shared_ptr<Targets>()> targets_;
  QRadioButton *pg_managed_, *pg_external_, *redis_managed_, *redis_external_;
  QLineEdit *pg_host_, *pg_db_, *pg_user_, *pg_password_, *pg_conninfo_, *pg_schema_;
  QPlainTextEdit* pg_standbys_;
  QSpinBox *pg_port_, *redis_port_;
  QComboBox* pg_sslmode_;
  QLineEdit *redis_host_, *redis_password_, *redis_nodes_, *redis_cluster_, *redis_prefix_;
  QLabel *managed_status_, *apply_error_;
  QLabel *pg_schema_error_, *redis_prefix_error_;
  QLabel* field_label(TargetField field) const;
  QPushButton* test_[kChecks];
  QLabel* test_status_[kChecks];
  QFutureWatcher<ConnectionResult> test_watch_[kChecks];
  int generation_[kChecks] = {};
  QTimer* state_timer_;
  QFutureWatcher<ManagedState> state_watch_;
  QFutureWatcher<ConnectionResult> start_watch_;
  std::optional<TargetNeeds> pending_start_;
  std::stop_source start_stop_;  // of the start under way
  TargetNeeds planned_;
};

}  // namespace perflab::gui
