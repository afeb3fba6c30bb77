// A file of the targets layer that reaches up to the Experiment contract: must not compile.
#include "targets/targets.h"
#include "runner/experiment.h"
