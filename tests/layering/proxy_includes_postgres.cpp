// The proxy needs RESP and routing, never PostgreSQL: must not compile against perflab_proxy.
#include "proxy/proxy.h"
#include "targets/postgres.h"
