// The load generator's event loop: every client of a test on one epoll thread (closed loop as
// redis-benchmark, or open loop on a schedule with a timerfd), and --cluster's thread per master.
#include "sharding/loadgen.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <queue>
#include <random>
#include <thread>

#include "bench_connection.h"
#include "common/clock.h"
#include "targets/cluster.h"

namespace perflab::sharding {

using bench::BClient;
using bench::blocking_command;
using bench::connect_to;
using bench::kPlaceholder;
using bench::now_us;
using bench::padded_tag;
using bench::put_12_digits;
using bench::test_command;

namespace {

// req/s from requests and seconds; the latency figures from the histogram.
void set_rate_and_latency(BenchResult& r, const LatencyHistogram& h) {
  r.rps = r.seconds > 0 ? static_cast<double>(r.requests) / r.seconds : 0;
  r.avg_ms = h.mean_us() / 1000.0;
  r.min_ms = static_cast<double>(h.min_us()) / 1000.0;
  r.p50_ms = static_cast<double>(h.quantile_us(0.50)) / 1000.0;
  r.p95_ms = static_cast<double>(h.quantile_us(0.95)) / 1000.0;
  r.p99_ms = static_cast<double>(h.quantile_us(0.99)) / 1000.0;
  r.max_ms = static_cast<double>(h.max_us()) / 1000.0;
  r.latency = h;
}

// Open loop: what the schedule offered (requests / its span), the target for uniform arrivals.
double offered_rps(std::int64_t sent, std::int64_t last_intended_ns, std::int64_t start_ns,
                   double rate) {
  if (rate <= 0) return 0;
  const double span_s = (static_cast<double>(last_intended_ns - start_ns) + 1e9 / rate) / 1e9;
  return sent > 0 && span_s > 0 ? static_cast<double>(sent) / span_s : rate;
}

// Open loop: the corrected percentiles beyond set_rate_and_latency's, the send lags, what the
// schedule offered and the judgement. Nothing for closed loop.
void set_open_loop(BenchResult& r, const BenchOptions& o, const LatencyHistogram& latency,
                   const LatencyHistogram& send_lag, const LatencyHistogram& generator_lag,
                   double offered) {
  if (o.rate <= 0) return;
  const auto ms = [](std::int64_t us) { return static_cast<double>(us) / 1000.0; };
  OpenLoopResult& ol = r.open_loop;
  ol.target_rps = o.rate;
  ol.arrivals = o.arrivals;
  ol.offered_rps = offered;
  ol.p90_ms = ms(latency.quantile_us(0.90));
  ol.p999_ms = ms(latency.quantile_us(0.999));
  ol.p9999_ms = ms(latency.quantile_us(0.9999));
  ol.send_lag_p99_ms = ms(send_lag.quantile_us(0.99));
  ol.send_lag_max_ms = ms(send_lag.max_us());
  ol.generator_lag_p99_ms = ms(generator_lag.quantile_us(0.99));
  judge_open_loop(ol, r.rps);
}

// One test, built as redis-benchmark is: every client connected before the clock starts, then
// one event loop calling each client's write handler (send its next pipeline batch) and read
// handler (count the replies; when the batch is answered, arm writing again).
//
// The requests of one test are one pool, as redis-benchmark's requests_issued: with --cluster a
// thread per master draws batches from it until -n are issued, so a faster master serves more.
class RequestPool {
 public:
  explicit RequestPool(std::int64_t requests) : requests_(requests) {}
  // Claims up to `want` requests; 0 once all are issued.
  int claim(int want) {
    std::int64_t cur = issued_.load(std::memory_order_relaxed);
    while (cur < requests_) {
      const std::int64_t k = std::min<std::int64_t>(want, requests_ - cur);
      if (issued_.compare_exchange_weak(cur, cur + k, std::memory_order_relaxed))
        return static_cast<int>(k);
    }
    return 0;
  }
  bool exhausted() const { return issued_.load(std::memory_order_relaxed) >= requests_; }

