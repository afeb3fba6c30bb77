#pragma once
// Clocks used by every measurement: wall (monotonic) and CPU (thread / process).
#include <chrono>
#include <cstdint>

namespace perflab {

// Monotonic wall clock in nanoseconds.
std::int64_t wall_ns();
// CPU time consumed by the calling thread (CLOCK_THREAD_CPUTIME_ID), nanoseconds.
std::int64_t thread_cpu_ns();
// CPU time consumed by the whole process (CLOCK_PROCESS_CPUTIME_ID), nanoseconds.
std::int64_t process_cpu_ns();
// CPU time consumed so far by all threads of another process, in nanoseconds: from
// /proc/PID/task/*/schedstat (nanosecond resolution), else /proc/PID/stat (clock ticks);
// -1 if it cannot be read (process gone, or not ours to read).
std::int64_t other_process_cpu_ns(int pid);

// The run delay of the thread that made it: how long it has been runnable but waiting for a CPU
// (the second field of /proc/thread-self/schedstat), in nanoseconds; -1 where it cannot be read.
// Read through a descriptor the thread opened once: a pread, ~0.7 µs here, where opening and
// parsing the file each time took ~6 µs. Only the thread that made it may read it.
class ThreadRunDelay {
 public:
  ThreadRunDelay();
  ~ThreadRunDelay();
  ThreadRunDelay(const ThreadRunDelay&) = delete;
  ThreadRunDelay& operator=(const ThreadRunDelay&) = delete;
  std::int64_t ns() const;

 private:
  int fd_ = -1;
};

// A stopwatch over both wall and thread-CPU time.
class Stopwatch {
 public:
  Stopwatch() { restart(); }
  void restart() {
    wall0_ = wall_ns();
    cpu0_ = thread_cpu_ns();
  }
  std::int64_t wall_elapsed_ns() const { return wall_ns() - wall0_; }
  std::int64_t cpu_elapsed_ns() const { return thread_cpu_ns() - cpu0_; }

 private:
  std::int64_t wall0_ = 0, cpu0_ = 0;
};

}  // namespace perflab
