#pragma once
// The targets page: managed local servers (state, ports, versions) or external PostgreSQL and
// Redis, a "Test connection" for each that answers within 5 s, Apply/Revert.
#include <functional>
#include <memory>
#include <optional>

#include <QFutureWatcher>
#include <QWidget>

#include "targets_settings.h"

class QCheckBox;
class QComboBox;
class QGroupBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;
class QTimer;

namespace perflab::gui {

// The managed servers as they are now (gathered off the GUI thread: Targets may be busy
// starting one).
struct ManagedState {
  bool pg_external = false, redis_external = false;
  bool pg_started = false, pg_running = false;
  int pg_port = 0;
  QString pg_version, pg_dir;
  struct Redis {
    int port = 0;
    QString version;
    bool running = false;
  };
  std::vector<Redis> redis;
};
ManagedState query_managed_state(Targets& t);
QString describe_managed_state(const ManagedState& s);

// The outcome of a connection test: ok + the server version, or a reason a person understands.
struct ConnectionResult {
  bool ok = false;
  QString text;
};
// Both connect with a 5 s bound. Managed: starts the server if needed (may take longer).
ConnectionResult test_postgres_connection(const TargetsForm& f, std::shared_ptr<Targets> t);
ConnectionResult test_redis_connection(const TargetsForm& f, std::shared_ptr<Targets> t);

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

  // Starts a test in the background; the answer lands in the status label and in tested().
  void testPostgres();
  void testRedis();
  QString managedStatus() const;
  void refreshManagedState();
  // Starts in the background the managed servers a run will need (a plan was chosen), so that
  // pressing Run measures at once; the managed state shows them when they are ready and
  // managedStarted() tells how it went.
  void startManaged(const TargetNeeds& needs);
  // Waits for background tasks (window shutdown).
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
  void onTestAnswered(bool pg);
  void updateEnabled();
  void clearModeErrors(bool pg);  // a server's mode changed: what was said of it goes
  void runTest(const QString& kind);

  std::function<std::shared_ptr<Targets>()> targets_;
  QRadioButton *pg_managed_, *pg_external_, *redis_managed_, *redis_external_;
  QLineEdit *pg_host_, *pg_db_, *pg_user_, *pg_password_, *pg_conninfo_, *pg_schema_;
  QSpinBox *pg_port_, *redis_port_;
  QComboBox* pg_sslmode_;
  QLineEdit *redis_host_, *redis_password_, *redis_nodes_, *redis_cluster_, *redis_prefix_;
  QLabel *pg_status_, *redis_status_, *managed_status_, *apply_error_;
  QLabel *pg_schema_error_, *redis_prefix_error_;
  QLabel* field_label(TargetField field) const;
  QPushButton *pg_test_, *redis_test_;
  QTimer* state_timer_;
  QFutureWatcher<ConnectionResult> pg_watch_, redis_watch_;
  QFutureWatcher<ManagedState> state_watch_;
  QFutureWatcher<ConnectionResult> start_watch_;
  std::optional<TargetNeeds> pending_start_;
  int pg_generation_ = 0, redis_generation_ = 0;
};

}  // namespace perflab::gui