 private:
  const std::int64_t requests_;
  std::atomic<std::int64_t> issued_{0};
};

class Benchmark {
 public:
  // slots: with --cluster, the slots of this Benchmark's master; each batch's keys then carry
  // the tag of one of them, drawn at random per batch (redis-benchmark's setClusterKeyHashTag),
  // so the keys spread over all the master's slots.
  Benchmark(const BenchOptions& o, BenchTest test, std::stop_token stop, RequestPool& pool,
            std::vector<int> slots = {})
      : o_(o),
        stop_(std::move(stop)),
        pool_(pool),
        one_(test_command(o, test)),
        rng_(o.seed ? o.seed : static_cast<std::uint64_t>(now_us())) {
    res_.test = test;
    if (o_.keyspace > 0)
      for (std::size_t p = one_.find(kPlaceholder); p != std::string::npos;
           p = one_.find(kPlaceholder, p + 1))
        offsets_.push_back(p);
    for (int slot : slots) tags_.push_back(padded_tag(slot));
    if (!slots.empty()) {
      const std::string tag = cluster_bench_key_prefix("", slots.front());
      for (std::size_t p = one_.find(tag); p != std::string::npos; p = one_.find(tag, p + 1))
        tag_offsets_.push_back(p + 1);  // the letters after '{'
    }
  }
  ~Benchmark() {
    if (ep_ >= 0) ::close(ep_);
    if (timer_ >= 0) ::close(timer_);
  }
  Benchmark(const Benchmark&) = delete;
  Benchmark& operator=(const Benchmark&) = delete;

  // Connects (and AUTHs) every client; run() then starts at `start` (the same for every thread
  // of a --cluster test: all connected before the clock starts, as redis-benchmark).
  void connect() { connect_clients(); }
  BenchResult run(std::int64_t start) {
    start_ = last_reply_ = progress_ = start;
    if (o_.time_limit.count() > 0) deadline_ = start_ + std::int64_t{o_.time_limit.count()} * 1000;
    if (open_) start_schedules();
    epoll_event events[256];
    while (completed_ < issued_ || (!stop_issuing_ && !pool_.exhausted())) {
      if (!keep_going()) break;
      if (open_) dispatch_due();
      const int n = ::epoll_wait(ep_, events, 256, 100);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error(std::string("epoll_wait: ") + std::strerror(errno));
      }
      for (int e = 0; e < n; ++e) {
        if (events[e].data.u64 == kTimerEvent) {
          std::uint64_t expirations = 0;  // nonblocking: a timer re-armed since reads nothing
          [[maybe_unused]] auto got = ::read(timer_, &expirations, sizeof expirations);
          continue;
        }
        const auto i = static_cast<std::size_t>(events[e].data.u64);
        if (events[e].events & EPOLLOUT) write_handler(i);
        if (events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) read_handler(i);
      }
    }
    return result();
  }

 private:
  // Connects (and AUTHs) every client, each with its own copy of the pipeline batch, and
  // registers it for writing its first batch.
  void connect_clients() {
    std::string batch;
    batch.reserve(one_.size() * static_cast<std::size_t>(o_.pipeline));
    for (int i = 0; i < o_.pipeline; ++i) batch += one_;
    for (int i = 0; i < o_.clients; ++i) {
      auto c = std::make_unique<BClient>();
      c->fd = connect_to(o_, stop_);
      if (!o_.password.empty()) {
        std::string r = blocking_command(c->fd, {"AUTH", o_.password}, o_, stop_);
        if (r.empty() || r[0] != '+')
          throw std::runtime_error("AUTH failed: " + r.substr(0, r.find('\r')));
      }
      c->in.resize(64 * 1024);
      clients_.push_back(std::move(c));
      batches_.push_back(batch);
    }
    ep_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (ep_ < 0) throw std::runtime_error(std::string("epoll_create1: ") + std::strerror(errno));
    for (std::size_t i = 0; i < clients_.size(); ++i) {
      epoll_event e{};
      e.events = open_ ? EPOLLIN : EPOLLOUT;  // open loop: the timer says when to write
      e.data.u64 = i;
      ::epoll_ctl(ep_, EPOLL_CTL_ADD, clients_[i]->fd, &e);
      clients_[i]->want_write = !open_;
    }
    if (!open_) return;
    timer_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);  // as wall_ns()
    if (timer_ < 0) throw std::runtime_error(std::string("timerfd: ") + std::strerror(errno));
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.u64 = kTimerEvent;
    ::epoll_ctl(ep_, EPOLL_CTL_ADD, timer_, &e);
  }

