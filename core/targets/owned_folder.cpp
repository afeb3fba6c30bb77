#include "targets/owned_folder.h"

#include <signal.h>
#include <sys/stat.h>
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

TempFolder::TempFolder(const std::string& prefix) : path_(make_owned_folder(prefix, {})) {}

TempFolder::~TempFolder() {
  remove_folder(path_);
}

}  // namespace perflab
