// The IO-list experiment's event-driven client pool: each thread's connections move through
// their appends as their results come, over one poll set (iolist/async_pool.h).
#include "iolist/async_pool.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "common/clock.h"
#include "common/run.h"
#include "targets/io_wait.h"
#include "targets/pg_text.h"

namespace perflab::iolist {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

// One connection's append or read: the statement in flight, what it has sent and received so far.
struct AsyncPool::Client {
  enum class Step { Begin, Check, Insert, Copy, Commit, Rollback, Read, Done };
  PgConnection* conn = nullptr;
  EventStore* store = nullptr;
  const ClientAppend* job = nullptr;
  const AppendOptions* options = nullptr;
  AppendTiming* timing = nullptr;
  Step step = Step::Done;
  std::optional<VersionCheck> check;
  EventStore::BuiltInsert insert;
  std::string created_at;
  std::optional<StreamRead> read;             // a read's parameters
  std::vector<RecordedEvent>* got = nullptr;  // a read's events
  std::size_t copied = 0;                     // COPY: the payload's bytes queued so far
  bool writing = false;                       // libpq has output not yet sent (PQflush said 1)
  // The statement's result: its first error, else its last (as PgConnection keeps).
  std::unique_ptr<pg_result, PgResultClear> result;
  Clock::time_point deadline;       // of the statement in flight
  std::int64_t phase_start_ns = 0;  // wall clock at the start of the current phase
  std::exception_ptr error;

  pg_conn* pq() const { return conn->native_handle(); }
  bool active() const { return step != Step::Done; }
  short events() const {
    return static_cast<short>(POLLIN | (writing || step == Step::Copy ? POLLOUT : 0));
  }

  // The phase that just ended, from phase_start_ns.
  void lap(Phase p) {
    const std::int64_t now = wall_ns();
    timing->wall_ns[static_cast<std::size_t>(p)] += now - phase_start_ns;
    phase_start_ns = now;
  }
  void fail(std::exception_ptr e) {
    if (!error) error = std::move(e);
  }
  // The connection is unusable (libpq's reason, or closed): the append ends here.
  void broken() {
    fail(std::make_exception_ptr(conn->error()));
    step = Step::Done;
  }
  // No answer in time, or a stop: as PgConnection gives up, a cancel request and the close.
  void abandon(const std::string& why) {
    const std::string target = conn->describe();
    conn->abandon();
    fail(std::make_exception_ptr(PgError("PostgreSQL at " + target + ": " + why)));
    step = Step::Done;
  }

  void start(const ClientAppend& a, const AppendOptions& o, AppendTiming& t);
  void start_read(const ClientRead& rd, std::vector<RecordedEvent>& out);
  void on_ready(short revents);

