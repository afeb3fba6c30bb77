// The proxy is below the sharding experiment, never beside it: must not compile against
// perflab_proxy.
#include "proxy/proxy.h"
#include "sharding/experiment.h"
