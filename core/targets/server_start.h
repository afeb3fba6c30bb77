#pragma once
// What starting a managed server takes besides its process: a free loopback port to put it on,
// the wait until it answers, and its log read for the error message when it does not.
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <stop_token>
#include <string>

#include "targets/server_error.h"

namespace perflab {

// A free TCP port on 127.0.0.1 (bound then released).
int free_loopback_port();

// Calls done() until it returns true (then true) or `deadline` has passed (then false), pausing
// between calls: 20 ms, then twice as long each time, at most 200 ms. A stop request ends a
// pause at once and the wait with false (the caller asks `stop` why).
bool poll_until(std::chrono::steady_clock::time_point deadline, const std::function<bool()>& done,
                std::stop_token stop = {});

// Throws StartStopped ("stopped while <doing>") when a stop was requested.
void throw_if_stopped(const std::stop_token& stop, const std::string& doing);

// Waits until ready() or the child exits (then reaped, its waitpid status in exit_status) or
// the time runs out or a stop is requested (the child is left to the caller).
enum class WaitResult { Ready, Exited, TimedOut, Stopped };
WaitResult wait_ready(pid_t pid, std::chrono::seconds limit, const std::function<bool()>& ready,
                      int* exit_status, std::stop_token stop = {});

// Waits until the child exits (true; reaped, its waitpid status in status_out) or `limit`
// passes or a stop is requested (false; the child is left to the caller): a helper that must
// finish before a start goes on (initdb, pg_basebackup).
bool wait_exit_unless_stopped(pid_t pid, std::chrono::milliseconds limit, int* status_out,
                              const std::stop_token& stop);

// The last lines of a log, for error messages.
std::string log_tail(const std::filesystem::path& log, std::size_t max_lines = 15);
// Does the log say the server could not listen on its port (someone else took it)?
bool log_mentions_port_in_use(const std::filesystem::path& log);

}  // namespace perflab
