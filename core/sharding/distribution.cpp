// The sharding experiment's key distribution tables: keys per node on N nodes (4 by default), and
// the share that moves when an (N+1)th joins, per scheme (modula, ketama, jump hash, Redis
// Cluster's hash slots), over synthetic keys or the user's own.
#include "sharding/distribution.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/figure_format.h"
#include "common/key_slot.h"
#include "common/text.h"
#include "sharding/latency.h"
#include "sharding/sharding_run.h"
#include "sharding/user_keys.h"

namespace perflab::sharding {

namespace {

// The nodes' names on the ketama ring: 127.0.0.1:8081, :8082, ...
std::vector<std::string> node_names(int nodes) {
  std::vector<std::string> names;
  for (int i = 0; i < nodes; ++i) names.push_back("127.0.0.1:" + std::to_string(8081 + i));
  return names;
}

// Master m's first slot among `masters` even ranges.
int range_start(int m, int masters) {
  return (kClusterSlots * m + masters - 1) / masters;
}

// "5th", "21st", "62nd", "13th".
std::string ordinal(int n) {
  const int tens = n % 100, ones = n % 10;
  const char* suffix = tens >= 11 && tens <= 13 ? "th"
                       : ones == 1              ? "st"
                       : ones == 2              ? "nd"
                       : ones == 3              ? "rd"
                                                : "th";
  return std::to_string(n) + suffix;
}

// "a quarter each" on 4 nodes, "1/7 each" on 7.
std::string ideal_each(int nodes) {
  return nodes == 2   ? "a half each"
         : nodes == 4 ? "a quarter each"
                      : "1/" + std::to_string(nodes) + " each";
}

// A share in percent with one decimal: "25.3%".
std::string percent(double share) {
  return format_fixed(100.0 * share, 1) + "%";
}

// A count with its thousands apart: "12,345".
std::string format_count(std::int64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// The scheme's short id in finding ids: "modula", "ketama", "jump", "hash".
std::string scheme_id(const SchemeCount& s) {
  return s.name.substr(0, s.name.find(' '));
}

}  // namespace

std::vector<int> even_slot_owners(int masters) {
  std::vector<int> owners(kClusterSlots);
  for (int s = 0; s < kClusterSlots; ++s) owners[s] = s * masters / kClusterSlots;
  return owners;
}

std::vector<int> rebalanced_slot_owners(int masters) {
  std::vector<int> owners = even_slot_owners(masters);
  for (int m = 0, taken = 0; m < masters; ++m) {
    const int share = (kClusterSlots / (masters + 1) - taken) / (masters - m);
    const int start = range_start(m, masters);
    for (int s = start; s < start + share; ++s) owners[s] = masters;
    taken += share;
  }
  return owners;
}

double SchemeCount::max_share(std::int64_t keys) const {
  if (keys == 0 || per_node.empty()) return 0;
  return static_cast<double>(*std::max_element(per_node.begin(), per_node.end())) /
         static_cast<double>(keys);
}

DistributionCounter::DistributionCounter(int nodes)
    : nodes_(nodes),
      ring_(node_names(nodes)),
      ring_next_(node_names(nodes + 1)),
      slots_(even_slot_owners(nodes)),
      slots_next_(rebalanced_slot_owners(nodes)),
      schemes_{{"modula (crc32)"}, {"ketama"}, {"jump"}, {"hash slots (CRC16)"}} {
  for (auto& s : schemes_) s.per_node.assign(static_cast<std::size_t>(nodes), 0);
}

void DistributionCounter::add(std::string_view k) {
  const auto n = static_cast<std::size_t>(nodes_);
  std::size_t a[4], b[4];
  a[0] = proxy::modula_node(k, n), b[0] = proxy::modula_node(k, n + 1);
  a[1] = ring_.node_for(k), b[1] = ring_next_.node_for(k);
  const std::uint64_t h = proxy::fnv1a64(k);
  a[2] = static_cast<std::size_t>(proxy::jump_consistent_hash(h, nodes_));
  b[2] = static_cast<std::size_t>(proxy::jump_consistent_hash(h, nodes_ + 1));
  const int slot = cluster_key_slot(k);
  a[3] = static_cast<std::size_t>(slots_[slot]), b[3] = static_cast<std::size_t>(slots_next_[slot]);
  for (std::size_t s = 0; s < schemes_.size(); ++s) {
    schemes_[s].per_node[a[s]] += 1;
    if (a[s] != b[s]) schemes_[s].moved++;
  }
  ++keys_;
  if (const std::string_view tag = cluster_hash_tag(k); tag.size() != k.size()) {
    ++tagged_;
    ++tags_[std::string(tag)];
  }
}

std::int64_t DistributionCounter::largest_tag_keys() const {
  std::int64_t most = 0;
  for (const auto& [tag, n] : tags_) most = std::max(most, n);
  return most;
}

std::string DistributionCounter::largest_tag() const {
  const std::pair<const std::string, std::int64_t>* most = nullptr;
  for (const auto& entry : tags_)
    if (!most || entry.second > most->second ||
        (entry.second == most->second && entry.first < most->first))
      most = &entry;
  return most ? most->first : std::string();
}

std::string distribution_sentence(const DistributionCounter& c, const std::string& keys,
                                  bool name_tag) {
  const auto& schemes = c.schemes();
  const std::int64_t total = c.keys();
  const int n = c.nodes();
  const auto by_max_share = [&](const SchemeCount& a, const SchemeCount& b) {
    return a.max_share(total) < b.max_share(total);
  };
  const SchemeCount& best = *std::min_element(schemes.begin(), schemes.end(), by_max_share);
  const SchemeCount& worst = *std::max_element(schemes.begin(), schemes.end(), by_max_share);
  std::string out = "For " + keys + ", " + best.name + " spreads them most evenly over " +
                    std::to_string(n) + " nodes: its fullest node holds " +
                    percent(best.max_share(total)) + " of them (ideal " + percent(1.0 / n) + ")";
  if (worst.max_share(total) > best.max_share(total))
    out += "; " + worst.name + " spreads them least evenly, " + percent(worst.max_share(total)) +
           " on its fullest node";
  out += ".";
  if (c.tagged_keys() > 0)
    out += " " + format_count(c.tagged_keys()) + " of them (" +
           percent(static_cast<double>(c.tagged_keys()) / total) +
           ") carry a hash tag {...}, and Redis Cluster puts all keys of one tag in one slot: " +
           "the largest tag" + (name_tag ? ", {" + c.largest_tag() + "}," : std::string()) +
           " alone puts " + format_count(c.largest_tag_keys()) + " keys (" +
           percent(static_cast<double>(c.largest_tag_keys()) / total) +
           ") on one node with hash slots, whatever the number of nodes.";
  std::vector<std::string> moved;
  for (const auto& s : schemes)
    moved.push_back(percent(static_cast<double>(s.moved) / total) +
                    (moved.empty() ? " of them with " : " with ") + s.name);
  const std::string last = moved.back();
  moved.pop_back();
  out += " Going from " + std::to_string(n) + " to " + std::to_string(n + 1) +
         " nodes would move " + join(moved, ", ") + " and " + last + " (ideal " +
         percent(1.0 / (n + 1)) + ": the new node's share).";
  return out;
}

namespace {

// The words a distribution's charts and sentence name its keys with.
struct DistributionWords {
  std::string title_keys;   // "2000 keys", "12,345 keys sampled from redis 10.0.0.5:6379 ..."
  std::string spread_keys;  // "keys key:000000000000...", as title_keys for the user's keys
  // The user's keys, for the sentence the run states about them; empty for synthetic keys.
  std::string sentence_keys;
  bool name_tag = false;  // the sentence names the largest hash tag (key_names=true)
};

// Node i's point of dist_nodes: its keys, and their share of all in percent.
Point node_point(int i, double keys, std::int64_t total) {
  Point pt;
  pt.label = "node " + std::to_string(i + 1);
  pt.samples = {keys};
  pt.extra["share_pct"] = 100.0 * keys / static_cast<double>(total);
  return pt;
}

// The tables of the counted keys, and their findings: the share each scheme moves; for the
// user's keys also the fullest node's share, the ideal beside the schemes and the sentence.
void publish(RunContext& ctx, const DistributionCounter& c, const DistributionWords& words) {
  const int n = c.nodes();
  const std::int64_t nkeys = c.keys();
  const bool user = !words.sentence_keys.empty();
  const std::string nodes = std::to_string(n), next = std::to_string(n + 1);
  Group nodes_g;
  nodes_g.id = "dist_nodes";
  nodes_g.title = "Keys per node: " + words.title_keys + " on " + nodes + " nodes";
  nodes_g.unit = "keys";
  nodes_g.lower_is_better = false;
  nodes_g.y_label = "keys on the node";  // a count: more is neither better nor worse
  nodes_g.description = "How evenly each scheme spreads " + words.spread_keys + " over " + nodes +
                        " nodes (ideal: " + ideal_each(n) + ").";
  ctx.add_group(nodes_g);
  Group moved_g;
  moved_g.id = "dist_moved";
  moved_g.title = "Keys that move when a " + ordinal(n + 1) + " node is added" +
                  (user ? ": " + words.title_keys : "");
  moved_g.unit = "%";
  moved_g.lower_is_better = true;
  moved_g.y_label = "% of all keys that move, lower is better";
  moved_g.description =
      "modula (crc32 mod N, RedisSharding) moves about " + nodes + "/" + next +
      " of all keys; consistent hashing (ketama ring, jump hash) moves about 1/" + next +
      ", only the new node's share. Redis Cluster's hash slots (CRC16 mod 16384) move only the "
      "slots rebalanced to the new master, taken evenly from the others as redis-cli --cluster "
      "rebalance does: about 1/" +
      next + " too, decided by an explicit slot table instead of a hash ring.";
  ctx.add_group(moved_g);

  const double ideal_moved_pct = 100.0 / (n + 1);
  const std::string moved_what = "share of keys moved from " + nodes + " to " + next +
                                 " nodes (ideal " + format_percent(1.0 / (n + 1)) + ")";
  for (const auto& s : c.schemes()) {
    for (int i = 0; i < n; ++i)
      ctx.add_point("dist_nodes", s.name, node_point(i, static_cast<double>(s.per_node[i]), nkeys));
    double pct = 100.0 * static_cast<double>(s.moved) / nkeys;
    Point pt;
    pt.label = nodes + " -> " + next + " nodes";
    pt.samples = {pct};
    pt.extra["ideal_pct"] = ideal_moved_pct;
    ctx.add_point("dist_moved", s.name, std::move(pt));
    const std::string id = scheme_id(s);
    ctx.add_finding(figure_finding({"moved." + id, s.name, moved_what, "%", "dist_moved"}, pct));
    if (user)
      ctx.add_finding(figure_finding({"spread." + id, s.name,
                                      "share of the keys on the fullest of " + nodes +
                                          " nodes (ideal " + format_percent(1.0 / n) + ")",
                                      "%", "dist_nodes"},
                                     100.0 * s.max_share(nkeys)));
  }
  if (!user) return;
  // The ideal beside the schemes: the same number of keys on every node; the new node's share
  // moved.
  for (int i = 0; i < n; ++i)
    ctx.add_point("dist_nodes", "ideal", node_point(i, static_cast<double>(nkeys) / n, nkeys));
  Point ideal;
  ideal.label = nodes + " -> " + next + " nodes";
  ideal.samples = {ideal_moved_pct};
  ctx.add_point("dist_moved", "ideal", std::move(ideal));
  ctx.add_finding(note_finding({"dist.user_keys", "",
                                distribution_sentence(c, words.sentence_keys, words.name_tag), "",
                                "dist_nodes"}));
}

}  // namespace

// Keys per node on `nodes` nodes, and the share that moves when one more joins, per scheme, over
// the synthetic keys key:000000000000, key:000000000001, ...
void distribution(RunContext& ctx, int nkeys, int nodes) {
  ctx.progress(0.0, "key distribution");
  DistributionCounter counter(nodes);
  char buf[32];
  for (int i = 0; i < nkeys; ++i) {
    if (i % 10000 == 0) ctx.check_stop();
    std::snprintf(buf, sizeof buf, "key:%012d", i);
    counter.add(buf);
  }
  publish(ctx, counter, {std::to_string(nkeys) + " keys", "keys key:000000000000...", ""});
}

void check_user_keys(const ShardingSettings& s, const TargetsConfig& cfg) {
  const std::string& from = s.keys.from;
  const std::string now = " (keys_from is " + from + ")";
  if (from != "file" && !s.keys.file.empty())
    throw ParamError("keys_file: read only with keys_from=file" + now);
  if (from != "redis" && s.keys.match != "*")
    throw ParamError("keys_match: a SCAN MATCH pattern, used only with keys_from=redis" + now);
  if (from == "synthetic") return;
  const std::string only =
      ": keys_from=" + from + " reads the user's keys and only counts how they spread, so ";
  if (!s.distribution)
    throw ParamError("distribution" + only + "distribution=false leaves nothing to do");
  if (s.omission) throw ParamError("omission" + only + "leave omission=false");
  if (s.demonstration != "none")
    throw ParamError("demonstration" + only + "leave demonstration=none");
  if (wants_latency(s.latency)) throw ParamError("latency" + only + "leave latency=none");
  if (from == "file") {
    if (s.keys.file.empty())
      throw ParamError("keys_file: give the file of keys (one key per line) for keys_from=file");
    return;
  }
  if (s.keys.match.empty()) throw ParamError("keys_match: empty; '*' matches every key");
  if (cfg.redis_nodes.empty() && cfg.redis_cluster.empty())
    throw ParamError(
        "keys_from=redis samples the keys of your own Redis: give it (--redis HOST:PORT, or "
        "--redis-cluster HOST:PORT); Perflab's managed servers hold none of your keys");
  if (!cfg.redis_nodes.empty() && !cfg.redis_cluster.empty())
    throw ParamError("keys_from=redis: give --redis or --redis-cluster, not both");
}

void user_distribution(RunContext& ctx, const ShardingSettings& s) {
  const bool from_file = s.keys.from == "file";
  const auto max_keys = static_cast<std::size_t>(s.distribution_keys);
  ctx.progress(0.0, "reading the keys");
  KeySample sample;
  std::string source, read;
  ScanBounds bounds;
  if (from_file) {
    const std::string& path = s.keys.file;
    sample = read_key_file(path, max_keys);
    source = "file '" + path + "'";
  } else {
    const TargetsConfig& cfg = ctx.targets().config();
    std::vector<RedisEndpoint> nodes = cfg.redis_nodes;
    std::string kind = "redis";
    if (nodes.empty()) {
      nodes = cluster_masters(cfg.redis_cluster, cfg.redis_timeout, ctx.stop_token());
      kind = "redis-cluster";
    }
    std::vector<std::string> addresses;
    for (const auto& n : nodes) {
      addresses.push_back(n.address());
      ctx.add_target({kind, n.address(), false, ""});
    }
    bounds.match = s.keys.match;
    bounds.count = s.keys.scan_count;
    bounds.max_keys = max_keys;
    bounds.max_calls = s.keys.scan_max_calls;
    source = (kind == "redis" ? "redis " : "the masters of redis cluster ") +
             join(addresses, ", ") +
             (bounds.match == "*" ? "" : " matching '" + bounds.match + "'");
    ctx.progress(0.0, "SCAN " + source);
    sample = scan_keys(nodes, bounds, cfg.redis_timeout, ctx.stop_token());
    if (sample.keys.empty())
      throw std::runtime_error("keys_from=redis: no key found on " + source + " (" +
                               std::to_string(sample.scan_calls) + " SCAN calls" +
                               (sample.whole ? ", the whole keyspace" : "") + ")");
    read = (bounds.match == "*" ? "" : "MATCH '" + bounds.match + "' ") + "COUNT " +
           std::to_string(bounds.count) + "; at most " + format_count(bounds.max_calls) +
           " of them and " + format_count(static_cast<std::int64_t>(max_keys)) + " keys";
  }
  const auto n = static_cast<std::int64_t>(sample.keys.size());
  const std::string keys = sample.whole ? "all " + format_count(n) + " keys of " + source
                           : from_file  ? "the first " + format_count(n) + " keys of " + source
                                        : format_count(n) + " keys sampled from " + source;
  DistributionCounter counter(s.distribution_nodes);
  for (std::size_t i = 0; i < sample.keys.size(); ++i) {
    if (i % 10000 == 0) ctx.check_stop();
    counter.add(sample.keys[i]);
  }
  publish(ctx, counter, {keys, keys, keys, s.keys.key_names});
  // What was read, and how: never the names (the fingerprint tells two key sets apart).
  ctx.add_finding(figure_finding(
      {"keys.sampled", "", from_file ? "distinct keys read" : "distinct keys sampled", "keys", ""},
      static_cast<double>(n)));
  if (!from_file)
    ctx.add_finding(
        figure_finding({"keys.scan_calls", "", "SCAN requests (" + read + ")", "requests", ""},
                       static_cast<double>(sample.scan_calls)));
  const std::string seen =
      sample.whole ? "every key was seen" + std::string(from_file ? " (the file read to its end)"
                                                                  : " (every cursor back at 0)")
      : static_cast<std::size_t>(n) >= max_keys
          ? "a sample: stopped at distribution_keys = " + format_count(n) + " distinct keys"
          : "a sample: stopped at the bound of " + format_count(bounds.max_calls) + " SCAN calls";
  ctx.add_finding(note_finding({"keys.read", "",
                                "keys read from " + source + ": " + seen +
                                    "; key set fingerprint " + key_set_fingerprint(sample.keys) +
                                    " (FNV-1a over the sorted keys), the key names not stored",
                                ""}));
  ctx.add_finding(note_finding(
      {"keys.read_only", "",
       "only the key distribution ran: a run on the user's keys reads them and writes nothing" +
           std::string(from_file ? "" : " (SCAN only)") +
           "; no sweep, latency, omission or demonstration",
       ""}));
  ctx.progress(1.0, "done");
}

}  // namespace perflab::sharding
