#pragma once
// ServerError: a managed server or a helper program could not be started (its process, its
// folder, its binary), with the reason; StartStopped: a stop request ended the start.
#include <cstring>
#include <stdexcept>
#include <string>

namespace perflab {

// A server could not be started; the message says why, and for a missing binary which
// Debian package to install.
class ServerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A start that a stop request ended (the run's Stop, Ctrl-C): what it had started is stopped
// and its folder removed before this is thrown.
class StartStopped : public ServerError {
 public:
  using ServerError::ServerError;
};

// strerror(e) as a string, for the messages.
inline std::string errno_text(int e) {
  return std::strerror(e);
}

}  // namespace perflab
