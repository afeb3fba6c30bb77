// The clients being served, owned and found by id.
#include "proxy/client_table.h"

#include <utility>

namespace perflab::proxy {

Client& ClientTable::add(std::unique_ptr<Client> c) {
  c->id = next_id_++;
  Client& ref = *c;
  by_id_[ref.id] = &ref;
  owned_.emplace(&ref, std::move(c));
  return ref;
}

std::unique_ptr<Client> ClientTable::remove(Client& c) {
  by_id_.erase(c.id);
  auto it = owned_.find(&c);
  if (it == owned_.end()) return nullptr;
  std::unique_ptr<Client> owned = std::move(it->second);
  owned_.erase(it);
  return owned;
}

void ClientTable::clear() {
  owned_.clear();
  by_id_.clear();
}

}  // namespace perflab::proxy
