#include "targets/server_binary.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

namespace fs = std::filesystem;

namespace perflab {
namespace {

bool is_postgres_tool(const std::string& name) {
  return name == "postgres" || name == "initdb" || name == "pg_ctl" || name == "pgbench" ||
         name == "psql" || name == "postmaster" || name == "pg_isready";
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

std::string debian_package_hint(const std::string& name) {
  static const std::map<std::string, std::string> packages = {
      {"postgres", "postgresql"},
      {"postmaster", "postgresql"},
      {"initdb", "postgresql"},
      {"pg_ctl", "postgresql"},
      // Debian 12 ships pgbench with the server (postgresql-15), not the client.
      {"pgbench", "postgresql"},
      {"psql", "postgresql-client"},
      {"pg_isready", "postgresql-client"},
      {"redis-server", "redis-server"},
      {"redis-benchmark", "redis-tools"},
      {"redis-cli", "redis-tools"},
      {"nutcracker", "nutcracker"},
      {"pgbouncer", "pgbouncer"},
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
  path += ":/usr/sbin:/sbin";  // nutcracker and pgbouncer live in /usr/sbin on Debian
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

}  // namespace perflab
