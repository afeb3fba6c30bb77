// A probe of layering_params_read_guard (never built): a parameter read by name outside a
// settings file, which check_params_read.sh must name.
#include "common/params.h"

int repetitions(const perflab::Params& p) {
  return static_cast<int>(p.get_int("repetitions"));
}
