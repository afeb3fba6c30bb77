// perflab-latency-bench: what recording a latency costs, in ns per value, for the latency
// recorder and for the load generator's former histogram (1/64 resolution, kept here only to
// compare), and how many bytes each text form of a real distribution takes in a run file (a
// benchmark, not a test: it prints figures).
//   perflab-latency-bench [TRIES] [VALUES]
// Every try records the same values into each recorder in turn (alternating); each gives the
// median, min and max over the tries (thread CPU time), and the ratio new/old as the median of
// per-try ratios.
// The real distribution: round trips of one byte over a loopback TCP connection to a thread.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/latency_codec.h"
#include "common/latency_recorder.h"

using namespace perflab;

namespace {

// The load generator's histogram before the latency recorder replaced it: values below 128 us
// exact, above that 64 sub-buckets per power of two, microsecond input.
class FormerHistogram {
 public:
  FormerHistogram() : buckets_(kLinear + (kMaxExp - 7 + 1) * kSub, 0) {}
  void record(std::int64_t us) {
    if (us < 0) us = 0;
    buckets_[index(us)]++;
    if (count_ == 0 || us < min_) min_ = us;
    if (us > max_) max_ = us;
    count_++;
    sum_ += us;
  }
  std::uint64_t count() const { return count_; }
  std::int64_t sum() const { return sum_; }

 private:
  static constexpr int kSub = 64, kLinear = 128, kMaxExp = 44;
  static std::size_t index(std::int64_t us) {
    if (us < kLinear) return static_cast<std::size_t>(us);
    const int e = 63 - __builtin_clzll(static_cast<unsigned long long>(us));
    if (e > kMaxExp) return kLinear + (kMaxExp - 7 + 1) * kSub - 1;
    const std::int64_t sub = (us >> (e - 6)) & (kSub - 1);
    return static_cast<std::size_t>(kLinear + (e - 7) * kSub + sub);
  }
  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
  std::int64_t sum_ = 0, min_ = 0, max_ = 0;
};

struct Range {
  double median = 0, min = 0, max = 0;
};
Range range(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

// Thread CPU time per value: on a shared, loaded machine the wall clock counts other
// processes' turns too.
template <class F>
double ns_per_value(std::size_t n, F&& f) {
  const std::int64_t t0 = thread_cpu_ns();
  f();
  return static_cast<double>(thread_cpu_ns() - t0) / static_cast<double>(n);
}

// Round trips of one byte to an echo thread over loopback TCP, in ns.
LatencyRecorder loopback_round_trips(int n) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(listener, 1) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    throw std::runtime_error("loopback listener");
  std::jthread echo([listener] {
    const int c = accept(listener, nullptr, nullptr);
    char b;
    while (read(c, &b, 1) == 1 && write(c, &b, 1) == 1) {
    }
    close(c);
  });
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    throw std::runtime_error("loopback connect");
  LatencyRecorder r;
  char b = 'x';
  for (int i = 0; i < n; ++i) {
    const std::int64_t t0 = wall_ns();
    if (write(s, &b, 1) != 1 || read(s, &b, 1) != 1) throw std::runtime_error("loopback echo");
    r.record_ns(wall_ns() - t0);
  }
  close(s);
  close(listener);
  return r;
}

void print_sizes(const char* name, const LatencyRecorder& r) {
  std::string pairs = "[";  // the non-zero buckets as JSON [index,count] pairs
  for (const auto& b : r.nonzero_buckets())
    pairs += (pairs.size() > 1 ? ",[" : "[") + std::to_string(b.index) + "," +
             std::to_string(b.count) + "]";
  pairs += "]";
  std::string counters;  // every counter up to the last non-zero one, 8 bytes each
  for (std::size_t i = 0; i <= r.last_nonzero_index(); ++i) {
    const std::uint64_t c = r.count_at_index(i);
    counters.append(reinterpret_cast<const char*>(&c), sizeof c);
  }
  const std::string varints = latency_bytes(r);
  std::printf("%s: %llu values, %zu non-zero buckets, p50 %.1f us, p99.9 %.1f us, max %.1f us\n",
              name, static_cast<unsigned long long>(r.count()), r.nonzero_buckets().size(),
              static_cast<double>(r.value_at_quantile_ns(0.5)) / 1e3,
              static_cast<double>(r.value_at_quantile_ns(0.999)) / 1e3,
              static_cast<double>(r.max_ns()) / 1e3);
  std::printf(
      "  bytes in a run file: JSON [index,count] pairs %zu, varints+base64 %zu,\n"
      "  varints+zlib+base64 %zu (chosen), 8-byte counters+zlib+base64 %zu\n",
      pairs.size(), to_base64(varints).size(), encode_latency(r).size(),
      to_base64(latency_deflate(counters)).size());
}

}  // namespace

int main(int argc, char** argv) {
  const int tries = argc > 1 ? std::atoi(argv[1]) : 7;
  const auto n = static_cast<std::size_t>(argc > 2 ? std::atoll(argv[2]) : 4000000);
  if (tries < 1 || n < 1) {
    std::fprintf(stderr, "usage: perflab-latency-bench [TRIES >= 1] [VALUES >= 1]\n");
    return 2;
  }
  // Latencies like a loaded server's: log-normal around 150 us with a 1% tail around 20 ms.
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> fast(std::log(150e3), 0.5), slow(std::log(20e6), 0.7);
  std::bernoulli_distribution tail(0.01);
  std::vector<std::int64_t> ns(n), us(n);
  for (std::size_t i = 0; i < n; ++i) {
    ns[i] = std::llround(tail(rng) ? slow(rng) : fast(rng));
    us[i] = ns[i] / 1000;
  }
  std::vector<double> former, recorder_us, recorder_ns, ratio, merge;
  std::uint64_t check = 0;
  for (int t = 0; t < tries; ++t) {
    FormerHistogram f;
    LatencyRecorder a, b;
    former.push_back(ns_per_value(n, [&] {
      for (const auto v : us) f.record(v);
    }));
    recorder_us.push_back(ns_per_value(n, [&] {
      for (const auto v : us) a.record(v);
    }));
    recorder_ns.push_back(ns_per_value(n, [&] {
      for (const auto v : ns) b.record_ns(v);
    }));
    ratio.push_back(recorder_ns.back() / former.back());
    LatencyRecorder into;
    merge.push_back(ns_per_value(1, [&] { into.merge(b); }) / 1e3);
    check += f.count() + a.count() + b.count() + into.count() + static_cast<std::uint64_t>(f.sum());
  }
  auto line = [](const char* what, const std::vector<double>& v, const char* unit) {
    const Range r = range(v);
    std::printf("  %-44s %8.2f %s  [%.2f - %.2f]\n", what, r.median, unit, r.min, r.max);
  };
  std::printf("recording %zu values, %d tries (median [min - max]):\n", n, tries);
  line("former histogram, record(us)", former, "ns/value");
  line("latency recorder, record(us) (the alias)", recorder_us, "ns/value");
  line("latency recorder, record_ns(ns)", recorder_ns, "ns/value");
  line("ratio recorder record_ns / former, per try", ratio, "x");
  line("merge of one recorder into an empty one", merge, "us");
  print_sizes("loopback TCP round trips", loopback_round_trips(200000));
  LatencyRecorder synthetic;
  for (const auto v : ns) synthetic.record_ns(v);
  print_sizes("the synthetic values above", synthetic);
  return check == 0 ? 1 : 0;
}
