// One IO-list run's shared state: the server, the points' progress, and the helpers every
// benchmark of the experiment uses (iolist/iolist_run.h).
#include "iolist/iolist_run.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common/clock.h"
#include "runner/run_budget.h"
#include "targets/ownership.h"
#include "targets/pg_text.h"
#include "targets/targets.h"

namespace perflab::iolist {

std::string writers_label(std::int64_t n, bool readers) {
  if (n == 1) return readers ? "single reader" : "single writer";
  return std::to_string(n) + (readers ? " concurrent readers" : " concurrent writers");
}

std::string label_cap(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

std::string rtt_suffix(const std::string& ms) {
  return rtt_ns(ms) > 0 ? ", RTT " + ms + " ms" : "";
}

std::string format_bytes(std::size_t b) {
  if (b >= (1u << 20) && b % (1u << 20) == 0) return std::to_string(b >> 20) + " MiB";
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + " KiB";
  return std::to_string(b) + " B";
}

Point make_point(std::string label, const Samples& s) {
  Point p;
  p.label = std::move(label);
  p.samples = s.wall;
  if (!s.cpu.empty()) p.extra["cpu"] = summarize(s.cpu).median;
  return p;
}

std::string variant_series(const AppendOptions& o) {
  std::string name = to_string(o.builder);
  if (o.transport == Transport::Pipeline) name += " pipelined";
  if (!o.synchronous_commit) name += ", synchronous_commit off";
  return name;
}

void Samples::add(const ClientPoolSample& s) {
  wall.push_back(s.wall_us);
  cpu.push_back(s.cpu_us);
  if (s.wait_us >= 0) wait.push_back(s.wait_us);
  if (s.machine_ticks >= 0 && s.idle_ticks >= 0) {
    machine_ticks.push_back(s.machine_ticks);
    idle_ticks.push_back(s.idle_ticks);
  }
}

void AppendSamples::add(const ClientPoolSample& s, const std::vector<AppendTiming>& timings,
                        double server_us) {
  total.add(s);
  const double n = double(timings.size());
  double all = 0;
  for (std::size_t ph = 0; ph < kPhases; ++ph) {
    double wall = 0, cpu = 0;
    for (const auto& t : timings) wall += double(t.wall_ns[ph]), cpu += double(t.cpu_ns[ph]);
    phase_wall_us[ph].push_back(wall / n / 1000.0);
    phase_cpu_us[ph].push_back(cpu / n / 1000.0);
    all += wall / n / 1000.0;
  }
  writer_wall_us.push_back(all);
  if (server_us >= 0) server_cpu_us.push_back(server_us / n);
}

double AppendSamples::share(Phase p) const {
  std::vector<double> shares;
  for (std::size_t i = 0; i < writer_wall_us.size(); ++i)
    if (writer_wall_us[i] > 0) shares.push_back(wall(p)[i] / writer_wall_us[i]);
  return shares.empty() ? 0.0 : summarize(shares).median;
}

const AppendSamples* IoListMeasured::find(const std::string& series,
                                          const std::string& label) const {
  auto it = appends.find({series, label});
  return it == appends.end() || it->second.total.wall.empty() ? nullptr : &it->second;
}

namespace {

// Whether a planned point is measured in rounds (PointRounds): not the build, pgbench, the
// streams written for the readers, PgBouncer's prepared probe or the latency rounds.
bool measured_in_rounds(const PointProgress::Planned& p) {
  switch (p.kind) {
    case PointKind::Relay:
    case PointKind::Append:
    case PointKind::Read:
    case PointKind::Payload:
    case PointKind::Client:
    case PointKind::StandbyRead:
    case PointKind::StandbyLag:
      return true;
    case PointKind::Pooled:
      return p.n > 0;
    default:
      return false;
  }
}

}  // namespace

IoListRun::IoListRun(RunContext& context)
    : ctx(context), settings(IoListSettings::from(context.params())) {
  const IoListSettings& s = settings;
  for (Transport t : s.transports)
    for (Builder b : s.builders) {
      const AppendOptions o{b, t};
      variants_.push_back({o, variant_series(o)});
    }
  uuid_state_ = s.seed ^ 0x9e3779b97f4a7c15ULL;
  plan_points(s, variants_.size(), progress_);
  // The points measured in rounds (PointRounds) share the run's budget, if any.
  const auto& planned = progress_.planned();
  ctx.expect_points(
      static_cast<std::size_t>(std::count_if(planned.begin(), planned.end(), measured_in_rounds)));
  for (const auto& p : planned) min_forecast_s_.push_back(p.forecast_s);
  foretell_shares(0);
}

// Measuring adaptively within a budget, the points from `from` on are foretold as the run's
// budget will share them, in the run's order, from what is left of it now: a RunBudget as the
// run's own, each point taking its share when the forecasts say it begins (or its minimum rounds,
// when they take longer).
void IoListRun::foretell_shares(std::size_t from) {
  const RunnerSettings& runner = ctx.runner();
  if (!runner.adaptive() || !(runner.budget_s > 0)) return;
  const auto& planned = progress_.planned();
  RunBudget budget(runner.budget_s);
  budget.expect_points(static_cast<std::size_t>(std::count_if(
      planned.begin() + static_cast<std::ptrdiff_t>(from), planned.end(), measured_in_rounds)));
  double at_s = ctx.elapsed_s();
  for (std::size_t i = from; i < planned.size(); ++i) {
    double takes = min_forecast_s_[i];
    if (measured_in_rounds(planned[i])) {
      takes = std::max(takes, std::min(*budget.take_point(at_s), runner.precision_budget_s));
      progress_.foretell(i, takes);
    }
    at_s += takes;
  }
}

void IoListRun::connect() {
  pg_ = ctx.targets().postgres(ctx.stop_token());
  ctx.progress(fraction(), "connecting to PostgreSQL");
  admin_.emplace(pg_.connect(ctx.stop_token()));
  PgConnection& admin = *admin_;
  if (settings.reset) {
    ctx.progress(fraction(), "resetting schema " + pg_.schema);
    reset_schema(admin, pg_.schema);
  } else {
    if (pg_schema_state(admin, pg_.schema) != SchemaState::Owned)  // it would be written into
      throw TargetError(TargetField::PgSchema,
                        "reset=false needs Perflab's schema \"" + pg_.schema +
                            "\" from an earlier run; it does not exist or is not Perflab's");
    admin.exec("SELECT 1 FROM " + pg_quote_ident(pg_.schema) + ".events LIMIT 1");
  }
  ids_.emplace(EventIdAllocator::last_used(admin, pg_.schema));
  // synchronous_commit=off only where Perflab owns the whole server: never on another's.
  if (settings.async_commit && !pg_.managed) {
    ctx.progress(fraction(), kAsyncCommitSkipped);
  } else if (settings.async_commit) {
    const AppendOptions o{Builder::IoList, Transport::RoundTrips, false};
    variants_.push_back({o, variant_series(o)});
  }
  async_skipped_ = settings.async_commit && !pg_.managed;
  server_host_ = admin.host();
  server_port_ = admin.port();
  if (settings.has("append") && settings.relayed &&
      (server_host_.empty() || server_host_.front() == '/'))
    throw std::invalid_argument(
        "network_rtt_ms above 0 needs PostgreSQL over TCP; this target is a Unix socket (" +
        server_host_ + "): set network_rtt_ms=0 or give a host");
}

double IoListRun::begin_point(PointKind kind, std::int64_t n, const std::string& tag) {
  const double f = progress_.begin(kind, n, tag, static_cast<double>(wall_ns()) / 1e9);
  // The points after it, from how much of the budget is left now.
  if (const auto i = progress_.current()) foretell_shares(*i + 1);
  return f;
}

void IoListRun::step(const std::string& what) {
  ctx.progress(progress_.step(), what);
}

void IoListRun::step(const PointRounds& rounds, const std::string& what) {
  ctx.progress(progress_.reach(rounds.done()), what);
}

// The forecasts: seconds on this 2-core machine's release build with nothing else running
// (a default run), per point: what counting every step alike got wrong was their spread, from
// 20 ms (a build sample) to 2.4 s (a round of 100 writers). The run scales them by what it
// measures (PointProgress), so only their proportions need to hold.
namespace {
constexpr double kOpenWriterS = 0.035;  // a writer's connection, its statements prepared
constexpr double kOpenReaderS = 0.011;
// One append of one variant by one of n concurrent writers, 100 events: a + b·n per round
// (1, 10, 100 writers: 0.063, 0.24, 2.1 s per round of 11 variants); about 7 round trips.
constexpr double kAppendS = 0.0039, kAppendPerWriterS = 0.0019, kAppendTrips = 7;
// A pgbench invocation of n clients: a + b·n^1.3 (1, 10, 100 clients: 0.38, 0.39, 2.8 s).
constexpr double kPgbenchS = 0.36, kPgbenchPerClientS = 0.0061;
constexpr double kReadPerReaderS = 0.0033;  // a round of n readers, 100 events each
constexpr double kWriteStreamS = 0.006;     // one stream of the readers', per builder
// A payload append of one builder: a + b per MiB (1 KiB, 64 KiB, 1 MiB: 0.9, 3.6, 2.5 s).
constexpr double kPayloadS = 0.02, kPayloadPerMiBS = 0.017;
constexpr double kClientRoundS = 0.07;
constexpr double kStandbyStartS = 5.0;
}  // namespace

void plan_points(const IoListSettings& s, std::size_t variants, PointProgress& progress) {
  const auto rounds = static_cast<std::size_t>(s.reps + s.warmup);
  const double r = static_cast<double>(rounds), v = static_cast<double>(variants);
  const double builders = static_cast<double>(s.builders.size());
  const double events = 0.3 + 0.7 * static_cast<double>(s.events) / 100.0;  // its share
  const auto append_round = [&](double writers, double vs) {
    return vs * (kAppendS + kAppendPerWriterS * writers) * events;
  };
  if (s.has("build"))
    for (auto n : s.build_sizes)
      for (const Builder b : {Builder::Interpolate, Builder::IoList})
        progress.add(PointKind::Build, n, to_string(b), static_cast<std::size_t>(s.reps),
                     static_cast<double>(s.reps) * static_cast<double>(s.build_sample_ns) / 1e9);
  if (s.has("append")) {
    if (s.relayed) progress.add(PointKind::Relay, 1, "", rounds, r * 0.015);
    for (const std::string& rtt : s.rtts)
      for (auto n : rtt_ns(rtt) > 0 ? s.rtt_writers : s.writers) {
        const double w = static_cast<double>(n);
        const double trips = r * v * kAppendTrips * static_cast<double>(rtt_ns(rtt)) / 1e9;
        progress.add(PointKind::Append, n, rtt, rounds,
                     w * kOpenWriterS + r * append_round(w, v) + trips);
      }
  }
  if (s.has("pgbench"))
    for (auto n : s.writers) {
      const int runs = s.pgbench_reps + std::max(s.warmup, 1);  // the calibration first
      progress.add(PointKind::Pgbench, n, "", static_cast<std::size_t>(runs),
                   runs * (kPgbenchS * static_cast<double>(s.pgbench_ms) / 1000.0 +
                           kPgbenchPerClientS * std::pow(static_cast<double>(n), 1.3)));
    }
  const auto most = [](const std::vector<std::int64_t>& ns) {
    return ns.empty() ? 0.0 : static_cast<double>(*std::max_element(ns.begin(), ns.end()));
  };
  const auto reads = [&](double readers) {
    return readers * kOpenReaderS + r * kReadPerReaderS * readers * builders / 5 * events;
  };
  if (s.has("read")) {
    progress.add(PointKind::Streams, 0, "", 1, builders * most(s.readers) * kWriteStreamS * events);
    for (auto n : s.readers)
      progress.add(PointKind::Read, n, "", rounds, reads(static_cast<double>(n)));
  }
  if (s.has("payload"))
    for (auto bytes : s.payload_sizes) {
      const double per_append =
          std::min<double>(4u << 20, static_cast<double>(bytes) * static_cast<double>(s.events));
      progress.add(PointKind::Payload, bytes, "", static_cast<std::size_t>(s.payload_reps + 1),
                   (s.payload_reps + 1) * builders *
                       (kPayloadS + kPayloadPerMiBS * per_append / (1u << 20)));
    }
  if (s.has("client")) progress.add(PointKind::Client, 0, "", rounds, (r + 1) * kClientRoundS);
  if (s.has("pooled")) {
    for (auto n : s.pool_clients) {
      const double w = static_cast<double>(n);
      progress.add(PointKind::Pooled, n, "", rounds,
                   2 * w * kOpenWriterS + r * append_round(w, 2 * builders));
    }
    progress.add(PointKind::Pooled, 0, "prepared", 1, 0.5);
  }
  if (s.has("standby")) {
    progress.add(PointKind::StandbyStreams, 0, "", 1,
                 kStandbyStartS + builders * most(s.readers) * kWriteStreamS * events);
    for (auto n : s.readers)
      progress.add(PointKind::StandbyRead, n, "", rounds, 2 * reads(static_cast<double>(n)));
    for (auto n : s.writers) {
      const double w = static_cast<double>(n);
      progress.add(PointKind::StandbyLag, n, "", rounds,
                   2 * w * kOpenWriterS + 2 * r * append_round(w, v));
    }
  }
  if (s.has("latency")) {
    const auto steps = static_cast<std::size_t>(s.latency_rounds) * (s.builders.size() + 1);
    progress.add(PointKind::Latency, 0, "", steps,
                 static_cast<double>(steps) * (s.latency_seconds + 0.2));
  }
}

}  // namespace perflab::iolist
