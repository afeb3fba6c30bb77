#pragma once
// What starting a managed server takes besides its process: a free loopback port to put it on,
// the wait until it answers, and its log read for the error message when it does not.
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>

#include "targets/server_error.h"

namespace perflab {

// A free TCP port on 127.0.0.1 (bound then released).
int free_loopback_port();

// Calls done() until it returns true (then true) or `deadline` has passed (then false), pausing
// between calls: 20 ms, then twice as long each time, at most 200 ms.
bool poll_until(std::chrono::steady_clock::time_point deadline, const std::function<bool()>& done);

// Waits until ready() or the child exits (then reaped, its waitpid status in exit_status) or
// the time runs out.
enum class WaitResult { Ready, Exited, TimedOut };
WaitResult wait_ready(pid_t pid, std::chrono::seconds limit, const std::function<bool()>& ready,
                      int* exit_status);

// The last lines of a log, for error messages.
std::string log_tail(const std::filesystem::path& log, std::size_t max_lines = 15);
// Does the log say the server could not listen on its port (someone else took it)?
bool log_mentions_port_in_use(const std::filesystem::path& log);

}  // namespace perflab