 private:
  // A statement was queued (`ok`) or not: sends what it can now, the rest once writable.
  void sent(int ok, Step next);
  void flush();
  void send_simple(const char* sql, Step next) { sent(PQsendQuery(pq(), sql), next); }
  void send_params(const char* sql, const PgParams& p, Step next);
  void send_insert();
  void queue_copy();
  void statement_done();
  void next_after(PgResult r);
  void end_transaction();
};

void AsyncPool::Client::start(const ClientAppend& a, const AppendOptions& o, AppendTiming& t) {
  job = &a;
  options = &o;
  timing = &t;
  t = {};
  check.reset();
  insert = {};
  copied = 0;
  writing = false;
  result.reset();
  phase_start_ns = wall_ns();
  created_at = pg_timestamp_text(unix_us_now());
  if (!pq()) return broken();
  send_simple(append_begin_sql(o).c_str(), Step::Begin);
}

void AsyncPool::Client::start_read(const ClientRead& rd, std::vector<RecordedEvent>& out) {
  got = &out;
  out.clear();
  writing = false;
  result.reset();
  read.emplace(rd.stream_uuid, rd.start_version, rd.count);
  if (!pq()) return broken();
  send_params(store->read_sql(), read->params(), Step::Read);
}

void AsyncPool::Client::sent(int ok, Step next) {
  if (!ok) return broken();
  step = next;
  result.reset();
  deadline = Clock::now() + conn->limits().reply_timeout();
  flush();
}

void AsyncPool::Client::flush() {
  const int r = PQflush(pq());
  if (r < 0) return broken();
  writing = r == 1;
}

void AsyncPool::Client::send_params(const char* sql, const PgParams& p, Step next) {
  sent(PQsendQueryParams(pq(), sql, static_cast<int>(p.values.size()), nullptr, p.values.data(),
                         p.lengths.data(), p.formats.data(), 0),
       next);
}

// As EventStore::send_insert: COPY (its data once the server asks), the prepared statement, or
// the text with its parameters.
void AsyncPool::Client::send_insert() {
  const PgParams& p = insert.params;
  if (insert.builder == Builder::Copy)
    send_simple(insert.sql.c_str(), Step::Insert);
  else if (insert.prepared)
    sent(PQsendQueryPrepared(pq(), insert.prepared->c_str(), static_cast<int>(p.values.size()),
                             p.values.data(), p.lengths.data(), p.formats.data(), 0),
         Step::Insert);
  else
    send_params(insert.sql.c_str(), p, Step::Insert);
}

// COPY ... FROM STDIN asked for its data: the payload and its end, queued (libpq grows its
// buffer; 0 means try again once the socket takes more).
void AsyncPool::Client::queue_copy() {
  const std::string& payload = insert.copy_payload;
  constexpr std::size_t kChunk = 1 << 20;
  while (copied < payload.size()) {
    const std::size_t len = std::min(kChunk, payload.size() - copied);
    const int r = PQputCopyData(pq(), payload.data() + copied, static_cast<int>(len));
    if (r < 0) return broken();
    if (r == 0) return flush();
    copied += len;
  }
  const int r = PQputCopyEnd(pq(), nullptr);
  if (r < 0) return broken();
  if (r == 0) return flush();
  step = Step::Insert;  // the COPY's own result follows
  flush();
}

void AsyncPool::Client::on_ready(short revents) {
  if (writing) {
    flush();
    if (!active()) return;
  }
  if ((revents & (POLLIN | POLLERR | POLLHUP)) && !PQconsumeInput(pq())) return broken();
  if (step == Step::Copy) {
    queue_copy();
    if (step == Step::Copy) return;
  }
  while (active() && !PQisBusy(pq())) {
    pg_result* r = PQgetResult(pq());
    if (!r) {
      statement_done();  // sends the next statement, if any
      continue;
    }
    if (PQresultStatus(r) == PGRES_COPY_IN) {
      PQclear(r);
      step = Step::Copy;
      queue_copy();
      if (step == Step::Copy) return;
      continue;
    }
    if (result && PQresultStatus(result.get()) == PGRES_FATAL_ERROR)
      PQclear(r);
    else
      result.reset(r);
  }
}

void AsyncPool::Client::statement_done() {
  if (step == Step::Rollback) {
    step = Step::Done;  // the append's failure is already its error
    return;
  }
  if (!result) return broken();  // libpq lost the connection
  const ExecStatusType st = PQresultStatus(result.get());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY) {
    const PgError e = conn->error(result.get());
    try {
      if (step == Step::Check) check->fail(e);  // WrongExpectedVersion for an existing stream
      throw e;
    } catch (...) {
      fail(std::current_exception());
    }
    return end_transaction();
  }
  try {
    next_after(PgResult(result.release()));
  } catch (...) {  // WrongExpectedVersion, or the build's failure
    fail(std::current_exception());
    end_transaction();
  }
}

// The statement after a successful one, as EventStore::append_to_stream sends them.
void AsyncPool::Client::next_after(PgResult r) {
  switch (step) {
    case Step::Begin:
      lap(Phase::Begin);
      check.emplace(*store, job->stream_uuid, job->expected_version);
      return send_params(check->sql(), check->params(), Step::Check);
    case Step::Check:
      check->take(r);
      if (!check->done()) return send_params(check->sql(), check->params(), Step::Check);
      lap(Phase::Check);
      insert = store->build_append_insert(check->stream_id(), job->expected_version + 1, created_at,
                                          *job->events, options->builder);
      lap(Phase::Build);
      return send_insert();
    case Step::Insert:
      lap(Phase::Insert);
      return send_simple("COMMIT", Step::Commit);
    case Step::Commit:
      lap(Phase::Commit);
      step = Step::Done;
      return;
    case Step::Read:
      *got = decode_events(r);
      step = Step::Done;
      return;
    case Step::Copy:
    case Step::Rollback:
    case Step::Done:
      break;
  }
  step = Step::Done;
}

// After a failure: a transaction left open (or aborted) is rolled back, as PgTransaction does.
void AsyncPool::Client::end_transaction() {
  const PGTransactionStatusType t = pq() ? PQtransactionStatus(pq()) : PQTRANS_UNKNOWN;
  if (t == PQTRANS_INTRANS || t == PQTRANS_INERROR)
    send_simple("ROLLBACK", Step::Rollback);
  else
    step = Step::Done;
}

namespace {

std::size_t thread_count(std::size_t n, std::size_t threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  return std::min(n, threads);
}

}  // namespace

AsyncPool::AsyncPool(std::size_t n, const PgTarget& pg, EventIdAllocator& ids, std::stop_token stop,
                     std::size_t threads)
    : AsyncPool(n, std::vector<PgTarget>{pg}, ids, std::move(stop), threads) {}

