// What a loop turn leaves to its end: the holds of ready replies ended.
#include "proxy/turn_lists.h"

#include <algorithm>

namespace perflab::proxy {

void TurnLists::unhold(Client& c) {
  if (c.hold_until > 0) std::erase(holding_, &c);
}

void TurnLists::release_holds(std::int64_t now_ns) {
  std::erase_if(holding_, [&](Client* c) {
    if (c->inflight > 0 && !c->closing && now_ns < c->hold_until) return false;
    c->hold_until = -1;
    mark_dirty(*c);
    return true;
  });
}

}  // namespace perflab::proxy
