// The caching experiment's decode micro-benchmark (no server): each encoding's decode of the
// document and of the list from the bytes a remote tier stores, interleaved round by round, in
// ns and allocations per decode and MB/s of encoded bytes; the codec's cost on its own.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "caching/caching_run.h"
#include "caching/placement.h"
#include "common/alloc_counter.h"
#include "common/clock.h"
#include "common/sample_calls.h"

namespace perflab::caching {

namespace {

// A sample lasts at least this long, so that the clocks' own cost stays below 1%.
constexpr std::int64_t kDecodeSampleNs = 100'000;

struct Decoder {
  Encoding encoding;
  std::string bytes;  // as encoded
  RotatingPlacement placement = {};
  std::string_view placed = {};  // the bytes where this round placed them
  // Decodes the placed bytes into a ready object as a tier's decode does (a shared object), and
  // holds it until the next decode has made its own, as a caller holds the object it got.
  std::function<void()> decode = {};
  std::shared_ptr<const void> held = {};
  std::int64_t per_sample = 1;
  AllocCount allocs = {};
  std::vector<double> wall_ns = {}, cpu_ns = {};
};

std::string encoding_words(Encoding e) {
  switch (e) {
    case Encoding::Native:
      return "MessagePack";
    case Encoding::Json:
      return "JSON";
    case Encoding::Protobuf:
      return "protobuf";
    case Encoding::ProtobufZlib:
      return "protobuf+zlib";
  }
  return "?";
}

void add_groups(RunContext& ctx) {
  Group time{"decode_time",
             "Decode one record (no server)",
             "ns/decode",
             "",
             false,
             true,
             "The decode alone: the ready object from the bytes Redis stores (native is "
             "MessagePack, json is read by simdjson On-Demand, protobuf+zlib is inflated first), "
             "no server; the encodings take turns round by round."};
  time.interleaved = true;
  time.baseline_series = "native";
  time.log_y = true;  // a document's MessagePack decode and a list's zlib one: 1,000× apart
  ctx.add_group(time);
  Group allocs{"decode_allocs",
               "Allocations per decode (no server)",
               "allocations/decode",
               "",
               false,
               true,
               "Heap allocations made while decoding one record."};
  allocs.log_y = true;  // 3 to 4,000
  ctx.add_group(allocs);
  Group rate{"decode_rate",
             "Decode rate (no server)",
             "MB/s",
             "",
             false,
             false,
             "Encoded bytes decoded per second (MB = 10^6 bytes): the same samples as the decode "
             "time."};
  rate.interleaved = true;
  rate.log_y = true;
  ctx.add_group(rate);
}

}  // namespace

void run_decode(RunContext& ctx, const CachingPlan& plan, const Document& doc,
                const CommentList& list, double from, double to) {
  add_groups(ctx);
  const std::size_t steps = std::size(kWorkloads) * static_cast<std::size_t>(plan.reps);
  std::size_t done = 0;
  for (const char* workload : kWorkloads) {
    const bool is_document = std::string(workload) == "document";
    std::vector<Decoder> decoders;
    for (Encoding e : plan.encodings) {
      const Codec codec{e, plan.zlib_level};
      decoders.push_back({e, is_document ? codec.encode(doc) : codec.encode(list)});
    }
    for (Decoder& d : decoders) {  // the vector is complete: its members stay where they are
      d.placed = d.placement.place(d.bytes, 0);
      const Codec codec{d.encoding, plan.zlib_level};
      const std::string_view& bytes = d.placed;
      std::shared_ptr<const void>& held = d.held;
      if (is_document)
        d.decode = [codec, &bytes, &held] {
          held = std::make_shared<const Document>(codec.decode_document(bytes));
        };
      else
        d.decode = [codec, &bytes, &held] {
          held = std::make_shared<const CommentList>(codec.decode_list(bytes));
        };
    }
    for (Decoder& d : decoders) {
      ctx.check_stop();
      // The first decode warms the thread's buffers (simdjson's parser keeps them): counted
      // after it, the allocations are those of every later decode.
      d.decode();
      AllocScope scope;
      d.decode();
      d.allocs = scope.delta();
      d.per_sample = calls_per_sample(d.decode, kDecodeSampleNs, 1'000'000);
    }
    const std::string step = std::string("decoding the ") + workload + " (no server)";
    for (int round = 0; round < plan.reps; ++round) {
      ctx.check_stop();
      for (std::size_t i = 0; i < decoders.size(); ++i) {
        Decoder& d = decoders[(i + static_cast<std::size_t>(round)) % decoders.size()];
        d.placed = d.placement.place(d.bytes, round);
        d.decode();  // the placed bytes in the caches, as a fetched value's are
        Stopwatch sw;
        for (std::int64_t k = 0; k < d.per_sample; ++k) d.decode();
        const std::int64_t cpu = sw.cpu_elapsed_ns(), wall = sw.wall_elapsed_ns();
        d.wall_ns.push_back(static_cast<double>(wall) / static_cast<double>(d.per_sample));
        d.cpu_ns.push_back(static_cast<double>(cpu) / static_cast<double>(d.per_sample));
      }
      ++done;
      ctx.progress(from + (to - from) * static_cast<double>(done) / static_cast<double>(steps),
                   step);
    }
    for (const Decoder& d : decoders) {
      const std::string series = to_string(d.encoding);
      Point t{workload, std::nullopt, d.wall_ns, {}, {}};
      t.extra["cpu_ns"] = summarize(d.cpu_ns).median;
      t.extra["bytes"] = static_cast<double>(d.bytes.size());
      t.extra["decodes_per_sample"] = static_cast<double>(d.per_sample);
      ctx.add_point("decode_time", series, std::move(t));
      Point a{workload, std::nullopt, {static_cast<double>(d.allocs.allocations)}, {}, {}};
      a.extra["bytes_allocated"] = static_cast<double>(d.allocs.bytes);
      ctx.add_point("decode_allocs", series, std::move(a));
      Point r{workload, std::nullopt, {}, {}, {}};
      for (double ns : d.wall_ns)
        r.samples.push_back(static_cast<double>(d.bytes.size()) / ns * 1e3);
      r.extra["bytes"] = static_cast<double>(d.bytes.size());
      ctx.add_point("decode_rate", series, std::move(r));
    }
    // The codec's cost on its own, each pair decoded in the same rounds (paired).
    const auto find = [&](Encoding e) -> const Decoder* {
      for (const Decoder& d : decoders)
        if (d.encoding == e) return &d;
      return nullptr;
    };
    const auto compare = [&](const std::string& id, Encoding a, Encoding b) {
      const Decoder* x = find(a);
      const Decoder* y = find(b);
      if (!x || !y) return;
      ComparisonSpec spec{
          std::string(workload) + ".decode." + id, workload,
          ComparedPair{"decoding " + encoding_words(a), "decoding " + encoding_words(b),
                       "time per decode (no server)", Quantity::Time, Better::Lower},
          true};
      spec.group = "decode_time";
      ctx.add_comparison(spec, x->wall_ns, y->wall_ns);
    };
    compare("json_vs_native", Encoding::Json, Encoding::Native);
    compare("zlib_vs_protobuf", Encoding::ProtobufZlib, Encoding::Protobuf);
    if (const Decoder* json = find(Encoding::Json)) {
      std::vector<double> rate;
      for (double ns : json->wall_ns)
        rate.push_back(static_cast<double>(json->bytes.size()) / ns * 1e3);
      ctx.add_finding(figure_finding(
          {std::string(workload) + ".decode.json.rate", workload,
           "JSON decoded per second (simdjson On-Demand, no server)", "MB/s", "decode_rate"},
          summarize(rate).median, median_ci(rate)));
    }
  }
}

}  // namespace perflab::caching
