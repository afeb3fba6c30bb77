#include "targets_page.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include <QButtonGroup>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <QtConcurrent>

namespace perflab::gui {

namespace {

QLabel* status_label() {
  auto* l = new QLabel;
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

// A refusal in red, hidden until there is one.
QLabel* error_label(const char* name) {
  QLabel* l = status_label();
  l->setObjectName(name);
  l->setStyleSheet("color: #b00020;");
  l->hide();
  return l;
}

}  // namespace

TargetsPage::TargetsPage(std::function<std::shared_ptr<Targets>()> targets, QWidget* parent)
    : QWidget(parent), targets_(std::move(targets)) {
  const char* names[kChecks][3] = {{"Test connection", "pgTest", "pgStatus"},
                                   {"Test standbys", "pgStandbyTest", "pgStandbyStatus"},
                                   {"Test connection", "redisTest", "redisStatus"}};
  for (int c = 0; c < kChecks; ++c) {
    test_[c] = new QPushButton(names[c][0]);
    test_[c]->setObjectName(names[c][1]);
    test_status_[c] = status_label();
    test_status_[c]->setObjectName(names[c][2]);
  }
  auto* top = new QVBoxLayout(this);
  top->addWidget(buildManagedBox());
  top->addWidget(buildPostgresBox());
  top->addWidget(buildRedisBox());
  apply_error_ = status_label();  // always there: empty when Apply worked
  apply_error_->setStyleSheet("color: #b00020;");
  apply_error_->setObjectName("applyError");
  top->addWidget(apply_error_);
  auto* buttons = new QHBoxLayout;
  auto* apply = new QPushButton("Apply");
  apply->setObjectName("targetsApply");
  auto* revert = new QPushButton("Revert");
  buttons->addStretch();
  buttons->addWidget(revert);
  buttons->addWidget(apply);
  top->addLayout(buttons);
  top->addStretch();
  connect(apply, &QPushButton::clicked, this, &TargetsPage::applyRequested);
  connect(revert, &QPushButton::clicked, this, &TargetsPage::revertRequested);
  state_timer_ = new QTimer(this);
  state_timer_->setInterval(3000);
  connectUi();
  setForm(TargetsForm{});
  managed_status_->setText("…");
}

QGroupBox* TargetsPage::buildManagedBox() {
  auto* box = new QGroupBox("Managed local servers");
  auto* mb = new QVBoxLayout(box);
  auto* intro = new QLabel(
      "By default Perflab starts its own throwaway PostgreSQL and Redis on free loopback "
      "ports when an experiment first needs them, and stops them when it exits. Perflab only "
      "ever touches its own schema and key prefix on any server.");
  intro->setWordWrap(true);
  mb->addWidget(intro);
  managed_status_ = status_label();
  managed_status_->setObjectName("managedStatus");
  mb->addWidget(managed_status_);
  auto* refresh = new QPushButton("Refresh");
  connect(refresh, &QPushButton::clicked, this, &TargetsPage::refreshManagedState);
  mb->addWidget(refresh, 0, Qt::AlignLeft);
  return box;
}

QGroupBox* TargetsPage::buildPostgresBox() {
  auto* box = new QGroupBox("PostgreSQL");
  auto* pl = new QFormLayout(box);
  pg_managed_ = new QRadioButton("Managed (started by Perflab)");
  pg_external_ = new QRadioButton("External server");
  pg_managed_->setObjectName("pgManaged");
  pg_external_->setObjectName("pgExternal");
  pl->addRow("Server:", mode_row(pg_managed_, pg_external_));
  pg_host_ = new QLineEdit;
  pg_port_ = new QSpinBox;
  pg_port_->setRange(1, 65535);
  pg_db_ = new QLineEdit;
  pg_user_ = new QLineEdit;
  pg_password_ = new QLineEdit;
  pg_password_->setEchoMode(QLineEdit::Password);
  pg_password_->setPlaceholderText("empty: ~/.pgpass or PGPASSWORD — never saved");
  pg_sslmode_ = new QComboBox;
  pg_sslmode_->addItems({"disable", "allow", "prefer", "require", "verify-ca", "verify-full"});
  pg_conninfo_ = new QLineEdit;
  pg_conninfo_->setPlaceholderText("or a full conninfo / postgresql:// URI (overrides the fields)");
  pg_schema_ = new QLineEdit;
  pg_host_->setObjectName("pgHost");
  pg_port_->setObjectName("pgPort");
  pg_password_->setObjectName("pgPassword");
  pg_conninfo_->setObjectName("pgConninfo");
  pl->addRow("Host:", pg_host_);
  pl->addRow("Port:", pg_port_);
  pl->addRow("Database:", pg_db_);
  pl->addRow("User:", pg_user_);
  pl->addRow("Password:", pg_password_);
  pl->addRow("SSL mode:", pg_sslmode_);
  pl->addRow("Conninfo:", pg_conninfo_);
  pl->addRow("Perflab's schema:", pg_schema_);
  pg_schema_error_ = error_label("pgSchemaError");
  pl->addRow(QString(), pg_schema_error_);
  pl->addRow(test_[PgCheck], test_status_[PgCheck]);
  // Its hot standbys: named here, never made, promoted or reconfigured by Perflab.
  pg_standbys_ = new QPlainTextEdit;
  pg_standbys_->setObjectName("pgStandbys");
  pg_standbys_->setPlaceholderText(
      "one conninfo a line, e.g. host=replica1 port=5432 dbname=perflab — each checked to be "
      "in recovery (pg_is_in_recovery()) and a copy of the server above; without a password, "
      "the one typed above; a password is never saved. Empty: no external standbys");
  pg_standbys_->setTabChangesFocus(true);
  pg_standbys_->setFixedHeight(pg_standbys_->fontMetrics().lineSpacing() * 3 + 12);
  pl->addRow("Hot standbys:", pg_standbys_);
  pl->addRow(test_[StandbyCheck], test_status_[StandbyCheck]);
  return box;
}

QGroupBox* TargetsPage::buildRedisBox() {
  auto* box = new QGroupBox("Redis");
  auto* rl = new QFormLayout(box);
  redis_managed_ = new QRadioButton("Managed (started by Perflab)");
  redis_external_ = new QRadioButton("External server(s)");
  redis_managed_->setObjectName("redisManaged");
  redis_external_->setObjectName("redisExternal");
  rl->addRow("Server:", mode_row(redis_managed_, redis_external_));
  redis_host_ = new QLineEdit;
  redis_port_ = new QSpinBox;
  redis_port_->setRange(1, 65535);
  redis_password_ = new QLineEdit;
  redis_password_->setEchoMode(QLineEdit::Password);
  redis_password_->setPlaceholderText("optional — never saved");
  redis_nodes_ = new QLineEdit;
  redis_nodes_->setPlaceholderText("shard nodes h:p,h:p,… for the sharding experiment");
  redis_cluster_ = new QLineEdit;
  redis_cluster_->setPlaceholderText("seed nodes h:p,h:p,… of a Redis Cluster (empty: managed)");
  redis_cluster_->setObjectName("redisCluster");
  redis_prefix_ = new QLineEdit;
  redis_host_->setObjectName("redisHost");
  redis_port_->setObjectName("redisPort");
  redis_nodes_->setObjectName("redisNodes");
  redis_password_->setObjectName("redisPassword");
  rl->addRow("Host:", redis_host_);
  rl->addRow("Port:", redis_port_);
  rl->addRow("Password:", redis_password_);
  rl->addRow("Shard nodes:", redis_nodes_);
  rl->addRow("Redis Cluster:", redis_cluster_);
  rl->addRow("Perflab's key prefix:", redis_prefix_);
  redis_prefix_error_ = error_label("redisPrefixError");
  rl->addRow(QString(), redis_prefix_error_);
  rl->addRow(test_[RedisCheck], test_status_[RedisCheck]);
  return box;
}

QHBoxLayout* TargetsPage::mode_row(QRadioButton* managed, QRadioButton* external) {
  auto* group = new QButtonGroup(this);
  group->addButton(managed);
  group->addButton(external);
  auto* row = new QHBoxLayout;
  row->addWidget(managed);
  row->addWidget(external);
  row->addStretch();
  return row;
}

void TargetsPage::connectUi() {
  connect(test_[PgCheck], &QPushButton::clicked, this, &TargetsPage::testPostgres);
  connect(test_[StandbyCheck], &QPushButton::clicked, this, &TargetsPage::testStandbys);
  connect(test_[RedisCheck], &QPushButton::clicked, this, &TargetsPage::testRedis);
  for (auto* b : {pg_managed_, pg_external_, redis_managed_, redis_external_})
    connect(b, &QRadioButton::toggled, this, &TargetsPage::updateEnabled);
  // What was said of one mode's server is not true of the other's.
  connect(pg_managed_, &QRadioButton::toggled, this, [this] { clearModeErrors(true); });
  connect(redis_managed_, &QRadioButton::toggled, this, [this] { clearModeErrors(false); });
  connect(pg_conninfo_, &QLineEdit::textChanged, this, &TargetsPage::updateEnabled);
  connect(redis_nodes_, &QLineEdit::textChanged, this, &TargetsPage::updateEnabled);
  for (int c = 0; c < kChecks; ++c)
    connect(&test_watch_[c], &QFutureWatcher<ConnectionResult>::finished, this,
            [this, c] { onTestAnswered(Check(c)); });
  connect(&start_watch_, &QFutureWatcher<ConnectionResult>::finished, this, [this] {
    const ConnectionResult r = start_watch_.result();
    if (!r.ok) managed_status_->setText("✘ " + r.text);
    emit managedStarted(r.ok, r.text);
    if (auto next = std::exchange(pending_start_, std::nullopt)) return startManaged(*next);
    if (r.ok) refreshManagedState();
  });
  connect(&state_watch_, &QFutureWatcher<ManagedState>::finished, this, [this] {
    managed_status_->setText(describe_managed_state(state_watch_.result(), planned_));
  });
  connect(state_timer_, &QTimer::timeout, this, &TargetsPage::refreshManagedState);
}

namespace {
const char* const kCheckKinds[] = {"postgres", "standby", "redis"};
}  // namespace

void TargetsPage::onTestAnswered(Check c) {
  auto& watch = test_watch_[c];
  if (watch.property("generation").toInt() != generation_[c]) return;  // superseded
  auto r = watch.result();
  // The standbys' answer may hold a line each, marked already.
  const bool marked = r.text.startsWith("✔") || r.text.startsWith("✘");
  test_status_[c]->setText(marked ? r.text : (r.ok ? "✔ " : "✘ ") + r.text);
  test_[c]->setEnabled(true);
  emit tested(kCheckKinds[c], r.ok, r.text);
  refreshManagedState();
}

TargetsPage::~TargetsPage() {
  waitForBackground();
}

void TargetsPage::waitForBackground() {
  pending_start_.reset();
  start_stop_.request_stop();
  for (auto& w : test_watch_) w.waitForFinished();
  state_watch_.waitForFinished();
  start_watch_.waitForFinished();
}

TargetsForm TargetsPage::form() const {
  TargetsForm f;
  f.pg_managed = pg_managed_->isChecked();
  f.pg_host = pg_host_->text();
  f.pg_port = pg_port_->value();
  f.pg_database = pg_db_->text();
  f.pg_user = pg_user_->text();
  f.pg_password = pg_password_->text();
  f.pg_sslmode = pg_sslmode_->currentText();
  f.pg_conninfo = pg_conninfo_->text();
  f.pg_schema = pg_schema_->text();
  f.pg_standbys = pg_standbys_->toPlainText();
  f.redis_managed = redis_managed_->isChecked();
  f.redis_host = redis_host_->text();
  f.redis_port = redis_port_->value();
  f.redis_password = redis_password_->text();
  f.redis_nodes = redis_nodes_->text();
  f.redis_cluster = redis_cluster_->text();
  f.redis_prefix = redis_prefix_->text();
  return f;
}

void TargetsPage::setForm(const TargetsForm& f) {
  (f.pg_managed ? pg_managed_ : pg_external_)->setChecked(true);
  pg_host_->setText(f.pg_host);
  pg_port_->setValue(f.pg_port);
  pg_db_->setText(f.pg_database);
  pg_user_->setText(f.pg_user);
  pg_password_->setText(f.pg_password);
  int i = pg_sslmode_->findText(f.pg_sslmode);
  pg_sslmode_->setCurrentIndex(i >= 0 ? i : pg_sslmode_->findText("prefer"));
  pg_conninfo_->setText(f.pg_conninfo);
  pg_schema_->setText(f.pg_schema);
  pg_standbys_->setPlainText(f.pg_standbys);
  (f.redis_managed ? redis_managed_ : redis_external_)->setChecked(true);
  redis_host_->setText(f.redis_host);
  redis_port_->setValue(f.redis_port);
  redis_password_->setText(f.redis_password);
  redis_nodes_->setText(f.redis_nodes);
  redis_cluster_->setText(f.redis_cluster);
  redis_prefix_->setText(f.redis_prefix);
  updateEnabled();
}

void TargetsPage::setApplyError(const QString& text) {
  apply_error_->setText(text);
}

QLabel* TargetsPage::field_label(TargetField field) const {
  switch (field) {
    case TargetField::PgServer:
      return test_status_[PgCheck];
    case TargetField::PgSchema:
      return pg_schema_error_;
    case TargetField::PgStandby:
      return test_status_[StandbyCheck];
    case TargetField::RedisServer:
      return test_status_[RedisCheck];
    case TargetField::RedisPrefix:
      return redis_prefix_error_;
  }
  return test_status_[PgCheck];
}

void TargetsPage::setTargetError(TargetField field, const QString& text) {
  QLabel* l = field_label(field);
  const bool status = std::find(std::begin(test_status_), std::end(test_status_), l) !=
                      std::end(test_status_);  // shared with a test
  l->setText(text.isEmpty() || !status ? text : "✘ " + text);
  if (!status) l->setVisible(!text.isEmpty());
}

QString TargetsPage::targetError(TargetField field) const {
  return field_label(field)->text();
}

void TargetsPage::clearTargetErrors() {
  for (auto f : {TargetField::PgServer, TargetField::PgSchema, TargetField::PgStandby,
                 TargetField::RedisServer, TargetField::RedisPrefix})
    setTargetError(f, {});
}

void TargetsPage::clearModeErrors(bool pg) {
  for (int c = 0; c < kChecks; ++c) {
    if ((c == RedisCheck) == pg) continue;  // PostgreSQL's tests, or Redis's
    ++generation_[c];                       // an answer still to come is not wanted
    test_[c]->setEnabled(true);
  }
  setTargetError(pg ? TargetField::PgServer : TargetField::RedisServer, {});
  setTargetError(pg ? TargetField::PgSchema : TargetField::RedisPrefix, {});
  if (pg) setTargetError(TargetField::PgStandby, {});
  setApplyError({});
}

void TargetsPage::updateEnabled() {
  bool pg_ext = pg_external_->isChecked();
  bool raw = !pg_conninfo_->text().trimmed().isEmpty();
  for (QWidget* w : std::initializer_list<QWidget*>{pg_host_, pg_port_, pg_db_, pg_user_,
                                                    pg_password_, pg_sslmode_})
    w->setEnabled(pg_ext && !raw);
  pg_conninfo_->setEnabled(pg_ext);
  pg_standbys_->setEnabled(pg_ext);
  test_[StandbyCheck]->setEnabled(pg_ext && !test_watch_[StandbyCheck].isRunning());
  bool redis_ext = redis_external_->isChecked();
  bool nodes = !redis_nodes_->text().trimmed().isEmpty();
  redis_host_->setEnabled(redis_ext && !nodes);
  redis_port_->setEnabled(redis_ext && !nodes);
  redis_password_->setEnabled(redis_ext);
  redis_nodes_->setEnabled(redis_ext);
  redis_cluster_->setEnabled(redis_ext);
}

void TargetsPage::runTest(Check c) {
  TargetsForm f = form();
  auto targets = targets_();
  QLabel* status = test_status_[c];
  QPushButton* button = test_[c];
  auto& watch = test_watch_[c];
  const bool managed = c == RedisCheck ? f.redis_managed : c == PgCheck && f.pg_managed;
  const int gen = ++generation_[c];
  status->setText(managed ? "Starting the managed server if needed…" : "Connecting…");
  button->setEnabled(false);
  watch.setProperty("generation", gen);
  constexpr ConnectionResult (*kTests[])(const TargetsForm&, std::shared_ptr<Targets>) = {
      test_postgres_connection, test_standby_connections, test_redis_connection};
  watch.setFuture(QtConcurrent::run(kTests[c], f, targets));
  if (managed) return;  // starting a server may take longer than a connection
  // An external server answers within 5 s, or the person is told it did not.
  QTimer::singleShot(kAnswerWithinMs + 500, this, [this, c, gen, status, button] {
    if (generation_[c] != gen || test_watch_[c].isFinished()) return;
    ++generation_[c];  // a late answer is ignored
    QString text = "timeout — no answer within 5 s";
    status->setText("✘ " + text);
    button->setEnabled(true);
    emit tested(kCheckKinds[c], false, text);
  });
}

void TargetsPage::testPostgres() {
  runTest(PgCheck);
}
void TargetsPage::testStandbys() {
  runTest(StandbyCheck);
}
void TargetsPage::testRedis() {
  runTest(RedisCheck);
}
QString TargetsPage::managedStatus() const {
  return managed_status_->text();
}

void TargetsPage::refreshManagedState() {
  if (state_watch_.isRunning()) return;
  auto targets = targets_();
  state_watch_.setFuture(QtConcurrent::run([targets] { return query_managed_state(*targets); }));
}

void TargetsPage::setPlannedNeeds(const TargetNeeds& needs) {
  planned_ = needs;
  refreshManagedState();
}

void TargetsPage::startManaged(const TargetNeeds& needs) {
  if (start_watch_.isRunning()) {  // one start at a time: this one when it ends
    pending_start_ = needs;
    return;
  }
  auto targets = targets_();
  managed_status_->setText("Starting the managed servers the plan needs…");
  start_stop_ = std::stop_source();
  start_watch_.setFuture(QtConcurrent::run([targets, needs, stop = start_stop_.get_token()] {
    try {
      targets->start_managed(needs, stop);
      return ConnectionResult{true, QString("managed servers ready")};
    } catch (const std::exception& e) {
      return ConnectionResult{false, explain_failure(e.what())};
    }
  }));
}

void TargetsPage::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  refreshManagedState();
  state_timer_->start();
}

void TargetsPage::hideEvent(QHideEvent* e) {
  QWidget::hideEvent(e);
  state_timer_->stop();
}

}  // namespace perflab::gui
