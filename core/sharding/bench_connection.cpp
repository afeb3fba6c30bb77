// One connection of the load generator and the requests it sends (see bench_connection.h).
#include "bench_connection.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "targets/io_wait.h"

namespace perflab::sharding {

namespace bench {

void put_12_digits(char* p, std::uint64_t n) {
  for (int d = 11; d >= 0; --d) {
    p[d] = static_cast<char>('0' + n % 10);
    n /= 10;
  }
}

int connect_to(const BenchOptions& o, const std::stop_token& stop) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = ::getaddrinfo(o.host.c_str(), std::to_string(o.port).c_str(), &hints, &res);
  if (rc != 0 || !res)
    throw std::runtime_error("cannot resolve " + o.host + ": " + gai_strerror(rc));
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    ::freeaddrinfo(res);
    throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  }
  rc = ::connect(fd, res->ai_addr, res->ai_addrlen);
  ::freeaddrinfo(res);
  std::string where = o.host + ":" + std::to_string(o.port);
  if (rc != 0 && errno != EINPROGRESS) {
    int e = errno;
    ::close(fd);
    throw std::runtime_error("cannot connect to " + where + ": " + std::strerror(e));
  }
  if (rc != 0) {
    IoDeadline io(o.reply_timeout, stop);
    const bool ready = io.wait(fd, POLLOUT) != 0;
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (!ready || err != 0) {
      ::close(fd);
      throw std::runtime_error(
          "cannot connect to " + where + ": " +
          (!ready ? std::string(io.stopped() ? "stopped" : "timed out") : std::strerror(err)));
    }
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // as redis-benchmark (anet)
  return fd;
}

std::string blocking_command(int fd, const std::vector<std::string_view>& argv,
                             const BenchOptions& o, const std::stop_token& stop) {
  IoDeadline io(o.reply_timeout, stop);
  return proxy::exchange_command(fd, argv, [&](short events) {
    if (io.wait(fd, events) == 0)
      throw std::runtime_error(io.stopped() ? "stopped during setup" : "no reply during setup");
  });
}

std::string test_command(const BenchOptions& o, BenchTest test) {
  const std::string key = o.key_prefix + std::string(kPlaceholder);
  const std::string value(static_cast<std::size_t>(o.data_size), 'x');
  std::vector<std::string_view> argv;
  switch (test) {
    case BenchTest::Set:
      argv = {"SET", key, value};
      break;
    case BenchTest::Get:
      argv = {"GET", key};
      break;
    case BenchTest::Mset:
      argv = {"MSET"};
      for (int i = 0; i < 10; ++i) argv.insert(argv.end(), {key, value});
      break;
    case BenchTest::Mget:
      argv = {"MGET"};
      for (int i = 0; i < 10; ++i) argv.push_back(key);
      break;
  }
  std::string one;
  proxy::append_command(one, argv);
  return one;
}

std::array<char, kClusterTagWidth> padded_tag(int slot) {
  const std::string& tag = cluster_slot_tags().at(static_cast<std::size_t>(slot));
  std::array<char, kClusterTagWidth> letters;
  letters.fill('}');
  std::copy_n(tag.begin(), std::min(tag.size(), kClusterTagWidth), letters.begin());
  return letters;
}

}  // namespace bench

std::string cluster_bench_key_prefix(const std::string& key_prefix, int slot) {
  const auto tag = bench::padded_tag(slot);
  return key_prefix + "{" + std::string(tag.begin(), tag.end()) + "}:";
}

std::string bench_key(const std::string& key_prefix, std::int64_t n) {
  std::string k = key_prefix + "000000000000";
  bench::put_12_digits(k.data() + key_prefix.size(), static_cast<std::uint64_t>(n));
  return k;
}

}  // namespace perflab::sharding