  // Before each loop turn: a stop, the time limit, or a server that stopped answering.
  bool keep_going() {
    if (stop_.stop_requested()) {
      res_.cancelled = true;
      return false;
    }
    if (deadline_ && !stop_issuing_ && now_us() >= deadline_) {
      stop_issuing_ = true;
      res_.time_limited = !pool_.exhausted();
      if (completed_ == issued_) return false;
    }
    if (completed_ < issued_ &&
        now_us() - progress_ > std::int64_t{o_.reply_timeout.count()} * 1000)
      throw std::runtime_error("no reply from " + o_.host + ":" + std::to_string(o_.port) +
                               " within " + std::to_string(o_.reply_timeout.count()) +
                               " ms (timeout) after " + std::to_string(completed_) +
                               " requests: is the server frozen or unreachable?");
    return true;
  }

  // Random keys for the first `commands` commands of a batch, and with --cluster one random
  // slot's tag for all of them.
  void randomize(std::string& b, int commands) {
    for (int c = 0; c < commands; ++c)
      for (std::size_t off : offsets_) {
        std::uint64_t v = rng_() % static_cast<std::uint64_t>(o_.keyspace);
        put_12_digits(b.data() + static_cast<std::size_t>(c) * one_.size() + off, v);
      }
    if (tags_.empty()) return;
    const auto& letters = tags_[rng_() % tags_.size()];
    for (int c = 0; c < commands; ++c)
      for (std::size_t off : tag_offsets_)
        std::memcpy(b.data() + static_cast<std::size_t>(c) * one_.size() + off, letters.data(),
                    kClusterTagWidth);
  }

