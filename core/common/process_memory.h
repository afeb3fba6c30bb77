#pragma once
// The memory a process of this machine holds for itself: its private pages, read from /proc.
#include <cstdint>

namespace perflab {

// Private_Clean + Private_Dirty of /proc/<pid>/smaps_rollup, in bytes: the memory the process
// alone holds (shared pages, such as a database's shared buffers, not counted); -1 when it
// cannot be read (gone, another machine's, not permitted).
std::int64_t process_private_bytes(int pid);

}  // namespace perflab