AsyncPool::AsyncPool(std::size_t n, const std::vector<PgTarget>& targets, EventIdAllocator& ids,
                     std::stop_token stop, std::size_t threads)
    : clients_(n, targets, ids, stop),
      stop_(std::move(stop)),
      state_(n),
      threads_(thread_count(n, threads), [this](std::size_t t) { work(t); }) {
  for (std::size_t i = 0; i < n; ++i) {
    state_[i].conn = &clients_.connection(i);
    state_[i].store = &clients_.store(i);
  }
}

AsyncPool::~AsyncPool() = default;

ClientPoolSample AsyncPool::append(const std::vector<ClientAppend>& appends,
                                   const AppendOptions& options,
                                   std::vector<AppendTiming>& timings) {
  if (options.transport != Transport::RoundTrips)
    throw std::invalid_argument(
        "the event-driven client pool sends an append's statements one round trip each only");
  if (appends.size() != size() || timings.size() != size())
    throw std::invalid_argument("the event-driven client pool has " + std::to_string(size()) +
                                " clients, given " + std::to_string(appends.size()) + " appends");
  for (const ClientAppend& a : appends) check_append_size(*a.events, options.builder);
  appends_ = &appends;
  options_ = &options;
  timings_ = &timings;
  reads_ = nullptr;
  return operate();
}

ClientPoolSample AsyncPool::read(const std::vector<ClientRead>& reads,
                                 std::vector<std::vector<RecordedEvent>>& got) {
  if (reads.size() != size())
    throw std::invalid_argument("the event-driven client pool has " + std::to_string(size()) +
                                " clients, given " + std::to_string(reads.size()) + " reads");
  got.resize(size());
  reads_ = &reads;
  got_ = &got;
  return operate();
}

ClientPoolSample AsyncPool::operate() {
  const ClientPoolSample s = threads_.run();
  for (const Client& c : state_)  // the first client's failure, as ClientPool's first worker's
    if (c.error) std::rethrow_exception(c.error);
  return s;
}

void AsyncPool::reserve_stream_ids(std::size_t count) {
  for (std::size_t i = 0; i < size(); ++i) clients_.store(i).reserve_stream_ids(count);
}

void AsyncPool::work(std::size_t t) {
  try {
    drive(t);
  } catch (...) {  // nothing of the thread's clients can be trusted to go on
    for (std::size_t i = t; i < state_.size(); i += threads_.size()) {
      Client& c = state_[i];
      c.fail(std::current_exception());
      if (c.active()) c.abandon("the client failed");
    }
  }
}

void AsyncPool::drive(std::size_t t) {
  std::vector<Client*> mine;
  for (std::size_t i = t; i < state_.size(); i += threads_.size()) {
    Client& c = state_[i];
    mine.push_back(&c);
    c.error = nullptr;
    if (stop_.stop_requested())  // nothing is sent after a stop
      c.fail(std::make_exception_ptr(PgError("PostgreSQL: stopped before the operation")));
    else if (reads_)
      c.start_read((*reads_)[i], (*got_)[i]);
    else
      c.start((*appends_)[i], *options_, (*timings_)[i]);
  }
  std::vector<pollfd> fds;
  std::vector<Client*> polled;
  for (;;) {
    fds.clear();
    polled.clear();
    Clock::time_point next = Clock::time_point::max();
    for (Client* c : mine) {
      if (!c->active()) continue;
      fds.push_back({PQsocket(c->pq()), c->events(), 0});
      polled.push_back(c);
      next = std::min(next, c->deadline);
    }
    if (polled.empty()) return;
    if (stop_.stop_requested()) {
      for (Client* c : polled) c->abandon("stopped while waiting for the server");
      return;
    }
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now());
    const auto wait = std::clamp(left, std::chrono::milliseconds(0), kStopSlice);
    const int n = ::poll(fds.data(), fds.size(), static_cast<int>(wait.count()));
    if (n < 0 && errno != EINTR) {
      const std::string why = std::string("poll failed: ") + std::strerror(errno);
      for (Client* c : polled) c->abandon(why);
      return;
    }
    for (std::size_t k = 0; n > 0 && k < fds.size(); ++k)
      if (fds[k].revents) polled[k]->on_ready(fds[k].revents);
    const Clock::time_point now = Clock::now();
    for (Client* c : polled)
      if (c->active() && now >= c->deadline)
        c->abandon("no answer within " + std::to_string(c->conn->limits().reply_timeout().count()) +
                   " ms" +
                   " (timeout: the server is frozen, overloaded or unreachable); the connection "
                   "was closed");
  }
}

}  // namespace perflab::iolist
