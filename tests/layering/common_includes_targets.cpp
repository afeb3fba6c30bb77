// A file of the common layer that reaches up to targets. perflab_common does not link
// perflab_targets, so this must not compile (see tests/layering/CMakeLists.txt).
#include "common/run.h"
#include "targets/targets.h"
