// The IO-list experiment's payload sweep: where building matters. Single-writer appends (four
// round trips, direct) of events of growing size, builders interleaved; the build's share of each.
#include <algorithm>
#include <optional>

#include "iolist/iolist_run.h"

namespace perflab::iolist {

namespace {

// The payload sweep's events: at most this many bytes of data per append (fewer events per
// append above 40 KiB: the share of a large append is set by its bytes, not by its events, and
// 4 MiB keeps the default sweep to seconds).
constexpr std::size_t kMaxAppendPayload = 4u << 20;

// Events per append of the payload sweep: `events`, fewer when they would carry more than
// kMaxAppendPayload.
std::size_t payload_events(std::size_t events, std::size_t bytes) {
  return std::clamp<std::size_t>(kMaxAppendPayload / bytes, 1, events);
}

}  // namespace

void run_payload(IoListRun& r) {
  RunContext& ctx = r.ctx;
  const std::size_t events = r.settings.events;
  // Sizes from 1 KiB to 1 MiB: on a linear x axis all but the last crowd into its first tenth.
  ctx.add_group({"payload_append", "Append by payload size (single writer)", "us/op",
                 "bytes of JSON per event", true, true,
                 "One append of " + std::to_string(events) +
                     " events (fewer above 40 KiB per event: at most 4 MiB per append) with "
                     "events of growing size, four round trips.",
                 false, true});
  ctx.add_group({"payload_build_share", "Build share by payload size (single writer)",
                 "% of one append", "bytes of JSON per event", true, true,
                 "The share of one append spent building its INSERT (text and parameters), by "
                 "payload size. interpolate, iolist and prepared bind the data as it is (its "
                 "size does not reach the builder); unnest and copy encode every byte as hex "
                 "text, so their build grows with the payload.",
                 false, true});
  std::vector<Variant> variants;
  for (Builder b : r.settings.builders) variants.push_back({AppendOptions{b}, to_string(b)});
  ClientPool pool(1, r.pg(), r.ids(), ctx.stop_token());
  for (auto bytes64 : r.settings.payload_sizes) {
    const auto bytes = static_cast<std::size_t>(bytes64);
    const std::size_t n = payload_events(events, bytes);
    r.begin_point(PointKind::Payload, bytes64);
    const std::vector<std::vector<EventData>> batch{make_events(n, r.settings.seed, bytes)};
    const std::string label = std::to_string(bytes);
    std::vector<AppendSamples> samples(variants.size());
    std::optional<PointPrecision> precision;
    auto publish = [&] {
      for (std::size_t v = 0; v < variants.size(); ++v) {
        const AppendSamples& s = samples[v];
        if (s.total.wall.empty()) continue;
        Point t = make_point(label, s.total);
        t.precision = precision;
        t.x = double(bytes);
        t.extra["events"] = double(n);
        ctx.add_point("payload_append", variants[v].series, std::move(t));
        Point q;
        q.label = label;
        q.x = double(bytes);
        for (std::size_t i = 0; i < s.writer_wall_us.size(); ++i)
          q.samples.push_back(100.0 * s.wall(Phase::Build)[i] / s.writer_wall_us[i]);
        q.extra["build_us"] = summarize(s.wall(Phase::Build)).median;
        ctx.add_point("payload_build_share", variants[v].series, std::move(q));
        r.measured.appends[{variants[v].series, "payload " + label}] = s;
      }
    };
    publish_after(publish, [&] {
      measure_appends(r, pool, false, variants, batch,
                      "payload " + format_bytes(bytes) + " per event", r.settings.payload_reps, 1,
                      {}, samples, precision);
    });
  }
}

}  // namespace perflab::iolist
