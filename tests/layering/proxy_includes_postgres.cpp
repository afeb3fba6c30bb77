// The proxy needs RESP and routing, never PostgreSQL: must not compile against perflab_proxy.
#include "sharding/proxy.h"
#include "targets/postgres.h"
