#pragma once
// Writing a whole buffer to a blocking file descriptor, through short writes and signals.
#include <string_view>

namespace perflab {

// Writes all of `data` to `fd`, going on after a short write or an interrupted one (EINTR).
// False on an error, with errno as the failing write set it.
bool write_all(int fd, std::string_view data);

}  // namespace perflab
