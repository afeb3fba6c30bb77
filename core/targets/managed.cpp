#include "targets/managed.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "common/key_slot.h"
#include "targets/cluster.h"
#include "targets/postgres.h"
#include "targets/worker_thread.h"

namespace fs = std::filesystem;

namespace perflab {
namespace {

using Clock = std::chrono::steady_clock;

std::string errno_text(int e) {
  return std::strerror(e);
}

// ---------------------------------------------------------------------------------------------
// The spawner: one long-lived thread that forks every server. PR_SET_PDEATHSIG fires when the
// thread that forked the child exits, so forking from a short-lived worker thread would kill the
// server as soon as that worker ended. This thread lives until the process exits; children
// unblock every signal before exec.
WorkerThread& spawner() {
  static WorkerThread& w = WorkerThread::start();
  return w;
}

struct Credentials {
  bool drop = false;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string user;
};

// When running as root, servers (PostgreSQL must) run as "postgres" if it exists, else "nobody".
Credentials unprivileged_credentials() {
  Credentials c;
  if (geteuid() != 0) return c;
  for (const char* name : {"postgres", "nobody"}) {
    std::vector<char> buf(16384);
    passwd pw{};
    passwd* found = nullptr;
    if (getpwnam_r(name, &pw, buf.data(), buf.size(), &found) == 0 && found) {
      c.drop = true;
      c.uid = found->pw_uid;
      c.gid = found->pw_gid;
      c.user = name;
      return c;
    }
  }
  throw ServerError(
      "running as root, but neither user 'postgres' nor 'nobody' exists to run the server as");
}

struct SpawnSpec {
  fs::path exe;
  std::vector<std::string> args;  // without argv[0]
  fs::path log;                   // stdout and stderr, appended
  fs::path err_log;               // when set, stderr goes here instead
  std::vector<std::string> env;   // NAME=VALUE set for the child only (replacing inherited ones)
  fs::path cwd;
  Credentials creds;
  int death_signal = SIGKILL;
};

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

pid_t spawn(const SpawnSpec& spec) {
  return spawner().run([&spec] { return do_spawn(spec); });
}

// Reaps pid if it exited within timeout. Returns true when reaped (or not our child anymore).
bool wait_exit(pid_t pid, std::chrono::milliseconds timeout, int* status_out = nullptr) {
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

// Stops a child: sig, wait up to grace, then SIGKILL and reap.
void stop_child(pid_t pid, int sig, std::chrono::milliseconds grace) {
  if (pid <= 0) return;
  if (kill(pid, sig) != 0 && errno == ESRCH) {
    wait_exit(pid, std::chrono::milliseconds(0));
    return;
  }
  if (wait_exit(pid, grace)) return;
  kill(pid, SIGKILL);
  wait_exit(pid, std::chrono::seconds(30));
}

// Has the child exited (without reaping it)?
bool child_alive(pid_t pid) {
  if (pid <= 0) return false;
  siginfo_t info{};
  info.si_pid = 0;
  if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0)
    return false;  // not our child (already reaped)
  return info.si_pid == 0;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  return "stopped";
}

// The last lines of a log, for error messages.
std::string log_tail(const fs::path& log, std::size_t max_lines = 15) {
  std::ifstream in(log, std::ios::binary);
  if (!in) return "(no " + log.filename().string() + ")";
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  std::streamoff from = std::max<std::streamoff>(0, size - 4096);
  in.seekg(from);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> lines;
  std::istringstream ss(text);
  for (std::string line; std::getline(ss, line);)
    if (!line.empty()) lines.push_back(line);
  if (from > 0 && !lines.empty()) lines.erase(lines.begin());  // partial first line
  std::size_t start = lines.size() > max_lines ? lines.size() - max_lines : 0;
  std::string out;
  for (std::size_t i = start; i < lines.size(); ++i) out += "\n  " + lines[i];
  // The folder is removed when a start fails, so the message carries the lines, not the path.
  return out.empty() ? std::string("(" + log.filename().string() + " is empty)")
                     : "last lines of " + log.filename().string() + ":" + out;
}

bool log_mentions_port_in_use(const fs::path& log) {
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.find("Address already in use") != std::string::npos ||
         text.find("could not bind") != std::string::npos ||
         text.find("could not create any TCP/IP sockets") != std::string::npos;
}

// A folder is usable by an unprivileged user when every ancestor can be traversed by others.
bool traversable_by_others(const fs::path& dir) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(dir, ec);
  if (ec) return false;
  for (; !p.empty(); p = p.parent_path()) {
    struct stat st {};
    if (stat(p.c_str(), &st) != 0) return false;
    if (!(st.st_mode & S_IXOTH)) return false;
    if (p == p.root_path()) break;
  }
  return true;
}

fs::path temp_base(const Credentials& creds) {
  const char* env = std::getenv("TMPDIR");
  fs::path base = (env && *env) ? fs::path(env) : fs::path("/tmp");
  std::error_code ec;
  if (!fs::is_directory(base, ec)) base = "/tmp";
  if (creds.drop && !traversable_by_others(base)) base = "/tmp";
  // PostgreSQL's Unix socket lives in the folder; socket paths are limited to 107 bytes.
  if (base.string().size() > 64) base = "/tmp";
  return base;
}

const char* kOwnerFile = "perflab-owner.pid";

bool pid_alive(pid_t pid) {
  return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

// Folders left by a Perflab that was killed (its servers died with it): removed once per process.
void remove_stale_folders(const fs::path& base) {
  static std::once_flag once;
  std::call_once(once, [&base] {
    std::error_code ec;
    for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      // Only Perflab's own folders, and only those whose owner file names a dead process.
      if (name.rfind("perflab-", 0) != 0) continue;
      std::ifstream owner(it->path() / kOwnerFile);
      long owner_pid = 0;
      if (!(owner >> owner_pid) || owner_pid <= 0 || pid_alive(static_cast<pid_t>(owner_pid)))
        continue;
      std::ifstream pm(it->path() / "data" / "postmaster.pid");
      long pm_pid = 0;
      if ((pm >> pm_pid) && pid_alive(static_cast<pid_t>(pm_pid))) continue;  // still stopping
      std::error_code rm_ec;
      fs::remove_all(it->path(), rm_ec);
    }
  });
}

// A fresh folder Perflab owns: <tmp>/<prefix>XXXXXX, mode 0755, owned by the server's user.
fs::path make_owned_folder(const std::string& prefix, const Credentials& creds) {
  fs::path base = temp_base(creds);
  remove_stale_folders(base);
  std::string tmpl = (base / (prefix + "XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    throw ServerError("cannot create a folder in " + base.string() + ": " + errno_text(errno));
  fs::path dir(buf.data());
  chmod(dir.c_str(), 0755);
  {
    // Written whole, then renamed: another Perflab's stale-folder sweep never reads half a pid.
    const fs::path tmp = dir / (std::string(kOwnerFile) + ".tmp");
    {
      std::ofstream owner(tmp);
      owner << getpid() << "\n";
    }
    std::error_code ec;
    fs::rename(tmp, dir / kOwnerFile, ec);
  }
  if (creds.drop && chown(dir.c_str(), creds.uid, creds.gid) != 0) {
    int e = errno;
    std::error_code ec;
    fs::remove_all(dir, ec);
    throw ServerError("cannot give " + dir.string() + " to user " + creds.user + ": " +
                      errno_text(e));
  }
  return dir;
}

void remove_folder(const fs::path& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// Waits until ready() or the child exits or the deadline passes.
enum class WaitResult { Ready, Exited, TimedOut };
WaitResult wait_ready(pid_t pid, std::chrono::seconds limit, const std::function<bool()>& ready,
                      int* exit_status) {
  auto deadline = Clock::now() + limit;
  auto pause = std::chrono::milliseconds(20);
  for (;;) {
    if (!child_alive(pid)) {
      wait_exit(pid, std::chrono::seconds(5), exit_status);
      return WaitResult::Exited;
    }
    if (ready()) return WaitResult::Ready;
    if (Clock::now() >= deadline) return WaitResult::TimedOut;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(200));
  }
}

bool is_postgres_tool(const std::string& name) {
  return name == "postgres" || name == "initdb" || name == "pg_ctl" || name == "pgbench" ||
         name == "psql" || name == "postmaster" || name == "pg_isready";
}

std::string debian_package_hint(const std::string& name) {
  static const std::map<std::string, std::string> packages = {
      {"postgres", "postgresql"},
      {"postmaster", "postgresql"},
      {"initdb", "postgresql"},
      {"pg_ctl", "postgresql"},
      {"pgbench", "postgresql-contrib (or postgresql-client)"},
      {"psql", "postgresql-client"},
      {"pg_isready", "postgresql-client"},
      {"redis-server", "redis-server"},
      {"redis-benchmark", "redis-tools"},
      {"redis-cli", "redis-tools"},
      {"nutcracker", "nutcracker"},
  };
  auto it = packages.find(name);
  std::string pkg = it != packages.end() ? it->second : name;
  std::string first = pkg.substr(0, pkg.find(' '));
  return name + " not found: install the Debian package " + pkg + " (apt-get install " + first +
         ")";
}

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

std::optional<fs::path> pg_config_bindir() {
  FILE* f = popen("pg_config --bindir 2>/dev/null", "re");
  if (!f) return std::nullopt;
  char line[4096];
  std::string out;
  if (fgets(line, sizeof line, f)) out = line;
  pclose(f);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (out.empty()) return std::nullopt;
  return fs::path(out);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

int free_loopback_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw ServerError("socket() failed: " + errno_text(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    int e = errno;
    close(fd);
    throw ServerError("cannot find a free port on 127.0.0.1: " + errno_text(e));
  }
  close(fd);
  return ntohs(addr.sin_port);
}

fs::path find_server_binary(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos)
    throw ServerError("invalid server binary name '" + name + "'");
  if (is_postgres_tool(name)) {
    std::error_code ec;
    int best = -1;
    fs::path best_path;
    for (fs::directory_iterator it("/usr/lib/postgresql", ec), end; !ec && it != end;
         it.increment(ec)) {
      std::string v = it->path().filename().string();
      char* endp = nullptr;
      long n = std::strtol(v.c_str(), &endp, 10);
      if (v.empty() || *endp != '\0') continue;
      fs::path candidate = it->path() / "bin" / name;
      if (n > best && is_executable_file(candidate))
        best = static_cast<int>(n), best_path = candidate;
    }
    if (best >= 0) return best_path;
    if (auto bindir = pg_config_bindir(); bindir && is_executable_file(*bindir / name))
      return *bindir / name;
  }
  const char* path_env = std::getenv("PATH");
  std::string path = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
  path += ":/usr/sbin:/sbin";  // nutcracker lives in /usr/sbin on Debian
  std::size_t pos = 0;
  while (pos <= path.size()) {
    std::size_t colon = path.find(':', pos);
    if (colon == std::string::npos) colon = path.size();
    std::string dir = path.substr(pos, colon - pos);
    if (!dir.empty() && is_executable_file(fs::path(dir) / name)) return fs::path(dir) / name;
    pos = colon + 1;
  }
  throw ServerError(debian_package_hint(name));
}

// ---- ManagedPostgres ----

namespace {

void check_options(const ManagedPostgresOptions& opts) {
  if (opts.max_connections < 1 || opts.max_connections > 10000)
    throw ServerError("max_connections must be from 1 to 10000, got " +
                      std::to_string(opts.max_connections));
  if (opts.shared_buffers.empty() ||
      opts.shared_buffers.find_first_of(" \t'\"\\") != std::string::npos)
    throw ServerError("invalid shared_buffers '" + opts.shared_buffers + "'");
}

// initdb into dir/data, as the server's user; its output goes to dir/initdb.log.
void init_cluster(const fs::path& initdb, const fs::path& dir, const fs::path& data,
                  const Credentials& creds) {
  if (mkdir(data.c_str(), 0700) != 0)
    throw ServerError("cannot create " + data.string() + ": " + errno_text(errno));
  if (creds.drop && chown(data.c_str(), creds.uid, creds.gid) != 0)
    throw ServerError("cannot give " + data.string() + " to user " + creds.user + ": " +
                      errno_text(errno));
  SpawnSpec init;
  init.exe = initdb;
  init.args = {"-D", data.string(), "-U",         "perflab",   "--auth=trust",
               "-E", "UTF8",        "--locale=C", "--no-sync", "--no-instructions"};
  init.log = dir / "initdb.log";
  init.cwd = dir;
  init.creds = creds;
  init.death_signal = SIGKILL;
  pid_t init_pid = spawn(init);
  int status = 0;
  if (!wait_exit(init_pid, std::chrono::seconds(180), &status)) {
    stop_child(init_pid, SIGKILL, std::chrono::seconds(1));
    throw ServerError("initdb did not finish within 180 s; " + log_tail(init.log));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw ServerError("initdb " + describe_status(status) + "; " + log_tail(init.log));
}

struct StartedPostgres {
  pid_t pid = -1;
  int port = 0;
  std::string version;
};

// The server's command line on `port`, logging to its log.
SpawnSpec postgres_spec(const fs::path& postgres, const fs::path& dir, const fs::path& data,
                        int port, const ManagedPostgresOptions& opts, const Credentials& creds) {
  SpawnSpec srv;
  srv.exe = postgres;
  srv.args = {"-D", data.string(),
              "-p", std::to_string(port),
              "-c", "listen_addresses=127.0.0.1",
              "-c", "unix_socket_directories=" + dir.string(),
              "-c", "max_connections=" + std::to_string(opts.max_connections),
              "-c", "shared_buffers=" + opts.shared_buffers,
              "-c", "logging_collector=off"};
  if (!opts.durable)
    for (const char* s : {"fsync=off", "synchronous_commit=off", "full_page_writes=off"})
      srv.args.insert(srv.args.end(), {"-c", s});
  srv.log = dir / "postgres.log";
  srv.cwd = dir;
  srv.creds = creds;
  srv.death_signal = SIGINT;  // fast shutdown when Perflab dies
  return srv;
}

// One start on a free port. nullopt (and why_not) when the port turned out to be someone
// else's, so another port is worth a try; throws when the server cannot start at all.
std::optional<StartedPostgres> start_postgres_once(const fs::path& postgres, const fs::path& dir,
                                                   const fs::path& data,
                                                   const ManagedPostgresOptions& opts,
                                                   const Credentials& creds, int attempt,
                                                   std::string& why_not) {
  const int port = free_loopback_port();
  const SpawnSpec srv = postgres_spec(postgres, dir, data, port, opts, creds);
  const pid_t pid = spawn(srv);
  const std::string ping = "host=127.0.0.1 port=" + std::to_string(port) +
                           " dbname=postgres user=perflab connect_timeout=2";
  int exit_status = 0;
  const WaitResult w = wait_ready(
      pid, std::chrono::seconds(60), [&] { return PQping(ping.c_str()) == PQPING_OK; },
      &exit_status);
  if (w == WaitResult::Exited) {
    if (log_mentions_port_in_use(srv.log)) {
      why_not = "port " + std::to_string(port) + " was taken";
      std::error_code ec;
      fs::rename(srv.log, dir / ("postgres-attempt" + std::to_string(attempt) + ".log"), ec);
      return std::nullopt;
    }
    throw ServerError("PostgreSQL (" + postgres.string() + ") " + describe_status(exit_status) +
                      " during start; " + log_tail(srv.log));
  }
  if (w == WaitResult::TimedOut) {
    stop_child(pid, SIGKILL, std::chrono::seconds(1));
    throw ServerError("PostgreSQL did not answer on 127.0.0.1:" + std::to_string(port) +
                      " within 60 s; " + log_tail(srv.log));
  }
  // Make sure the server answering is ours, not another one that took the port meanwhile.
  try {
    PgConnection c(ping, 5);
    std::string served = std::string(c.exec("SHOW data_directory").value(0, 0));
    std::error_code ec;
    if (fs::canonical(served, ec).string() != fs::canonical(data).string()) {
      stop_child(pid, SIGINT, std::chrono::seconds(10));
      why_not = "port " + std::to_string(port) + " answered with another server";
      return std::nullopt;
    }
    c.exec("CREATE DATABASE perflab");
    return StartedPostgres{pid, port, c.server_version_string()};
  } catch (const PgError& e) {
    stop_child(pid, SIGINT, std::chrono::seconds(10));
    throw ServerError(std::string("PostgreSQL started but could not be prepared: ") + e.what() +
                      "; " + log_tail(srv.log));
  }
}

}  // namespace

ManagedPostgres::ManagedPostgres(ManagedPostgresOptions opts) {
  check_options(opts);
  const fs::path initdb = find_server_binary("initdb");
  const fs::path postgres = initdb.parent_path() / "postgres";
  if (!is_executable_file(postgres)) throw ServerError(debian_package_hint("postgres"));
  const Credentials creds = unprivileged_credentials();

  dir_ = make_owned_folder("perflab-pg-", creds);
  try {
    const fs::path data = dir_ / "data";
    init_cluster(initdb, dir_, data, creds);
    std::string last_error;
    for (int attempt = 0; attempt < 5; ++attempt) {
      if (auto started =
              start_postgres_once(postgres, dir_, data, opts, creds, attempt, last_error)) {
        pid_ = started->pid;
        port_ = started->port;
        version_ = std::move(started->version);
        return;
      }
    }
    throw ServerError("could not start PostgreSQL on a free port: " + last_error);
  } catch (...) {
    remove_folder(dir_);
    throw;
  }
}

ManagedPostgres::~ManagedPostgres() {
  stop_child(pid_, SIGINT, std::chrono::seconds(10));  // SIGINT: fast shutdown
  remove_folder(dir_);
}

std::string ManagedPostgres::conninfo() const {
  return "host=127.0.0.1 port=" + std::to_string(port_) + " dbname=perflab user=perflab";
}

bool ManagedPostgres::running() const {
  return child_alive(pid_);
}

// ---- ManagedRedis ----

ManagedRedis::ManagedRedis(ManagedRedisOptions opts) : opts_(opts) {
  if (opts_.cluster && opts_.cluster_node_timeout < std::chrono::milliseconds(100))
    throw ServerError("cluster-node-timeout must be at least 100 ms");
  find_server_binary("redis-server");  // a clear message before creating anything
  dir_ =
      make_owned_folder(opts_.cluster ? "perflab-redis-cluster-" : "perflab-redis-", Credentials{});
  try {
    std::string last_error;
    for (int attempt = 0; attempt < 5; ++attempt) {
      port_ = free_loopback_port();
      if (opts_.cluster) do
          bus_port_ = free_loopback_port();
        while (bus_port_ == port_);
      try {
        start();
        return;
      } catch (const ServerError& e) {
        if (!log_mentions_port_in_use(dir_ / "redis.log")) throw;
        last_error = e.what();
        std::error_code ec;
        fs::remove(dir_ / "redis.log", ec);
        fs::remove(dir_ / "nodes.conf", ec);
      }
    }
    throw ServerError("could not start redis-server on a free port: " + last_error);
  } catch (...) {
    remove_folder(dir_);
    throw;
  }
}

void ManagedRedis::start() {
  SpawnSpec spec;
  spec.exe = find_server_binary("redis-server");
  spec.args = {"--port",
               std::to_string(port_),
               "--bind",
               "127.0.0.1",
               "--save",
               "",
               "--appendonly",
               "no",
               "--daemonize",
               "no",
               "--dir",
               dir_.string(),
               "--logfile",
               (dir_ / "redis.log").string(),
               "--protected-mode",
               "yes"};
  if (opts_.cluster)
    spec.args.insert(spec.args.end(), {"--cluster-enabled", "yes", "--cluster-port",
                                       std::to_string(bus_port_), "--cluster-config-file",
                                       (dir_ / "nodes.conf").string(), "--cluster-node-timeout",
                                       std::to_string(opts_.cluster_node_timeout.count())});
  spec.log = dir_ / "redis.log";
  spec.cwd = dir_;
  spec.death_signal = SIGTERM;
  pid_t pid = spawn(spec);
  const RedisEndpoint ep{"127.0.0.1", port_, {}};
  std::string version;
  int exit_status = 0;
  WaitResult w = wait_ready(
      pid, std::chrono::seconds(30),
      [&] {
        try {
          RedisClient c(ep, std::chrono::milliseconds(500));
          RedisReply info = c.command({"INFO", "server"});
          // Ours, not another server that took the port meanwhile.
          if (info.str.find("process_id:" + std::to_string(pid) + "\r") == std::string::npos)
            return false;
          version = c.server_version();
          return true;
        } catch (const RedisError&) {
          return false;
        }
      },
      &exit_status);
  if (w == WaitResult::Exited)
    throw ServerError("redis-server " + describe_status(exit_status) + " during start on port " +
                      std::to_string(port_) + "; " + log_tail(spec.log));
  if (w == WaitResult::TimedOut) {
    stop_child(pid, SIGKILL, std::chrono::seconds(1));
    throw ServerError("redis-server did not answer on 127.0.0.1:" + std::to_string(port_) +
                      " within 30 s; " + log_tail(spec.log));
  }
  pid_ = pid;
  version_ = version;
}

ManagedRedis::~ManagedRedis() {
  stop_child(pid_, SIGTERM, std::chrono::seconds(5));
  remove_folder(dir_);
}

bool ManagedRedis::running() const {
  return child_alive(pid_);
}

void ManagedRedis::kill_now() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  wait_exit(pid_, std::chrono::seconds(30));
  pid_ = -1;
}

void ManagedRedis::restart() {
  if (pid_ > 0) {
    stop_child(pid_, SIGTERM, std::chrono::seconds(5));
    pid_ = -1;
  }
  start();
}

// ---- ManagedRedisCluster ----

namespace {

// One line of CLUSTER INFO ("cluster_state:ok" -> "ok").
std::string cluster_info_field(const RedisReply& info, const std::string& field) {
  const std::string key = field + ":";
  const auto p = info.str.find(key);
  if (p == std::string::npos) return {};
  const auto e = info.str.find_first_of("\r\n", p);
  return info.str.substr(p + key.size(), e == std::string::npos ? e : e - p - key.size());
}

// The slot map as a node tells it, in a form two nodes can be compared by.
std::string slot_map_text(const std::vector<ClusterSlotRange>& ranges) {
  std::string out;
  for (const auto& r : ranges) {
    out.append(std::to_string(r.first)).append("-").append(std::to_string(r.last));
    out.append("@").append(r.master.address());
    for (const auto& rep : r.replicas) out.append("+").append(rep.address());
    out.append(" ");
  }
  return out;
}

RedisReply checked(RedisClient& c, const std::vector<std::string_view>& argv) {
  RedisReply r = c.command(argv);
  if (r.type == RedisReply::Type::Error)
    throw ServerError("Redis Cluster node " + c.endpoint().address() + ": " + std::string(argv[0]) +
                      " " + std::string(argv.size() > 1 ? argv[1] : "") + " failed: " + r.str);
  return r;
}

constexpr auto kNodeCommandTimeout = std::chrono::seconds(10);

}  // namespace

ManagedRedisCluster::ManagedRedisCluster(ManagedRedisClusterOptions opts) : opts_(opts) {
  if (opts_.masters < 3 || opts_.masters > 16)
    throw ServerError("a managed Redis Cluster has 3 to 16 masters, not " +
                      std::to_string(opts_.masters));
  const ManagedRedisOptions node_opts{true, opts_.node_timeout};
  const int total = opts_.masters * (opts_.replicas ? 2 : 1);
  for (int i = 0; i < total; ++i) nodes_.push_back(std::make_unique<ManagedRedis>(node_opts));

  std::vector<RedisClient> clients;
  std::vector<std::string> ids;
  for (const auto& n : nodes_) {
    clients.emplace_back(n->endpoint(), kNodeCommandTimeout);
    ids.push_back(checked(clients.back(), {"CLUSTER", "MYID"}).str);
  }
  // Slots split evenly in order, as redis-cli --cluster create does; each master its own
  // config epoch, so that no collision has to be resolved first.
  for (int m = 0; m < opts_.masters; ++m) {
    const int first = kClusterSlots * m / opts_.masters;
    const int last = kClusterSlots * (m + 1) / opts_.masters - 1;
    RedisClient& c = clients[static_cast<std::size_t>(m)];
    checked(c, {"CLUSTER", "SET-CONFIG-EPOCH", std::to_string(m + 1)});
    checked(c, {"CLUSTER", "ADDSLOTSRANGE", std::to_string(first), std::to_string(last)});
  }
  for (std::size_t i = 1; i < nodes_.size(); ++i)
    checked(clients[0], {"CLUSTER", "MEET", "127.0.0.1", std::to_string(nodes_[i]->port()),
                         std::to_string(nodes_[i]->cluster_bus_port())});

  const auto deadline = std::chrono::steady_clock::now() + opts_.ready_within;
  auto wait_until = [&](const std::string& what, const std::function<bool()>& done) {
    for (auto pause = std::chrono::milliseconds(20); !done();
         pause = std::min(pause * 2, std::chrono::milliseconds(200))) {
      if (std::chrono::steady_clock::now() >= deadline)
        throw ServerError("the managed Redis Cluster was not ready within " +
                          std::to_string(opts_.ready_within.count()) + " s: " + what + "; " +
                          log_tail(nodes_.front()->dir() / "redis.log", 5));
      std::this_thread::sleep_for(pause);
    }
  };
  // Replicas can only follow a master they know: every node must know every other first.
  wait_until("not every node knows every other", [&] {
    for (auto& c : clients)
      if (cluster_info_field(checked(c, {"CLUSTER", "INFO"}), "cluster_known_nodes") !=
          std::to_string(nodes_.size()))
        return false;
    return true;
  });
  if (opts_.replicas)
    for (int m = 0; m < opts_.masters; ++m)
      checked(clients[static_cast<std::size_t>(opts_.masters + m)],
              {"CLUSTER", "REPLICATE", ids[static_cast<std::size_t>(m)]});
  wait_ok(std::chrono::duration_cast<std::chrono::milliseconds>(
      std::max(deadline - std::chrono::steady_clock::now(), Clock::duration(0))));
}

ManagedRedisCluster::~ManagedRedisCluster() = default;

std::vector<RedisEndpoint> ManagedRedisCluster::seeds() const {
  std::vector<RedisEndpoint> out;
  for (const auto& n : nodes_) out.push_back(n->endpoint());
  return out;
}

ManagedRedis* ManagedRedisCluster::replica_of(std::size_t i) {
  if (!opts_.replicas || i >= masters()) return nullptr;
  return nodes_.at(masters() + i).get();
}

void ManagedRedisCluster::wait_ok(std::chrono::milliseconds limit) const {
  const auto deadline = Clock::now() + limit;
  std::string missing;
  for (auto pause = std::chrono::milliseconds(20);;
       pause = std::min(pause * 2, std::chrono::milliseconds(200))) {
    missing.clear();
    std::string first_map;
    for (const auto& n : nodes_) {
      if (!n->running()) continue;
      try {
        RedisClient c(n->endpoint(), kNodeCommandTimeout);
        const RedisReply info = c.command({"CLUSTER", "INFO"});
        if (cluster_info_field(info, "cluster_state") != "ok") {
          missing = n->endpoint().address() +
                    " reports cluster_state:" + cluster_info_field(info, "cluster_state");
          break;
        }
        const auto ranges = parse_cluster_slots(c.command({"CLUSTER", "SLOTS"}), n->endpoint());
        const auto replicated = static_cast<std::size_t>(std::count_if(
            ranges.begin(), ranges.end(), [](const auto& r) { return !r.replicas.empty(); }));
        const std::string map = slot_map_text(ranges);
        if (first_map.empty()) first_map = map;
        if (map != first_map) {
          missing = "the nodes do not agree on the slot map yet";
          break;
        }
        // With every node up, every master has its replica (and a replica counts once it is
        // in sync with its master, below).
        const bool all_up = std::all_of(nodes_.begin(), nodes_.end(),
                                        [](const auto& node) { return node->running(); });
        if (opts_.replicas && all_up && replicated < ranges.size()) {
          missing = "not every master has its replica yet";
          break;
        }
        const RedisReply repl = c.command({"INFO", "replication"});
        if (repl.str.find("role:slave") != std::string::npos &&
            repl.str.find("master_link_status:up") == std::string::npos) {
          missing = "replica " + n->endpoint().address() + " is not in sync with its master";
          break;
        }
      } catch (const RedisError& e) {
        missing = e.what();
        break;
      }
    }
    if (missing.empty()) return;
    if (Clock::now() >= deadline)
      throw ServerError("the managed Redis Cluster was not ready within " +
                        std::to_string(limit.count() / 1000) + " s: " + missing);
    std::this_thread::sleep_for(pause);
  }
}

// ---------------------------------------------------------------------------------------------
// Helper programs and folders, through the same spawner and folder code as the servers.

TempFolder::TempFolder(const std::string& prefix) : path_(make_owned_folder(prefix, {})) {}

TempFolder::~TempFolder() {
  remove_folder(path_);
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
  if (kill(pid_, SIGTERM) == 0) {
    int status = 0;
    if (wait_exit(pid_, grace, &status)) {
      status_ = status;
      return;
    }
  }
  kill(pid_, SIGKILL);
  int status = 0;
  wait_exit(pid_, std::chrono::seconds(30), &status);
  status_ = status;
}

std::string describe_exit_status(int status) {
  return describe_status(status);
}

}  // namespace perflab