  // As redis-benchmark: a client whose batch is answered arms a writable event and writes the
  // next batch from it, in the next loop turn; once written it waits for readable again. This
  // keeps the client's cost per request (and so the figures on a busy machine) comparable.
  void set_write_interest(std::size_t i, bool on) {
    BClient& c = *clients_[i];
    if (c.want_write == on) return;
    c.want_write = on;
    epoll_event e{};
    e.events = on ? EPOLLOUT : EPOLLIN;
    if (open_ && on) e.events |= EPOLLIN;  // replies keep coming while a write waits
    e.data.u64 = i;
    if (o_.redis_benchmark_events && !open_) {
      // redis-benchmark's ae loop removes the old event (the fd leaves epoll) and adds the new;
      // re-arming writing (resetClient) it first removes a writable event the client does not
      // have, which ae still passes to epoll: a MOD to the same mask.
      if (on) {
        epoll_event same{};
        same.events = EPOLLIN;
        same.data.u64 = i;
        ::epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &same);
      }
      ::epoll_ctl(ep_, EPOLL_CTL_DEL, c.fd, nullptr);
      ::epoll_ctl(ep_, EPOLL_CTL_ADD, c.fd, &e);
    } else {
      ::epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &e);
    }
  }

  // Writable: the rest of the batch in flight, or the next batch (or nothing: idle).
  void write_handler(std::size_t i) {
    BClient& c = *clients_[i];
    if (c.written < c.to_write || open_) {
      if (c.written < c.to_write) write_some(i);
      return;  // open loop: the timer sends
    }
    const int k = stop_issuing_ ? 0 : pool_.claim(o_.pipeline);
    if (k == 0) {
      set_write_interest(i, false);  // nothing more to send: idle
      return;
    }
    issued_ += k;
    randomize(batches_[i], k);
    c.to_write = one_.size() * static_cast<std::size_t>(k);
    c.written = 0;
    c.outstanding = k;
    c.batch_start = now_us();
    write_some(i);
  }

  void write_some(std::size_t i) {
    BClient& c = *clients_[i];
    const std::string& b = batches_[i];
    while (c.written < c.to_write) {
      ssize_t n = ::send(c.fd, b.data() + c.written, c.to_write - c.written, MSG_NOSIGNAL);
      if (n > 0) {
        c.written += static_cast<std::size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (open_) set_write_interest(i, true);  // the rest when writable
        return;                                  // closed loop: still armed for writable
      } else {
        throw std::runtime_error(std::string("send: ") + std::strerror(errno));
      }
    }
    set_write_interest(i, false);
    if (open_) {
      c.room_since = std::max(c.room_since, wall_ns());
      wait_for_turn(i);
    }
  }

  // Readable: what arrived, then every complete reply in it.
  void read_handler(std::size_t i) {
    BClient& c = *clients_[i];
    if (c.in.size() - c.in_end < 16 * 1024) {
      if (c.in_start > 0) {
        std::memmove(c.in.data(), c.in.data() + c.in_start, c.in_end - c.in_start);
        c.in_end -= c.in_start;
        c.in_start = 0;
      }
      if (c.in.size() - c.in_end < 16 * 1024) c.in.resize(c.in.size() * 2);
    }
    ssize_t r = ::recv(c.fd, c.in.data() + c.in_end, c.in.size() - c.in_end, 0);
    if (r == 0)
      throw std::runtime_error("the server closed a connection after " +
                               std::to_string(completed_) + " requests");
    if (r < 0) {
      if (errno == EAGAIN || errno == EINTR) return;
      throw std::runtime_error(std::string("recv: ") + std::strerror(errno));
    }
    c.in_end += static_cast<std::size_t>(r);
    const std::int64_t t_ns = wall_ns(), t = t_ns / 1000;
    for (;;) {
      std::string_view data(c.in.data() + c.in_start, c.in_end - c.in_start);
      if (data.empty()) break;
      proxy::ParseResult pr = c.scanner.scan(data);
      if (pr.status == proxy::ParseStatus::Incomplete) break;
      if (pr.status == proxy::ParseStatus::Error) throw std::runtime_error(pr.error);
      if (data[0] == '-') {
        if (res_.errors++ == 0) res_.first_error = std::string(data.substr(1, data.find('\r') - 1));
        if (data.starts_with("-MOVED ")) ++res_.moved;
        if (data.starts_with("-ASK ")) ++res_.ask;
      }
      c.in_start += pr.consumed;
      if (c.in_start == c.in_end) c.in_start = c.in_end = 0;
      completed_++;
      last_reply_ = progress_ = t;
      if (open_) {
        if (c.intended.empty()) throw std::runtime_error("a reply to no request");
        const BClient::Outstanding sent = c.intended.front();
        hist_.record((t_ns - sent.from_ns) / 1000);  // from its intended time (or write)
        // From its write no lag of the generator is in it: less_lag() is hist_ itself.
        if (o_.from_intended) less_lag_.record((t_ns - sent.from_ns - sent.own_lag_ns) / 1000);
        c.intended.pop_front();
        if (c.outstanding-- == o_.pipeline) c.room_since = t_ns;
        continue;
      }
      hist_.record(t - c.batch_start);
      if (c.outstanding > 0 && --c.outstanding == 0 && !stop_issuing_ && !pool_.exhausted())
        set_write_interest(i, true);
    }
    if (open_) wait_for_turn(i);
  }

  // Open loop: each connection's schedule from the start, every connection waiting its turn.
  void start_schedules() {
    const std::uint64_t seed = rng_();
    for (std::size_t i = 0; i < clients_.size(); ++i) {
      BClient& c = *clients_[i];
      c.schedule.emplace(o_.rate, static_cast<int>(i), o_.clients, o_.arrivals, seed,
                         start_ * 1000);
      c.room_since = start_ * 1000;
      wait_for_turn(i);
    }
  }

  // Open loop: a connection with room for a request, no write in flight and requests left
  // waits on the timer for its next intended time.
  void wait_for_turn(std::size_t i) {
    BClient& c = *clients_[i];
    if (c.in_heap || c.outstanding >= o_.pipeline || c.written < c.to_write || stop_issuing_ ||
        pool_.exhausted())
      return;
    c.in_heap = true;
    turns_.emplace(c.schedule->next_ns(), i);
  }

  // Open loop: every connection whose next request is due sends; the timer is armed for the
  // next intended time (timerfd: sub-millisecond, no spinning).
  void dispatch_due() {
    const std::int64_t now = wall_ns();
    while (!turns_.empty() && turns_.top().first <= now && !stop_issuing_) {
      const std::size_t i = turns_.top().second;
      turns_.pop();
      clients_[i]->in_heap = false;
      send_due(i, now);
      wait_for_turn(i);
    }
    if (turns_.empty() || stop_issuing_ || turns_.top().first == armed_) return;
    armed_ = turns_.top().first;
    itimerspec at{};
    at.it_value.tv_sec = armed_ / 1'000'000'000;
    at.it_value.tv_nsec = armed_ % 1'000'000'000;
    ::timerfd_settime(timer_, TFD_TIMER_ABSTIME, &at, nullptr);
  }

  // Open loop: writes, in one batch, the requests of connection i that are due, up to -P
  // outstanding. A request's send lag runs from its intended time; the generator's own part of
  // it from when the request was due and the connection had room for it.
  void send_due(std::size_t i, std::int64_t now) {
    BClient& c = *clients_[i];
    due_.clear();
    while (static_cast<int>(due_.size()) < o_.pipeline - c.outstanding &&
           c.schedule->next_ns() <= now) {
      due_.push_back(c.schedule->next_ns());
      c.schedule->advance();
    }
    const int k = pool_.claim(static_cast<int>(due_.size()));
    if (k == 0) return;
    if (completed_ == issued_) progress_ = now / 1000;  // the reply timeout runs from here
    for (int j = 0; j < k; ++j) {
      const std::int64_t at = due_[static_cast<std::size_t>(j)];
      // (room_since can be a little after `now`: the batch before this one, of the same
      // dispatch, finished its write after it was read.)
      const std::int64_t own_lag = std::max<std::int64_t>(0, now - std::max(at, c.room_since));
      // Where its latency starts; from its write, the generator's lag is not in it.
      c.intended.push_back(o_.from_intended ? BClient::Outstanding{at, own_lag}
                                            : BClient::Outstanding{now, 0});
      send_lag_.record((now - at) / 1000);
      generator_lag_.record(own_lag / 1000);
      last_intended_ = std::max(last_intended_, at);
    }
    issued_ += k;
    randomize(batches_[i], k);
    c.to_write = one_.size() * static_cast<std::size_t>(k);
    c.written = 0;
    c.outstanding += k;
    write_some(i);
  }

  BenchResult result() {
    res_.requests = completed_;
    res_.seconds = static_cast<double>(last_reply_ - start_) / 1e6;
    set_rate_and_latency(res_, hist_);
    set_open_loop(res_, o_, hist_, send_lag_, generator_lag_,
                  offered_rps(issued_, last_intended_, start_ * 1000, o_.rate));
    if (open_) res_.latency_less_lag = less_lag();
    return res_;
  }

 public:
  const LatencyHistogram& histogram() const { return hist_; }
  const LatencyHistogram& send_lag() const { return send_lag_; }
  const LatencyHistogram& generator_lag() const { return generator_lag_; }
  const LatencyHistogram& less_lag() const { return o_.from_intended ? less_lag_ : hist_; }
  std::int64_t issued() const { return issued_; }
  std::int64_t last_intended_ns() const { return last_intended_; }

 private:
  const BenchOptions& o_;
  std::stop_token stop_;
  RequestPool& pool_;
  std::vector<std::array<char, kClusterTagWidth>> tags_;  // --cluster: of the master's slots
  BenchResult res_;
  const std::string one_;                 // one command, placeholders in its keys
  std::vector<std::size_t> offsets_;      // of the placeholders in one_ (-r only)
  std::vector<std::size_t> tag_offsets_;  // of the slot tags' letters in one_ (--cluster)
  std::mt19937_64 rng_;
  std::vector<std::unique_ptr<BClient>> clients_;
  std::vector<std::string> batches_;  // per client: the pipeline batch, keys randomized
  int ep_ = -1;
  LatencyHistogram hist_;
  std::int64_t issued_ = 0, completed_ = 0;
  bool stop_issuing_ = false;
  // progress_: the last reply, or the write that ended an idle spell (the reply timeout).
  std::int64_t start_ = 0, deadline_ = 0, last_reply_ = 0, progress_ = 0;
  // Open loop (a rate): the connections waiting for their next intended time, earliest first,
  // the timer armed for it (ns), the send lags, the latest intended time sent (ns).
  static constexpr std::uint64_t kTimerEvent = ~std::uint64_t{0};
  const bool open_ = o_.rate > 0;
  using Turn = std::pair<std::int64_t, std::size_t>;
  std::priority_queue<Turn, std::vector<Turn>, std::greater<>> turns_;
  int timer_ = -1;
  std::int64_t armed_ = -1, last_intended_ = 0;
  std::vector<std::int64_t> due_;
  // Open loop: each request's latency less the generator's own lag in sending it.
  LatencyHistogram send_lag_, generator_lag_, less_lag_;
};

}  // namespace

