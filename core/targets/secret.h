#pragma once
// Secrets of the servers Perflab manages: random passwords from the kernel's CSPRNG, and files
// that hold them, private to the server's user from the moment they exist.
#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <string>

#include "targets/child_process.h"

namespace perflab {

// A random password of 2 * bytes lowercase hex digits (bytes from getrandom(2), the kernel's
// CSPRNG): safe unquoted in a conninfo, an SQL literal and PgBouncer's auth file. Throws
// ServerError when the kernel gives no random bytes (at least 16 bytes are asked for).
std::string random_password(std::size_t bytes = 32);

// Writes `text` to `p` (replaced if it exists; a link there is refused), created with `mode`
// and given to creds' user before a byte is written, so that a secret is never readable by
// another user. Throws ServerError.
void write_private_file(const std::filesystem::path& p, const std::string& text, mode_t mode,
                        const Credentials& creds);

}  // namespace perflab
