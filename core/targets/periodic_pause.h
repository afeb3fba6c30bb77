#pragma once
// A server paused on a schedule: SIGSTOP for a while, every so often, from a thread of its own
// (the coordinated-omission demonstration's stall). Only for servers Perflab started.
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <thread>

namespace perflab {

struct PauseSchedule {
  std::chrono::milliseconds first{1000};  // the first pause starts this long after construction
  std::chrono::milliseconds pause{200};   // how long each pause lasts
  std::chrono::milliseconds every{2000};  // from the start of one pause to the next
};

// Pauses `server` (targets/freeze.h: SIGSTOP to it and the processes it forked) on a schedule
// until destroyed or stopped. Every wait is bounded and ends on a stop request or destruction,
// and every exit of the thread (a stop, the destructor, an exception) thaws the server first:
// it is never left stopped. The caller guarantees `server` is a process it owns.
class PeriodicPause {
 public:
  PeriodicPause(pid_t server, PauseSchedule schedule, std::stop_token stop = {});
  ~PeriodicPause();  // ends the schedule; the server runs when it returns
  PeriodicPause(const PeriodicPause&) = delete;
  PeriodicPause& operator=(const PeriodicPause&) = delete;

  // Ends the schedule now (thaws the server if a pause is under way) and waits for the thread.
  void finish();
  // Pauses begun and the seconds the server was stopped in all, so far.
  int pauses() const;
  double paused_seconds() const;
  bool paused() const;  // a pause is under way now

 private:
  void wake();
  void loop(std::stop_token own, std::stop_token stop, std::chrono::steady_clock::time_point t0);
  pid_t server_;
  PauseSchedule schedule_;
  mutable std::mutex mu_;
  std::condition_variable_any cv_;
  int pauses_ = 0;
  double paused_s_ = 0;
  bool paused_ = false;
  std::jthread thread_;  // last: started once the members above exist
};

}  // namespace perflab
