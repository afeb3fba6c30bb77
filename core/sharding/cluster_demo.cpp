#include "sharding/cluster_demo.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "common/key_slot.h"
#include "common/text.h"
#include "targets/cluster.h"
#include "targets/managed_redis_cluster.h"

namespace perflab::sharding {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// What one second of the load saw.
struct Second {
  double requests = 0, errors = 0, moved = 0, ask = 0;
};

// The load of a demonstration: new keys written (their index recorded once acknowledged) and
// earlier ones read, in pipelines, per-second counts kept; `change` runs on a thread of its own
// at a quarter of the time.
struct LiveLoad {
  std::vector<RedisEndpoint> seeds;
  std::chrono::milliseconds timeout{2000};
  DemoOptions opts;
  std::vector<Second> seconds;
  std::vector<std::int64_t> acknowledged;  // indexes of keys whose SET was answered OK
  std::int64_t errors = 0;
  std::string first_error;
  std::uint64_t moved = 0, ask = 0;
  Clock::time_point t0;
  double elapsed = 0;  // seconds the load ran (less than opts.seconds after a stop)
  // Called for each SET answered OK, with the seconds since the start and the key's slot.
  std::function<void(double, int)> on_write;

  std::string key(std::int64_t i) const { return opts.key_prefix + std::to_string(i); }
  static std::string value(std::int64_t i) { return std::string("v").append(std::to_string(i)); }

  Second& at(double t) {
    const auto s = static_cast<std::size_t>(t);
    if (seconds.size() <= s) seconds.resize(s + 1);
    return seconds[s];
  }

  void run(RunContext& ctx, const std::function<void()>& change) {
    t0 = Clock::now();
    try {
      load(ctx, change);
    } catch (...) {
      elapsed = seconds_since(t0);
      throw;
    }
    elapsed = seconds_since(t0);
  }