namespace {

// --cluster: a Benchmark per master on a thread of its own, all drawing from one pool of -n.
BenchResult run_cluster_bench(const BenchOptions& o, BenchTest test, std::stop_token stop) {
  const RedisEndpoint seed{o.host, o.port, o.password};
  std::vector<ClusterSlotRange> ranges;
  try {
    ranges = ClusterClient({seed}, o.reply_timeout, stop).slot_map();
  } catch (const RedisError& e) {
    throw std::runtime_error(std::string("--cluster: ") + e.what());
  }
  std::vector<BenchOptions> per_master;
  std::vector<std::vector<int>> slots;  // of each master
  for (const auto& r : ranges) {
    auto m = std::find_if(per_master.begin(), per_master.end(), [&](const auto& b) {
      return b.host == r.master.host && b.port == r.master.port;
    });
    if (m == per_master.end()) {
      BenchOptions b = o;
      b.cluster = false;
      b.host = r.master.host;
      b.port = r.master.port;
      b.key_prefix = cluster_bench_key_prefix(o.key_prefix, r.first);
      per_master.push_back(std::move(b));
      slots.emplace_back();
      m = per_master.end() - 1;
    }
    auto& own = slots[static_cast<std::size_t>(m - per_master.begin())];
    for (int slot = r.first; slot <= r.last; ++slot) own.push_back(slot);
  }
  if (per_master.size() < 2)
    throw std::runtime_error("--cluster: the cluster at " + seed.address() + " has " +
                             std::to_string(per_master.size()) + " master(s); at least 2 needed");
  // Client i goes to master i mod N (redis-benchmark's thread i mod N, one per master).
  const auto n = static_cast<int>(per_master.size());
  for (int i = 0; i < n; ++i) {
    BenchOptions& m = per_master[static_cast<std::size_t>(i)];
    m.clients = o.clients / n + (i < o.clients % n ? 1 : 0);
    m.rate = o.rate * m.clients / o.clients;  // open loop: each connection rate / -c
  }
  RequestPool pool(o.requests);
  std::vector<std::unique_ptr<Benchmark>> benches;
  for (std::size_t i = 0; i < per_master.size(); ++i)
    if (per_master[i].clients > 0)
      benches.push_back(
          std::make_unique<Benchmark>(per_master[i], test, stop, pool, std::move(slots[i])));
  for (auto& b : benches) b->connect();
  const std::int64_t start = now_us();
  std::vector<BenchResult> results(benches.size());
  std::vector<std::exception_ptr> failures(benches.size());
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < benches.size(); ++i)
      threads.emplace_back([&, i] {
        try {
          results[i] = benches[i]->run(start);
        } catch (...) {
          failures[i] = std::current_exception();
        }
      });
  }
  for (const auto& f : failures)
    if (f) std::rethrow_exception(f);
  BenchResult out;
  out.test = test;
  LatencyHistogram all, send_lag, generator_lag, less_lag;
  std::int64_t sent = 0, last_intended = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const BenchResult& r = results[i];
    out.requests += r.requests;
    out.errors += r.errors;
    out.moved += r.moved;
    out.ask += r.ask;
    if (out.first_error.empty()) out.first_error = r.first_error;
    out.seconds = std::max(out.seconds, r.seconds);
    out.cancelled = out.cancelled || r.cancelled;
    out.time_limited = out.time_limited || r.time_limited;
    all.merge(benches[i]->histogram());
    send_lag.merge(benches[i]->send_lag());
    generator_lag.merge(benches[i]->generator_lag());
    less_lag.merge(benches[i]->less_lag());
    sent += benches[i]->issued();
    last_intended = std::max(last_intended, benches[i]->last_intended_ns());
  }
  set_rate_and_latency(out, all);
  set_open_loop(out, o, all, send_lag, generator_lag,
                offered_rps(sent, last_intended, start * 1000, o.rate));
  if (o.rate > 0) out.latency_less_lag = less_lag;
  return out;
}

}  // namespace

