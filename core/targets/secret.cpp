// Random passwords and the files that hold them (targets/secret.h).
#include "targets/secret.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "common/fd_write.h"
#include "targets/server_error.h"

namespace perflab {

std::string random_password(std::size_t bytes) {
  if (bytes < 16) throw ServerError("a password needs at least 16 random bytes");
  std::vector<unsigned char> raw(bytes);
  std::size_t got = 0;
  while (got < raw.size()) {
    const ssize_t n = getrandom(raw.data() + got, raw.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw ServerError("cannot draw a random password (getrandom): " + errno_text(errno));
    got += static_cast<std::size_t>(n);
  }
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes);
  for (unsigned char b : raw) out += digits[b >> 4], out += digits[b & 15];
  return out;
}

void write_private_file(const std::filesystem::path& p, const std::string& text, mode_t mode,
                        const Credentials& creds) {
  const int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) throw ServerError("cannot write " + p.string() + ": " + errno_text(errno));
  // An existing file keeps its mode on open: set it (and the owner) before anything is written.
  bool ok = fchmod(fd, mode) == 0 && (!creds.drop || fchown(fd, creds.uid, creds.gid) == 0);
  int err = ok ? 0 : errno;
  if (ok && !write_all(fd, text)) ok = false, err = errno;
  if (close(fd) != 0 && ok) ok = false, err = errno;
  if (!ok)
    throw ServerError("cannot write " + p.string() + " for user " +
                      (creds.drop ? creds.user : std::string("Perflab")) + ": " + errno_text(err));
}

}  // namespace perflab
