#pragma once
// Stopping several managed servers side by side: each on a thread of its own, so that stopping
// them all takes as long as the slowest one (its grace, when it hangs), not the sum of them.
#include <functional>
#include <vector>

namespace perflab {

// Runs every job on a thread of its own (the last one on the caller's) and returns once all
// have ended. A job must not throw (it destroys a server); one whose thread cannot be started
// runs on the caller's thread.
void run_side_by_side(std::vector<std::function<void()>> jobs);

}  // namespace perflab
