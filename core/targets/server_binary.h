#pragma once
// Server binaries in Debian's layout: PostgreSQL's in /usr/lib/postgresql/<version>/bin, the
// others (redis-server, nutcracker, ...) on PATH; a missing one named with its Debian package.
#include <filesystem>
#include <string>

#include "targets/server_error.h"

namespace perflab {

// Locates a server binary: PostgreSQL's in /usr/lib/postgresql/<newest>/bin (or pg_config
// --bindir, or PATH), others on PATH. Throws ServerError naming the Debian package to install.
std::filesystem::path find_server_binary(const std::string& name);

// "<name> not found: install the Debian package <package> (apt-get install <package>)".
std::string debian_package_hint(const std::string& name);
// A regular file this process may execute.
bool is_executable_file(const std::filesystem::path& p);

}  // namespace perflab