  void load(RunContext& ctx, const std::function<void()>& change) {
    ClusterClient client(seeds, timeout, ctx.stop_token());
    std::mt19937_64 rng(42);
    std::atomic<bool> changing{false};
    std::exception_ptr change_failed;
    std::jthread changer;
    std::int64_t next = 0;
    const int writes = std::max(1, opts.pipeline / 2);
    while (seconds_since(t0) < opts.seconds) {
      ctx.check_stop();
      if (!changing && seconds_since(t0) >= opts.seconds / 4) {
        changing = true;
        changer = std::jthread([&] {
          try {
            change();
          } catch (...) {
            change_failed = std::current_exception();
          }
        });
      }
      std::vector<std::string> keys, values;
      std::vector<std::int64_t> written;
      for (int i = 0; i < writes; ++i, ++next) {
        written.push_back(next);
        keys.push_back(key(next));
        values.push_back(value(next));
      }
      std::vector<std::vector<std::string_view>> cmds;
      for (std::size_t i = 0; i < keys.size(); ++i) cmds.push_back({"SET", keys[i], values[i]});
      std::vector<std::string> reads;
      for (int i = 0; i < opts.pipeline - writes && !acknowledged.empty(); ++i)
        reads.push_back(key(acknowledged[rng() % acknowledged.size()]));
      for (const auto& k : reads) cmds.push_back({"GET", k});
      const auto before = client.counters();
      std::vector<RedisReply> replies;
      try {
        replies = client.pipeline(cmds);
      } catch (const RedisError& e) {
        ctx.check_stop();
        // No node answered at all (a failover under way): the whole batch failed.
        if (first_error.empty()) first_error = e.what();
        errors += static_cast<std::int64_t>(cmds.size());
        at(seconds_since(t0)).errors += static_cast<double>(cmds.size());
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      const double t = seconds_since(t0);
      Second& s = at(t);
      s.moved += static_cast<double>(client.counters().moved - before.moved);
      s.ask += static_cast<double>(client.counters().ask - before.ask);
      for (std::size_t i = 0; i < replies.size(); ++i) {
        if (replies[i].type == RedisReply::Type::Error) {
          if (first_error.empty()) first_error = replies[i].str;
          ++errors;
          s.errors += 1;
          continue;
        }
        s.requests += 1;
        if (i < written.size()) {
          acknowledged.push_back(written[i]);
          if (on_write) on_write(t, cluster_key_slot(keys[i]));
        }
      }
    }
    changer = {};  // joins
    moved = client.counters().moved;
    ask = client.counters().ask;
    if (change_failed) std::rethrow_exception(change_failed);
  }

  // The acknowledged keys that read back with their values, among those `keep` selects.
  std::int64_t verify(RunContext& ctx, const std::function<bool(int)>& keep,
                      std::int64_t& checked) {
    ClusterClient client(seeds, std::chrono::seconds(5), ctx.stop_token());
    std::int64_t ok = 0;
    checked = 0;
    for (std::size_t from = 0; from < acknowledged.size(); from += 1000) {
      std::vector<std::string> keys;
      std::vector<std::int64_t> index;
      for (std::size_t i = from; i < std::min(acknowledged.size(), from + 1000); ++i)
        if (keep(cluster_key_slot(key(acknowledged[i]))))
          keys.push_back(key(acknowledged[i])), index.push_back(acknowledged[i]);
      std::vector<std::vector<std::string_view>> gets;
      for (const auto& k : keys) gets.push_back({"GET", k});
      const auto replies = client.pipeline(gets);
      for (std::size_t i = 0; i < replies.size(); ++i)
        ok += replies[i].str == value(index[i]) ? 1 : 0;
      checked += static_cast<std::int64_t>(keys.size());
    }
    return ok;
  }

  // Deletes every key the load wrote (one DEL per key: any slot, any master).
  void cleanup(RunContext& ctx) {
    try {
      ClusterClient client(seeds, std::chrono::seconds(2), ctx.stop_token());
      std::vector<std::string> keys;
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(acknowledged.size()) * 2 + 64; ++i)
        keys.push_back(key(i));
      for (std::size_t from = 0; from < keys.size(); from += 1000) {
        std::vector<std::vector<std::string_view>> dels;
        for (std::size_t i = from; i < std::min(keys.size(), from + 1000); ++i)
          dels.push_back({"DEL", keys[i]});
        client.pipeline(dels);
      }
    } catch (...) {
      // Best effort: a managed cluster goes with its folder anyway.
    }
  }

  // Points per second: `series` name -> field.
  void publish(RunContext& ctx, const std::string& group,
               const std::vector<std::pair<std::string, double Second::*>>& series) const {
    for (const auto& [name, field] : series)
      for (std::size_t s = 0; s < seconds.size(); ++s) {
        // The last second is partial: rates over the part that ran.
        const double span = std::min(1.0, elapsed - static_cast<double>(s));
        if (span <= 0.05) continue;
        Point p;
        p.label = std::to_string(s);
        p.x = static_cast<double>(s);
        p.samples = {seconds[s].*field / span};
        ctx.add_point(group, name, std::move(p));
      }
  }
};

void add_time_group(RunContext& ctx, const std::string& id, const std::string& title,
                    const std::string& unit, const std::string& description,
                    bool lower_is_better = false) {
  Group g;
  g.id = id;
  g.title = title;
  g.unit = unit;
  g.x_label = "seconds";
  g.numeric_x = true;
  g.lower_is_better = lower_is_better;
  g.description = description;
  ctx.add_group(g);
}

std::string count_text(std::int64_t n) {
  return std::to_string(n);
}

}  // namespace

