#include "targets/child_process.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "targets/worker_thread.h"

namespace fs = std::filesystem;

namespace perflab {
namespace {

using Clock = std::chrono::steady_clock;

// The spawner: one long-lived thread that forks every server. PR_SET_PDEATHSIG fires when the
// thread that forked the child exits, so forking from a short-lived worker thread would kill the
// server as soon as that worker ended. This thread lives until the process exits; children
// unblock every signal before exec.
WorkerThread& spawner() {
  static WorkerThread& w = WorkerThread::start();
  return w;
}

// Steps the child reports through the error pipe when it fails before exec.
enum ChildStep : int {
  kStepSetsid = 1,
  kStepDup,
  kStepChdir,
  kStepSetgroups,
  kStepSetgid,
  kStepSetuid,
  kStepPdeathsig,
  kStepParentGone,
  kStepExec
};

const char* step_name(int step) {
  switch (step) {
    case kStepSetsid:
      return "setsid";
    case kStepDup:
      return "redirecting output";
    case kStepChdir:
      return "chdir";
    case kStepSetgroups:
      return "setgroups";
    case kStepSetgid:
      return "setgid";
    case kStepSetuid:
      return "setuid";
    case kStepPdeathsig:
      return "prctl(PR_SET_PDEATHSIG)";
    case kStepParentGone:
      return "parent exited during start";
    case kStepExec:
      return "exec";
    default:
      return "start";
  }
}

[[noreturn]] void child_fail(int fd, int step) {
  int msg[2] = {step, errno};
  ssize_t ignored = write(fd, msg, sizeof msg);
  (void)ignored;
  _exit(127);
}

// What exec needs, built before fork (the child may only make async-signal-safe calls): argv,
// the working folder, and the environment when the spec changes it (empty: inherit).
class ExecArgs {
 public:
  explicit ExecArgs(const SpawnSpec& spec) : exe_(spec.exe.string()), cwd_(spec.cwd.string()) {
    args_.push_back(exe_);
    args_.insert(args_.end(), spec.args.begin(), spec.args.end());
    for (auto& a : args_) argv_.push_back(a.data());
    argv_.push_back(nullptr);
    if (spec.env.empty()) return;
    auto overridden = [&spec](const char* entry) {
      for (const auto& e : spec.env) {
        const auto eq = e.find('=');
        if (std::strncmp(entry, e.c_str(), eq + 1) == 0) return true;
      }
      return false;
    };
    for (char** e = environ; *e; ++e)
      if (!overridden(*e)) env_.emplace_back(*e);
    env_.insert(env_.end(), spec.env.begin(), spec.env.end());
    for (auto& e : env_) envp_.push_back(e.data());
    envp_.push_back(nullptr);
  }
  ExecArgs(const ExecArgs&) = delete;  // argv_ and envp_ point into args_ and env_
  ExecArgs& operator=(const ExecArgs&) = delete;

  const std::string& exe() const { return exe_; }
  const std::string& cwd() const { return cwd_; }
  // Replaces the process image; returns only when exec failed.
  void exec() const {
    if (envp_.empty())
      execv(argv_[0], argv_.data());
    else
      execve(argv_[0], argv_.data(), envp_.data());
  }

 private:
  std::string exe_, cwd_;
  std::vector<std::string> args_, env_;
  std::vector<char*> argv_, envp_;
};

// A file descriptor that closes with the object.
class Fd {
 public:
  Fd() = default;
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// The descriptors a child starts with: /dev/null for stdin, the log (and the error log) for
// stdout and stderr, and a close-on-exec pipe on which it reports a failure before exec. The
// parent's copies close with the object (also when opening one of them fails).
class ChildFds {
 public:
  explicit ChildFds(const SpawnSpec& spec) {
    const int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
    log_.reset(open(spec.log.c_str(), flags, 0644));
    if (log_.get() < 0)
      throw ServerError("cannot open log file " + spec.log.string() + ": " + errno_text(errno));
    if (!spec.err_log.empty()) {
      err_log_.reset(open(spec.err_log.c_str(), flags, 0644));
      if (err_log_.get() < 0)
        throw ServerError("cannot open log file " + spec.err_log.string() + ": " +
                          errno_text(errno));
    }
    null_.reset(open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (null_.get() < 0) throw ServerError("cannot open /dev/null: " + errno_text(errno));
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) throw ServerError("pipe2 failed: " + errno_text(errno));
    report_read_.reset(p[0]);
    report_write_.reset(p[1]);
  }

  int stdin_fd() const { return null_.get(); }
  int stdout_fd() const { return log_.get(); }
  int stderr_fd() const { return err_log_.get() >= 0 ? err_log_.get() : log_.get(); }
  int report_write() const { return report_write_.get(); }
  int report_read() const { return report_read_.get(); }

  // In the parent after fork: what only the child uses.
  void close_child_side() { log_.reset(), err_log_.reset(), null_.reset(), report_write_.reset(); }

