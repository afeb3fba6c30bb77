#pragma once
// One connection of the load generator and the requests it sends: connecting (and AUTH) with a
// bounded wait, its buffers and open-loop schedule, the command of each test with its key
// placeholders, and the digits and cluster tags written into the keys.
#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "common/clock.h"
#include "common/key_slot.h"
#include "proxy/resp.h"
#include "sharding/loadgen.h"
#include "sharding/open_loop.h"

namespace perflab::sharding::bench {

inline std::int64_t now_us() {
  return wall_ns() / 1000;
}

inline constexpr std::string_view kPlaceholder =
    kBenchKeyPlaceholder;  // 12 bytes, like the 12 digits

// Writes n as 12 digits at p (as the generator does in its batches).
void put_12_digits(char* p, std::uint64_t n);

struct BClient {
  int fd = -1;
  std::string in;
  std::size_t in_start = 0, in_end = 0;
  proxy::ReplyScanner scanner;
  std::size_t to_write = 0, written = 0;
  int outstanding = 0;
  std::int64_t batch_start = 0;
  bool want_write = false;
  // Open loop: the schedule, each outstanding request in order (where its latency runs from and
  // the generator's own lag in sending it, ns), since when the connection has had room for a
  // request (ns), and whether it waits on the timer.
  struct Outstanding {
    std::int64_t from_ns, own_lag_ns;
  };
  std::optional<ArrivalSchedule> schedule;
  std::deque<Outstanding> intended;
  std::int64_t room_since = 0;
  bool in_heap = false;
  ~BClient() {
    if (fd >= 0) ::close(fd);
  }
};

// A nonblocking socket connected to o.host:o.port with TCP_NODELAY, within o.reply_timeout;
// throws std::runtime_error with the address on failure or stop.
int connect_to(const BenchOptions& o, const std::stop_token& stop);

// Sends a command and waits for its reply (setup only: AUTH), within the reply timeout.
std::string blocking_command(int fd, const std::vector<std::string_view>& argv,
                             const BenchOptions& o, const std::stop_token& stop);

// The command of a test with its key placeholders, as redis-benchmark sends it.
std::string test_command(const BenchOptions& o, BenchTest test);

// A slot's tag padded with '}' to kClusterTagWidth letters, as redis-benchmark writes it into
// its keys: "{a}}}" hashes as "a".
std::array<char, kClusterTagWidth> padded_tag(int slot);

}  // namespace perflab::sharding::bench