void reshard_demo(RunContext& ctx, const RedisClusterTarget& cluster, const DemoOptions& opts,
                  int slots) {
  if (!cluster.managed) {
    ctx.add_finding(note_finding({"reshard.skipped", "",
                                  "resharding left out: Perflab moves slots only on a cluster it "
                                  "manages, never on a user's",
                                  ""}));
    return;
  }
  ctx.progress(0.0, "resharding under load");
  add_time_group(ctx, "reshard_rate", "Resharding under load: requests and errors per second",
                 "per second",
                 "A cluster client writes and reads while, a quarter into the run, slots move "
                 "from one master to another (IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE).");
  add_time_group(ctx, "reshard_redirects", "Resharding under load: redirections per second",
                 "per second",
                 "ASK: a key of a migrating slot already moved (asked once at the target); MOVED: "
                 "the slot is the target's now (the client updates its slot map).",
                 true);
  LiveLoad load;
  load.seeds = cluster.seeds;
  load.timeout = cluster.timeout;
  load.opts = opts;
  ClusterClient probe(cluster.seeds, cluster.timeout, ctx.stop_token());
  const auto masters = probe.masters();
  const ClusterSlotRange* from_range = nullptr;
  for (const auto& r : probe.slot_map())
    if (r.master.address() == masters.at(0).address()) {
      from_range = &r;
      break;
    }
  const int first = from_range->first;
  const int count = std::min(slots, from_range->last - from_range->first + 1);
  std::atomic<int> moved_slots{0};
  double move_started = 0, move_ended = 0;
  const auto publish = [&] {
    load.publish(ctx, "reshard_rate",
                 {{"requests/s", &Second::requests}, {"errors/s", &Second::errors}});
    load.publish(ctx, "reshard_redirects", {{"MOVED/s", &Second::moved}, {"ASK/s", &Second::ask}});
  };
  try {
    load.run(ctx, [&] {
      move_started = seconds_since(load.t0);
      // A stop is seen between slots: the slot being moved is finished first (each step bounded
      // by the timeout), so that no slot is left half-migrated.
      for (int s = first; s < first + count && !ctx.stop_requested(); ++s) {
        SlotMigration m(masters.at(0), masters.at(1), s, cluster.timeout);
        m.begin();
        while (m.move_keys(50) > 0) {
        }
        m.finish(masters);
        moved_slots++;
      }
      move_ended = seconds_since(load.t0);
    });
  } catch (const Cancelled&) {
    publish();  // what was measured is kept
    throw;
  }
  publish();
  std::int64_t checked = 0;
  const std::int64_t verified = load.verify(
      ctx, [](int) { return true; }, checked);
  load.cleanup(ctx);
  const auto lost = static_cast<std::int64_t>(load.acknowledged.size()) - verified;
  ctx.add_finding(
      figure_finding({"reshard.slots_moved", "",
                      std::string("resharding: slots moved from ") + masters.at(0).address() +
                          " to " + masters.at(1).address() + " under load, in " +
                          format_fixed(move_ended - move_started, 1) + " s",
                      "slots"},
                     static_cast<double>(moved_slots.load())));
  ctx.add_finding(figure_finding(
      {"reshard.moved", "", "resharding: MOVED redirections the client followed", "redirections"},
      static_cast<double>(load.moved)));
  ctx.add_finding(figure_finding(
      {"reshard.ask", "", "resharding: ASK redirections the client followed", "redirections"},
      static_cast<double>(load.ask)));
  ctx.add_finding(figure_finding(
      {"reshard.errors", "",
       std::string("resharding: requests answered with an error") +
           (load.first_error.empty() ? std::string()
                                     : std::string(" (first: ") + load.first_error + ")"),
       "requests"},
      static_cast<double>(load.errors)));
  ctx.add_finding(figure_finding(
      {"reshard.keys_verified", "",
       lost == 0
           ? std::string("resharding: nothing lost — every one of the ") + count_text(checked) +
                 " acknowledged writes, before and during the move, read back "
                 "with its value"
           : std::string("resharding: ") + count_text(lost) + " of " + count_text(checked) +
                 " acknowledged writes did NOT read back with their value",
       "writes"},
      static_cast<double>(verified)));
  ctx.add_finding(
      figure_finding({"reshard.keys_lost", "", "resharding: acknowledged writes lost", "writes"},
                     static_cast<double>(lost)));
}