 private:
  Fd log_, err_log_, null_, report_read_, report_write_;
};

int open_files_limit() {
  rlimit lim{};
  return (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
             ? static_cast<int>(std::min<rlim_t>(lim.rlim_cur, 1 << 20))
             : 65536;
}

// The child between fork and exec: async-signal-safe calls only; a failure is reported on the
// pipe as (step, errno) and ends the child.
[[noreturn]] void run_child(const SpawnSpec& spec, const ExecArgs& exec, const ChildFds& fds,
                            int max_fd, pid_t parent) {
  const int report = fds.report_write();
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
  // Own session: a Ctrl+C in Perflab's terminal does not reach the server directly; the server
  // stops through Perflab (destructor) or the parent-death signal.
  if (setsid() < 0) child_fail(report, kStepSetsid);
  if (dup2(fds.stdin_fd(), 0) < 0 || dup2(fds.stdout_fd(), 1) < 0 || dup2(fds.stderr_fd(), 2) < 0)
    child_fail(report, kStepDup);
  // Nothing else Perflab has open (sockets, files) leaks into the server.
  if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < max_fd; ++fd) {
      int flags = fcntl(fd, F_GETFD);
      if (flags >= 0) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
  }
  if (!exec.cwd().empty() && chdir(exec.cwd().c_str()) != 0) child_fail(report, kStepChdir);
  if (spec.creds.drop) {
    gid_t g = spec.creds.gid;
    if (setgroups(1, &g) != 0) child_fail(report, kStepSetgroups);
    if (setgid(spec.creds.gid) != 0) child_fail(report, kStepSetgid);
    if (setuid(spec.creds.uid) != 0) child_fail(report, kStepSetuid);
  }
  // After the credential change, which clears the parent-death signal.
  if (prctl(PR_SET_PDEATHSIG, spec.death_signal) != 0) child_fail(report, kStepPdeathsig);
  if (getppid() != parent) {
    errno = ESRCH;
    child_fail(report, kStepParentGone);
  }
  exec.exec();
  child_fail(report, kStepExec);
}

// In the parent: EOF on the report pipe means exec succeeded (the pipe closed on exec); a
// report means the child failed before exec, and is reaped.
void await_exec(pid_t pid, int report, const std::string& exe) {
  int msg[2] = {0, 0};
  ssize_t got;
  do {
    got = read(report, msg, sizeof msg);
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  throw ServerError("cannot start " + exe + ": " + step_name(msg[0]) +
                    " failed: " + errno_text(msg[1]));
}

// Runs on the spawner thread. Everything the child needs is prepared before fork().
pid_t do_spawn(const SpawnSpec& spec) {
  const ExecArgs exec(spec);
  ChildFds fds(spec);
  const int max_fd = open_files_limit();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw ServerError("fork failed: " + errno_text(errno));
  if (pid == 0) run_child(spec, exec, fds, max_fd, parent);
  fds.close_child_side();
  await_exec(pid, fds.report_read(), exec.exe());
  return pid;
}

}  // namespace

Credentials unprivileged_credentials(const std::string& user) {
  Credentials c;
  if (geteuid() != 0) return c;
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) == 0 && found &&
      found->pw_uid != 0) {
    c.drop = true;
    c.uid = found->pw_uid;
    c.gid = found->pw_gid;
    c.user = user;
    return c;
  }
  // Never "nobody": every process that runs as it (NFS's squashed root, other daemons) could
  // then read the servers' folders and password files.
  throw ServerError("running as root, but there is no user '" + user +
                    "' to run the managed servers as (Debian's postgresql-15 package creates "
                    "it; or: adduser --system --group " +
                    user + ")");
}

pid_t spawn(const SpawnSpec& spec) {
  return spawner().run([&spec] { return do_spawn(spec); });
}

bool wait_exit(pid_t pid, std::chrono::milliseconds timeout, int* status_out) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      if (status_out) *status_out = status;
      return true;
    }
    if (r < 0 && errno != EINTR) return true;  // ECHILD: already reaped
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void stop_child(pid_t pid, int sig, std::chrono::milliseconds grace, int* status_out) {
  if (pid <= 0) return;
  if (kill(pid, sig) != 0 && errno == ESRCH) {
    wait_exit(pid, std::chrono::milliseconds(0), status_out);
    return;
  }
  if (wait_exit(pid, grace, status_out)) return;
  kill(pid, SIGKILL);
  wait_exit(pid, std::chrono::seconds(30), status_out);
}

bool child_alive(pid_t pid) {
  if (pid <= 0) return false;
  siginfo_t info{};
  info.si_pid = 0;
  if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0)
    return false;  // not our child (already reaped)
  return info.si_pid == 0;
}

std::string describe_exit_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  return "stopped";
}

ChildProcess::ChildProcess(const fs::path& exe, ChildProcessOptions opts) {
  SpawnSpec spec;
  spec.exe = exe;
  spec.args = std::move(opts.args);
  spec.log = opts.output.empty() ? fs::path("/dev/null") : opts.output;
  spec.err_log = opts.errors;
  spec.env = std::move(opts.environment);
  pid_ = spawn(spec);
}

ChildProcess::~ChildProcess() {
  stop();
}

bool ChildProcess::running() {
  if (status_) return false;
  if (child_alive(pid_)) return true;
  int status = 0;
  wait_exit(pid_, std::chrono::seconds(5), &status);
  status_ = status;
  return false;
}

bool ChildProcess::wait(std::stop_token stop_token) {
  constexpr auto kForever = std::chrono::hours(24 * 365);
  return wait_for(kForever, std::move(stop_token)) == Outcome::Exited;
}

ChildProcess::Outcome ChildProcess::wait_for(std::chrono::milliseconds limit,
                                             std::stop_token stop_token) {
  const auto deadline = Clock::now() + limit;
  while (running()) {
    const bool stopped = stop_token.stop_requested();
    if (stopped || Clock::now() >= deadline) {
      stop(std::chrono::milliseconds(300));
      return stopped ? Outcome::Stopped : Outcome::TimedOut;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return Outcome::Exited;
}

void ChildProcess::stop(std::chrono::milliseconds grace) {
  if (!running()) return;
  int status = 0;
  stop_child(pid_, SIGTERM, grace, &status);
  status_ = status;
}

}  // namespace perflab
