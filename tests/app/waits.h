#pragma once
// How long a window test waits for what must come (a window shown, a widget laid out, a signal).

namespace perflab::test {

// A wait returns as soon as what it waits for comes: its bound only says "it never came". It is
// far above the time it takes, for a loaded 2-core machine with ASan where the test gets a tenth
// of a core; a time itself is a benchmark's figure, never a test's bound.
inline constexpr int kWaitMs = 60000;

}  // namespace perflab::test