void failover_demo(RunContext& ctx, const DemoOptions& opts) {
  ctx.progress(0.0, "failover: starting a Redis Cluster with replicas");
  ManagedRedisClusterOptions copts;
  copts.replicas = true;
  copts.node_timeout = std::chrono::milliseconds(1000);
  ManagedRedisCluster cluster(copts, ctx.stop_token());  // a Stop ends its start too
  ctx.check_stop();
  ctx.progress(0.0, "failover under load");
  add_time_group(ctx, "failover_rate", "Failover under load: requests and errors per second",
                 "per second",
                 "A quarter into the run one master is killed (SIGKILL). Its slots fail until "
                 "its replica is promoted (cluster-node-timeout 1 s); with "
                 "cluster-require-full-coverage (the default) the whole cluster refuses "
                 "meanwhile.");
  // The killed master's slots, from the map before the kill.
  ClusterClient probe(cluster.seeds(), std::chrono::seconds(2), ctx.stop_token());
  std::vector<char> victim_slot(kClusterSlots, 0);
  const std::string victim = cluster.master(1).endpoint().address();
  for (const auto& r : probe.slot_map())
    if (r.master.address() == victim)
      for (int s = r.first; s <= r.last; ++s) victim_slot[static_cast<std::size_t>(s)] = 1;
  LiveLoad load;
  load.seeds = cluster.seeds();
  load.opts = opts;
  std::atomic<double> killed_at{-1};
  std::optional<double> recovered_at;
  load.on_write = [&](double t, int slot) {
    const double k = killed_at.load();
    if (k >= 0 && !recovered_at && victim_slot[static_cast<std::size_t>(slot)]) recovered_at = t;
  };
  const auto publish = [&] {
    load.publish(ctx, "failover_rate",
                 {{"requests/s", &Second::requests}, {"errors/s", &Second::errors}});
  };
  try {
    load.run(ctx, [&] {
      cluster.master(1).kill_now();
      killed_at = seconds_since(load.t0);
    });
  } catch (const Cancelled&) {
    publish();  // what was measured is kept
    throw;
  }
  publish();
  std::int64_t checked_surviving = 0, checked_failed = 0;
  const auto surviving = load.verify(
      ctx, [&](int s) { return !victim_slot[static_cast<std::size_t>(s)]; }, checked_surviving);
  const auto failed_ok = load.verify(
      ctx, [&](int s) { return victim_slot[static_cast<std::size_t>(s)] != 0; }, checked_failed);
  ctx.add_finding(figure_finding(
      {"failover.errors", "",
       "failover: requests answered with an error after " + victim + " was killed" +
           (load.first_error.empty() ? std::string()
                                     : std::string(" (first: ") + load.first_error + ")"),
       "requests"},
      static_cast<double>(load.errors)));
  if (recovered_at)
    ctx.add_finding(figure_finding(
        {"failover.recovery_s", "",
         "failover: seconds from the kill until a write to the killed master's slots "
         "succeeded again (its replica promoted)",
         "s"},
        *recovered_at - killed_at.load()));
  else
    ctx.add_finding(note_finding({"failover.not_recovered", "",
                                  "failover: writes to the killed master's slots did not succeed "
                                  "again within the run (make demo_s longer)",
                                  ""}));
  const std::int64_t lost = checked_surviving - surviving;
  ctx.add_finding(figure_finding(
      {"failover.keys_verified", "",
       lost == 0
           ? std::string("failover: nothing lost on the surviving masters — all ") +
                 count_text(checked_surviving) + " acknowledged writes read back with their values"
           : std::string("failover: ") + count_text(lost) + " of " + count_text(checked_surviving) +
                 " acknowledged writes of the surviving masters were lost",
       "writes"},
      static_cast<double>(surviving)));
  ctx.add_finding(
      figure_finding({"failover.keys_lost", "",
                      "failover: acknowledged writes lost on the surviving masters", "writes"},
                     static_cast<double>(lost)));
  ctx.add_finding(figure_finding(
      {"failover.failed_master_keys_lost", "",
       "failover: acknowledged writes to the killed master's slots not on its promoted "
       "replica (replication is asynchronous: writes in flight at the kill can go), of " +
           count_text(checked_failed),
       "writes"},
      static_cast<double>(checked_failed - failed_ok)));
}

}  // namespace perflab::sharding
