#pragma once
// The memory a process of this machine holds for itself: its private pages, read from /proc.
#include <cstdint>

namespace perflab {

// The pages the process alone holds, in bytes, from /proc/<pid>/smaps: the private pages of its
// anonymous memory (heap, stacks, anonymous maps) and the pages it copied on write in its file
// maps; -1 when it cannot be read (gone, another machine's, not permitted). Shared pages (a
// database's shared buffers) are left out, and so are a file's own pages: they count as private
// only while no other process maps the file, and as dirty while a program just linked is not yet
// written back, so they would move whenever a second copy of the program starts.
std::int64_t process_private_bytes(int pid);

}  // namespace perflab
