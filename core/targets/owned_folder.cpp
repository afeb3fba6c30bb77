// Folders Perflab owns under the temporary directory (owned_folder.h).
#include "targets/owned_folder.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <vector>

namespace fs = std::filesystem;

namespace perflab {
namespace {

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

}  // namespace

fs::path make_owned_folder(const std::string& prefix, const Credentials& creds) {
  fs::path base = temp_base(creds);
  remove_stale_folders(base);
  std::string tmpl = (base / (prefix + "XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    throw ServerError("cannot create a folder in " + base.string() + ": " + errno_text(errno));
  fs::path dir(buf.data());
  // Private (mkdtemp's 0700, kept): a server's Unix socket, logs and secrets live in it.
  chmod(dir.c_str(), 0700);
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

namespace {

// The removers started by remove_folder_detached, reaped once they end (the rest are reaped by
// init when Perflab exits before them).
std::mutex removers_mu;
std::vector<pid_t> removers;

void reap_removers() {
  std::lock_guard lock(removers_mu);
  std::erase_if(removers, [](pid_t pid) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    return r == pid || (r < 0 && errno == ECHILD);
  });
}

}  // namespace

void remove_folder_detached(const fs::path& dir) {
  if (dir.empty()) return;
  reap_removers();
  // Beside it, still a Perflab folder with its owner's pid: should rm not finish, the next
  // Perflab's sweep of stale folders removes it.
  const fs::path away = dir.parent_path() / ("perflab-removed-" + dir.filename().string());
  std::error_code ec;
  fs::rename(dir, away, ec);
  if (ec) return remove_folder(dir);
  posix_spawn_file_actions_t files;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&files);
  for (int fd : {0, 1, 2}) posix_spawn_file_actions_addopen(&files, fd, "/dev/null", O_RDWR, 0);
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);  // no terminal's Ctrl-C reaches it
  const std::string path = away.string();
  char rm[] = "rm", rf[] = "-rf", dashes[] = "--";
  std::vector<char> target(path.begin(), path.end());
  target.push_back('\0');
  char* argv[] = {rm, rf, dashes, target.data(), nullptr};
  char* envp[] = {nullptr};
  pid_t pid = -1;
  const int err = posix_spawn(&pid, "/bin/rm", &files, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (err != 0) return remove_folder(away);
  std::lock_guard lock(removers_mu);
  removers.push_back(pid);
}

TempFolder::TempFolder(const std::string& prefix) : path_(make_owned_folder(prefix, {})) {}

TempFolder::~TempFolder() {
  remove_folder(path_);
}

}  // namespace perflab
