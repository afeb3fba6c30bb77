// The IO-list experiment's reads: 1, 10, 100 concurrent readers each reading a stream forward
// and decoding its events, builders interleaved round by round (each reads streams it wrote);
// the readers driven as pool_driver says.
#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>

#include "iolist/iolist_run.h"

namespace perflab::iolist {

namespace {

// The rounds of one read point; a precision watches the finding's ratio iolist / interpolate
// when both builders run, else every builder's median.
PointRounds point_rounds(const RunContext& ctx, const std::vector<Builder>& builders, int reps,
                         int warmup) {
  PointRounds rounds(ctx, warmup, reps, builders.size());
  const auto at = [&](Builder b) {
    return static_cast<std::size_t>(std::find(builders.begin(), builders.end(), b) -
                                    builders.begin());
  };
  if (at(Builder::IoList) < builders.size() && at(Builder::Interpolate) < builders.size())
    rounds.track_ratio(at(Builder::IoList), at(Builder::Interpolate));
  rounds.focus();  // after the minimum, the ratio's two builders only
  return rounds;
}

}  // namespace

void run_read(IoListRun& r) {
  RunContext& ctx = r.ctx;
  const std::vector<Builder>& builders = r.settings.builders;
  const std::vector<std::int64_t>& readers = r.settings.readers;
  const std::size_t events = r.settings.events;
  const std::uint64_t seed = r.settings.seed;
  Group g{"read",
          "Read " + std::to_string(events) + " events",
          "us/op",
          "",
          false,
          true,
          "Wall time for every reader to read a stream's events forward and decode them; "
          "each builder's readers read streams that builder wrote."};
  g.baseline_series = "interpolate";  // as for the appends: the article's pair first
  g.first_series = {"interpolate", "iolist"};
  g.interleaved = true;  // the builders of a point, round by round
  ctx.add_group(g);
  const std::int64_t max_readers = *std::max_element(readers.begin(), readers.end());
  // One stream per (builder, reader), written by that builder.
  ctx.progress(r.begin_point(PointKind::Streams), "writing the streams to read");
  std::map<Builder, std::vector<std::string>> streams;
  {
    PgConnection conn = r.pg().connect(ctx.stop_token());
    EventStore store(conn, r.pg().schema, r.ids());
    std::uint64_t uuid_state = seed ^ 0x5bd1e995ULL;
    for (Builder b : builders) {
      for (std::int64_t rd = 0; rd < max_readers; ++rd) {
        ctx.check_stop();
        std::string uuid = make_uuid(uuid_state);
        store.append_to_stream(uuid, 0, make_events(events, seed + 1000 + std::uint64_t(rd)), b);
        streams[b].push_back(std::move(uuid));
      }
    }
  }
  r.step("streams written");
  for (auto n64 : readers) {
    const auto n = static_cast<std::size_t>(n64);
    ctx.progress(r.begin_point(PointKind::Read, n64),
                 "opening " + std::to_string(n) + " connections");
    const std::unique_ptr<ClientDriver> pool = make_clients(r, n, {r.pg()});
    std::map<Builder, Samples> samples;
    PointRounds rounds = point_rounds(ctx, builders, r.settings.reps, r.settings.warmup);
    const std::string label = writers_label(n64, true);
    auto publish = [&] {
      for (Builder b : builders)
        if (!samples[b].wall.empty()) {
          Point p = make_point(label, samples[b]);
          p.precision = rounds.precision();
          if (p.precision) p.precision->rounds = static_cast<int>(samples[b].wall.size());
          add_client_use(p, samples[b], n, pool->threads());
          ctx.add_point("read", to_string(b), std::move(p));
          r.measured.reads[{to_string(b), label}] = {samples[b], pool->threads()};
        }
    };
    std::vector<std::vector<RecordedEvent>> got;
    publish_after(publish, [&] {
      while (rounds.next()) {
        std::vector<double> round(builders.size());
        for (std::size_t k = 0; k < builders.size(); ++k) {
          ctx.check_stop();
          const std::size_t i = (k + static_cast<std::size_t>(rounds.round())) % builders.size();
          if (!rounds.needs(i)) {  // no open comparison needs it: not read again
            round[i] = std::numeric_limits<double>::quiet_NaN();
            continue;
          }
          const Builder b = builders[i];
          std::vector<ClientRead> reads;
          for (std::size_t w = 0; w < n; ++w)
            reads.push_back({streams[b][w], 1, static_cast<int>(events)});
          const ClientPoolSample s = pool->read(reads, got);
          for (const auto& g : got)
            if (g.size() != events)
              throw std::runtime_error("read " + std::to_string(g.size()) + " events, expected " +
                                       std::to_string(events));
          if (!rounds.warmup()) samples[b].add(s);
          round[i] = s.wall_us;
        }
        rounds.record(round);
        r.step(rounds, "read, " + writers_label(n64, true) + ": " + rounds.progress_text());
      }
    });
  }
}

}  // namespace perflab::iolist
