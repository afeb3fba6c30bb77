#pragma once
// Managed servers stopped off the GUI thread when the window goes, so that quitting returns at
// once: the window is gone while the servers stop (a server that does not stop is killed within
// its bound). The program waits for these stops before it exits, so no server outlives it and
// their folders are removed.
#include <memory>

#include "targets/targets.h"

namespace perflab::gui {

// Destroys `targets` (stopping its managed servers) on a thread of its own once nothing else
// holds it.
void stop_in_background(std::shared_ptr<Targets> targets);
// Waits for every stop handed to stop_in_background. main() calls it before it returns; it is
// called again when the program exits.
void wait_for_background_stops();

}  // namespace perflab::gui
