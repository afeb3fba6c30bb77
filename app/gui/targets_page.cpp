#include "targets_page.h"

#include <future>
#include <utility>

#include <QButtonGroup>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <QtConcurrent>

#include "targets/postgres.h"
#include "targets/redis.h"

namespace perflab::gui {

namespace {

constexpr int kAnswerWithinMs = 5000;

// A short reason first, then the library's own words.
QString explain(const std::string& what) {
  QString m = QString::fromStdString(what);
  QString l = m.toLower();
  QString why;
  if (l.contains("refused"))
    why = "refused (nothing listens there)";
  else if (l.contains("translate host") || l.contains("name or service") ||
           l.contains("unknown host") || l.contains("temporary failure in name"))
    why = "unknown host";
  else if (l.contains("password") || l.contains("auth") || l.contains("noauth") ||
           l.contains("wrongpass"))
    why = "authentication failed";
  else if (l.contains("timeout") || l.contains("timed out"))
    why = "timeout";
  return why.isEmpty() ? m : why + " — " + m;
}

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

ManagedState query_managed_state(Targets& t) {
  ManagedState s;
  s.pg_external = t.config().pg_conninfo.has_value();
  s.redis_external = !t.config().redis_nodes.empty();
  if (auto* pg = t.managed_postgres()) {
    s.pg_started = true;
    s.pg_running = pg->running();
    s.pg_port = pg->port();
    s.pg_version = QString::fromStdString(pg->version());
    s.pg_dir = QString::fromStdString(pg->data_dir().string());
  }
  for (auto* r : t.managed_redis())
    s.redis.push_back({r->port(), QString::fromStdString(r->version()), r->running()});
  return s;
}

QString describe_managed_state(const ManagedState& s) {
  QStringList lines;
  if (s.pg_external)
    lines << "PostgreSQL: external (see below)";
  else if (!s.pg_started)
    lines << "PostgreSQL: managed, not started yet (starts on first use)";
  else
    lines << QString("PostgreSQL %1: managed, %2 on 127.0.0.1:%3 (data in %4)")
                 .arg(s.pg_version, s.pg_running ? "running" : "stopped")
                 .arg(s.pg_port)
                 .arg(s.pg_dir);
  if (s.redis_external)
    lines << "Redis: external (see below)";
  else if (s.redis.empty())
    lines << "Redis: managed, not started yet (starts on first use)";
  else
    for (const auto& r : s.redis)
      lines << QString("Redis %1: managed, %2 on 127.0.0.1:%3")
                   .arg(r.version, r.running ? "running" : "stopped")
                   .arg(r.port);
  return lines.join('\n');
}

ConnectionResult test_postgres_connection(const TargetsForm& f, std::shared_ptr<Targets> t) {
  try {
    std::string conninfo;
    QString prefix;
    if (f.pg_managed) {
      PgTarget pg = t->postgres();  // starts the managed server on first use
      conninfo = pg.conninfo;
      prefix = "managed ";
    } else {
      conninfo = pg_conninfo(f);
    }
    // A frozen server is given up on after the shortest statement timeout plus the slack.
    PgConnection c(conninfo, PgLimits{kAnswerWithinMs / 1000, std::chrono::seconds(1)});
    std::string v = c.server_version_string();
    return {true,
            QString("%1PostgreSQL %2 at %3")
                .arg(prefix, QString::fromStdString(v), QString::fromStdString(c.describe()))};
  } catch (const std::exception& e) {
    return {false, explain(e.what())};
  }
}

ConnectionResult test_redis_connection(const TargetsForm& f, std::shared_ptr<Targets> t) {
  try {
    std::vector<RedisEndpoint> nodes;
    QString prefix;
    if (f.redis_managed) {
      nodes = t->redis(1).nodes;
      prefix = "managed ";
    } else {
      nodes = redis_endpoints(f);
    }
    // All nodes at once, so the answer comes within one timeout.
    std::vector<std::future<std::string>> answers;
    for (const auto& n : nodes)
      answers.push_back(std::async(std::launch::async, [n] {
        RedisClient c(n, std::chrono::milliseconds(kAnswerWithinMs));
        return c.server_version();
      }));
    QStringList ok;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      ok << QString("%1Redis %2 at %3")
                .arg(prefix, QString::fromStdString(answers[i].get()),
                     QString::fromStdString(nodes[i].address()));
    return {true, ok.join("; ")};
  } catch (const std::exception& e) {
    return {false, explain(e.what())};
  }
}

TargetsPage::TargetsPage(std::function<std::shared_ptr<Targets>()> targets, QWidget* parent)
    : QWidget(parent), targets_(std::move(targets)) {
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
  pg_test_ = new QPushButton("Test connection");
  pg_test_->setObjectName("pgTest");
  pg_status_ = status_label();
  pg_status_->setObjectName("pgStatus");
  pl->addRow(pg_test_, pg_status_);
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
  redis_test_ = new QPushButton("Test connection");
  redis_test_->setObjectName("redisTest");
  redis_status_ = status_label();
  redis_status_->setObjectName("redisStatus");
  rl->addRow(redis_test_, redis_status_);
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
  connect(pg_test_, &QPushButton::clicked, this, &TargetsPage::testPostgres);
  connect(redis_test_, &QPushButton::clicked, this, &TargetsPage::testRedis);
  for (auto* b : {pg_managed_, pg_external_, redis_managed_, redis_external_})
    connect(b, &QRadioButton::toggled, this, &TargetsPage::updateEnabled);
  // What was said of one mode's server is not true of the other's.
  connect(pg_managed_, &QRadioButton::toggled, this, [this] { clearModeErrors(true); });
  connect(redis_managed_, &QRadioButton::toggled, this, [this] { clearModeErrors(false); });
  connect(pg_conninfo_, &QLineEdit::textChanged, this, &TargetsPage::updateEnabled);
  connect(redis_nodes_, &QLineEdit::textChanged, this, &TargetsPage::updateEnabled);
  connect(&pg_watch_, &QFutureWatcher<ConnectionResult>::finished, this,
          [this] { onTestAnswered(true); });
  connect(&redis_watch_, &QFutureWatcher<ConnectionResult>::finished, this,
          [this] { onTestAnswered(false); });
  connect(&start_watch_, &QFutureWatcher<ConnectionResult>::finished, this, [this] {
    const ConnectionResult r = start_watch_.result();
    if (!r.ok) managed_status_->setText("✘ " + r.text);
    emit managedStarted(r.ok, r.text);
    if (auto next = std::exchange(pending_start_, std::nullopt)) return startManaged(*next);
    if (r.ok) refreshManagedState();
  });
  connect(&state_watch_, &QFutureWatcher<ManagedState>::finished, this,
          [this] { managed_status_->setText(describe_managed_state(state_watch_.result())); });
  connect(state_timer_, &QTimer::timeout, this, &TargetsPage::refreshManagedState);
}

void TargetsPage::onTestAnswered(bool pg) {
  auto& watch = pg ? pg_watch_ : redis_watch_;
  if (watch.property("generation").toInt() != (pg ? pg_generation_ : redis_generation_))
    return;  // superseded
  auto r = watch.result();
  (pg ? pg_status_ : redis_status_)->setText((r.ok ? "✔ " : "✘ ") + r.text);
  (pg ? pg_test_ : redis_test_)->setEnabled(true);
  emit tested(pg ? "postgres" : "redis", r.ok, r.text);
  refreshManagedState();
}

TargetsPage::~TargetsPage() {
  waitForBackground();
}

void TargetsPage::waitForBackground() {
  pg_watch_.waitForFinished();
  redis_watch_.waitForFinished();
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
      return pg_status_;
    case TargetField::PgSchema:
      return pg_schema_error_;
    case TargetField::RedisServer:
      return redis_status_;
    case TargetField::RedisPrefix:
      return redis_prefix_error_;
  }
  return pg_status_;
}

void TargetsPage::setTargetError(TargetField field, const QString& text) {
  QLabel* l = field_label(field);
  const bool status = l == pg_status_ || l == redis_status_;  // shared with Test connection
  l->setText(text.isEmpty() || !status ? text : "✘ " + text);
  if (!status) l->setVisible(!text.isEmpty());
}

QString TargetsPage::targetError(TargetField field) const {
  return field_label(field)->text();
}

void TargetsPage::clearTargetErrors() {
  for (auto f : {TargetField::PgServer, TargetField::PgSchema, TargetField::RedisServer,
                 TargetField::RedisPrefix})
    setTargetError(f, {});
}

void TargetsPage::clearModeErrors(bool pg) {
  ++(pg ? pg_generation_ : redis_generation_);  // an answer still to come is not wanted
  (pg ? pg_test_ : redis_test_)->setEnabled(true);
  setTargetError(pg ? TargetField::PgServer : TargetField::RedisServer, {});
  setTargetError(pg ? TargetField::PgSchema : TargetField::RedisPrefix, {});
  setApplyError({});
}

void TargetsPage::updateEnabled() {
  bool pg_ext = pg_external_->isChecked();
  bool raw = !pg_conninfo_->text().trimmed().isEmpty();
  for (QWidget* w : std::initializer_list<QWidget*>{pg_host_, pg_port_, pg_db_, pg_user_,
                                                    pg_password_, pg_sslmode_})
    w->setEnabled(pg_ext && !raw);
  pg_conninfo_->setEnabled(pg_ext);
  bool redis_ext = redis_external_->isChecked();
  bool nodes = !redis_nodes_->text().trimmed().isEmpty();
  redis_host_->setEnabled(redis_ext && !nodes);
  redis_port_->setEnabled(redis_ext && !nodes);
  redis_password_->setEnabled(redis_ext);
  redis_nodes_->setEnabled(redis_ext);
  redis_cluster_->setEnabled(redis_ext);
}

void TargetsPage::runTest(const QString& kind) {
  const bool pg = kind == "postgres";
  TargetsForm f = form();
  auto targets = targets_();
  QLabel* status = pg ? pg_status_ : redis_status_;
  QPushButton* button = pg ? pg_test_ : redis_test_;
  auto& watch = pg ? pg_watch_ : redis_watch_;
  int& generation = pg ? pg_generation_ : redis_generation_;
  const bool managed = pg ? f.pg_managed : f.redis_managed;
  ++generation;
  status->setText(managed ? "Starting the managed server if needed…" : "Connecting…");
  button->setEnabled(false);
  watch.setProperty("generation", generation);
  watch.setFuture(
      QtConcurrent::run(pg ? test_postgres_connection : test_redis_connection, f, targets));
  if (managed) return;  // starting a server may take longer than a connection
  // An external server answers within 5 s, or the person is told it did not.
  const int gen = generation;
  QTimer::singleShot(kAnswerWithinMs + 500, this, [this, pg, gen, status, button] {
    int& current = pg ? pg_generation_ : redis_generation_;
    auto& w = pg ? pg_watch_ : redis_watch_;
    if (current != gen || w.isFinished()) return;
    ++current;  // a late answer is ignored
    QString text = "timeout — no answer within 5 s";
    status->setText("✘ " + text);
    button->setEnabled(true);
    emit tested(pg ? "postgres" : "redis", false, text);
  });
}

void TargetsPage::testPostgres() {
  runTest("postgres");
}
void TargetsPage::testRedis() {
  runTest("redis");
}
QString TargetsPage::managedStatus() const {
  return managed_status_->text();
}

void TargetsPage::refreshManagedState() {
  if (state_watch_.isRunning()) return;
  auto targets = targets_();
  state_watch_.setFuture(QtConcurrent::run([targets] { return query_managed_state(*targets); }));
}

void TargetsPage::startManaged(const TargetNeeds& needs) {
  if (start_watch_.isRunning()) {  // one start at a time: this one when it ends
    pending_start_ = needs;
    return;
  }
  auto targets = targets_();
  managed_status_->setText("Starting the managed servers the plan needs…");
  start_watch_.setFuture(QtConcurrent::run([targets, needs] {
    try {
      targets->start_managed(needs);
      return ConnectionResult{true, QString("managed servers ready")};
    } catch (const std::exception& e) {
      return ConnectionResult{false, explain(e.what())};
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
