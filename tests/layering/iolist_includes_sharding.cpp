// One experiment including another: must not compile. Experiments never include each other.
#include "iolist/experiment.h"
#include "sharding/experiment.h"
