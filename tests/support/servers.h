#pragma once
// Integration tests' servers: started once per test process by the project's own managed-server
// code (no mocks), stopped when the process exits.
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <stop_token>
#include <thread>
#include <vector>

#include "targets/freeze.h"
#include "targets/targets.h"

namespace perflab::test {

using perflab::Freeze;  // targets/freeze.h

// Managed targets shared by the tests of one process (PostgreSQL non-durable for speed).
Targets& shared_targets();

// Targets on the shared managed PostgreSQL with a schema of the test's own (pass
// unique_name(...)): experiments that reset their schema cannot disturb one another.
TargetsConfig isolated_pg(const std::string& schema);

// A schema that is a user's, not Perflab's (no mark): a table orders with two rows, on the
// shared PostgreSQL. Returns its name; users_orders() counts its rows; the test drops it.
std::string make_users_schema(PgConnection& c);
std::string users_orders(PgConnection& c, const std::string& schema);

// A unique suffix for names a test creates (schemas, key prefixes), so tests never collide.
std::string unique_name(const std::string& base);

// The state letter of a process in /proc/<pid>/stat ('R' running, 'S' sleeping, 'T' stopped by
// a signal, 'Z' zombie), or 0 when there is no such process.
char process_state(pid_t pid);

// Alive and not a zombie (an orphan reparented to a non-reaping init stays a zombie).
bool process_exists(pid_t pid);

// A listening TCP socket of the test's own on 127.0.0.1, any free port (set in `port`): a
// server that answers as the test scripts it. Fails the test (-1) if it cannot be made.
int listen_on_loopback(int& port);

// Requests a stop `delay` after `ready()` turns true, from a thread of its own (as a person
// pressing Stop would); seconds_since_stop() measures how long the run took to end after it.
class StopLater {
 public:
  StopLater(std::stop_source stop, std::function<bool()> ready, std::chrono::milliseconds delay);
  bool requested() const { return at_.load() != 0; }
  double seconds_since_stop() const;

 private:
  std::atomic<std::chrono::steady_clock::rep> at_{0};
  std::jthread thread_;
};

}  // namespace perflab::test
