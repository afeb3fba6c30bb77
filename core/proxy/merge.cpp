#include "proxy/merge.h"

#include "proxy/resp.h"

namespace perflab::proxy {

void split_keys(const std::vector<std::string_view>& argv, std::size_t step, const Router& router,
                KeySplit& split) {
  split.by_node.resize(router.size());
  for (auto& v : split.by_node) v.clear();
  split.used = 0;
  split.last = 0;
  for (std::size_t i = 1; i < argv.size(); i += step) {
    const std::size_t n = router.node(argv[i]);
    if (split.by_node[n].empty()) ++split.used, split.last = n;
    split.by_node[n].push_back(static_cast<std::uint32_t>(i));
  }
}

void append_node_command(std::string& out, const std::vector<std::string_view>& argv,
                         const std::vector<std::uint32_t>& keys, std::size_t step) {
  append_array_header(out, static_cast<std::int64_t>(1 + keys.size() * step));
  append_bulk(out, argv[0]);
  for (std::uint32_t i : keys)
    for (std::size_t k = 0; k < step; ++k) append_bulk(out, argv[i + k]);
}

void reply_order(const KeySplit& split, std::size_t step, ReplyOrder& order) {
  std::size_t keys = 0;
  for (const auto& v : split.by_node) keys += v.size();
  order.assign(keys, {0, 0});
  std::uint32_t part = 0;
  for (const auto& v : split.by_node) {
    if (v.empty()) continue;
    for (std::uint32_t j = 0; j < v.size(); ++j) order[(v[j] - 1) / step] = {part, j};
    ++part;
  }
}

namespace {

bool integer_of(std::string_view reply, std::int64_t& out) {
  RespValue v;
  if (!parse_reply(reply, v) || v.type != RespValue::Type::Integer) return false;
  out = v.integer;
  return true;
}

// Appends what the mode makes of the replies (no error among them); false when a reply is not
// of the type the mode expects.
bool merge_ok(MergeMode mode, std::string_view command,
              const std::vector<std::string_view>& replies, const ReplyOrder& order,
              std::string& out) {
  switch (mode) {
    case MergeMode::None:
      out.append(replies.front());
      return true;
    case MergeMode::Identical:
      for (auto r : replies)
        if (r != replies.front()) {
          append_error(out, "ERR nodes replied differently to '" + std::string(command) + "'");
          return true;
        }
      out.append(replies.front());
      return true;
    case MergeMode::SumInt: {
      std::int64_t sum = 0;
      for (auto r : replies) {
        std::int64_t v = 0;
        if (!integer_of(r, v)) return false;
        sum += v;
      }
      append_integer(out, sum);
      return true;
    }
    case MergeMode::AllOk:
      for (auto r : replies)
        if (r != "+OK\r\n") return false;
      append_status(out, "OK");
      return true;
    case MergeMode::AllArray: {
      std::vector<std::int64_t> all;
      for (std::size_t i = 0; i < replies.size(); ++i) {
        RespValue v;
        if (!parse_reply(replies[i], v) || v.type != RespValue::Type::Array) return false;
        if (i == 0) all.assign(v.elements.size(), 1);
        if (v.elements.size() != all.size()) return false;
        for (std::size_t j = 0; j < all.size(); ++j) {
          if (v.elements[j].type != RespValue::Type::Integer) return false;
          all[j] = all[j] == 1 && v.elements[j].integer == 1 ? 1 : 0;
        }
      }
      append_array_header(out, static_cast<std::int64_t>(all.size()));
      for (std::int64_t x : all) append_integer(out, x);
      return true;
    }
    case MergeMode::Values:
    case MergeMode::Concat: {
      std::vector<RespValue> vals(replies.size());
      std::size_t total = 0;
      for (std::size_t i = 0; i < replies.size(); ++i) {
        if (!parse_reply(replies[i], vals[i]) || vals[i].type != RespValue::Type::Array)
          return false;
        total += vals[i].elements.size();
      }
      if (mode == MergeMode::Values && total != order.size()) return false;
      append_array_header(out, static_cast<std::int64_t>(total));
      if (mode == MergeMode::Concat) {
        for (const auto& v : vals)
          for (const auto& e : v.elements) out.append(e.raw);
        return true;
      }
      for (auto [part, idx] : order) {
        if (part >= vals.size() || idx >= vals[part].elements.size()) return false;
        out.append(vals[part].elements[idx].raw);
      }
      return true;
    }
  }
  return false;
}

}  // namespace

void merge_replies(MergeMode mode, std::string_view command,
                   const std::vector<std::string_view>& replies, const ReplyOrder& order,
                   std::string& out) {
  out.clear();
  for (auto r : replies)
    if (!r.empty() && r[0] == '-') {
      out.append(r);  // any error wins (the first one)
      return;
    }
  if (replies.empty() || !merge_ok(mode, command, replies, order, out)) {
    out.clear();
    append_error(out, "ERR unexpected reply from a node to '" + std::string(command) + "'");
  }
}

}  // namespace perflab::proxy
