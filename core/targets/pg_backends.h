#pragma once
// The server's backends seen from a connection: waiting until some have exited (closed
// connections leave theirs exiting for a moment, still counted in pg_stat_activity).
#include <chrono>
#include <stop_token>
#include <vector>

#include "targets/postgres.h"

namespace perflab {

// Polls pg_stat_activity on `admin` until none of `pids` is listed (true), `limit` has passed
// or a stop was requested (false). Throws PgError as the connection does.
bool pg_await_backends_exit(PgConnection& admin, const std::vector<int>& pids,
                            std::chrono::milliseconds limit, std::stop_token stop = {});

}  // namespace perflab
