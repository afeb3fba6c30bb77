// A file of the targets layer that reaches up to the Experiment contract: must not compile.
#include "runner/experiment.h"
#include "targets/targets.h"
