// A probe of layering_params_read_guard (never built): a settings file may read by name.
#include "common/params.h"

int warmup(const perflab::Params& p) {
  return static_cast<int>(p.get_int("warmup"));
}