BenchResult run_bench(const BenchOptions& o, BenchTest test, std::stop_token stop) {
  // Each option by its redis-benchmark flag, so that a caller's mistake names what to change.
  const auto bad = [](const std::string& flag, const std::string& value, const char* want) {
    throw std::invalid_argument("bad benchmark option " + flag + " " + value + ": " + want);
  };
  if (o.clients < 1) bad("-c", std::to_string(o.clients), "at least 1 client");
  if (o.requests < 1) bad("-n", std::to_string(o.requests), "at least 1 request");
  if (o.pipeline < 1) bad("-P", std::to_string(o.pipeline), "a depth of at least 1");
  if (o.data_size < 0) bad("-d", std::to_string(o.data_size), "a size of at least 0 bytes");
  if (o.keyspace < 0) bad("-r", std::to_string(o.keyspace), "a keyspace of at least 0");
  if (!(o.rate >= 0) || !std::isfinite(o.rate))
    bad("--rate", std::to_string(o.rate), "requests per second, 0 or more (0: closed loop)");
  if (o.cluster) return run_cluster_bench(o, test, std::move(stop));
  RequestPool pool(o.requests);
  Benchmark b(o, test, std::move(stop), pool);
  b.connect();
  return b.run(now_us());
}

}  // namespace perflab::sharding
