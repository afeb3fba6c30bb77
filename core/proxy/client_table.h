#pragma once
// The clients being served: each owned here under an id that outlives it (a node's reply for a
// closed client's id finds nobody), found by id, and gone through by the loop's sweeps.
// Internal to perflab_proxy.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ranges>
#include <unordered_map>

#include "proxy/client_conn.h"

namespace perflab::proxy {

class ClientTable {
 public:
  // Takes c, giving it the next id.
  Client& add(std::unique_ptr<Client> c);
  // Gives c up (nullptr when it is not here); its id finds nobody from now on.
  std::unique_ptr<Client> remove(Client& c);
  // The live client with this id, or nullptr.
  Client* find(std::uint64_t id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() || it->second->dead ? nullptr : it->second;
  }
  std::size_t size() const { return owned_.size(); }
  // Every client, as std::unique_ptr<Client>&, in no particular order. Closing one while going
  // through them invalidates the range: collect first, then close.
  auto all() const { return owned_ | std::views::values; }
  void clear();

 private:
  std::unordered_map<Client*, std::unique_ptr<Client>> owned_;
  std::unordered_map<std::uint64_t, Client*> by_id_;
  std::uint64_t next_id_ = 1;
};

}  // namespace perflab::proxy
