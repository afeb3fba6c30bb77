// The latency recorder's compact text form: exact round trips, its size, and text it refuses.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "common/latency_codec.h"
#include "latency_samples.h"

using namespace perflab;

TEST(LatencyCodec, RoundTripsExactlyAndIsCompact) {
  for (const char* d : {"uniform", "log-uniform", "exponential", "bimodal"}) {
    LatencyRecorder r;
    for (const auto x : test::draw(d, 3)) r.record_ns(x);
    const std::string text = encode_latency(r);
    EXPECT_EQ(decode_latency(text), r) << d;
    // A few bytes per non-zero bucket before zlib, four thirds of that in base64 (the counters
    // themselves are 27,648 x 8 bytes).
    const std::size_t buckets = r.nonzero_buckets().size();
    EXPECT_LT(text.size(), buckets * 4 + 64) << d << ": " << buckets << " buckets";
    std::cout << d << ": " << buckets << " non-zero buckets, " << text.size() << " bytes encoded\n";
  }
  LatencyRecorder edge;
  EXPECT_EQ(decode_latency(encode_latency(edge)), edge);
  edge.record_ns(-1);
  edge.record_ns(LatencyRecorder::kHighestTrackableNs + 9);
  edge.record_ns(5000);
  edge.record_ns(5000, 1000000);
  const LatencyRecorder back = decode_latency(encode_latency(edge));
  EXPECT_EQ(back, edge);
  EXPECT_EQ(back.clamped(), 2u);
}

TEST(LatencyCodec, RefusesTextItDidNotWrite) {
  LatencyRecorder r;
  r.record_ns(1000);
  r.record_ns(2000000);
  const std::string text = encode_latency(r);
  EXPECT_THROW(decode_latency(text.substr(0, text.size() - 4)), std::invalid_argument);
  EXPECT_THROW(decode_latency("not base64!"), std::invalid_argument);
  EXPECT_THROW(decode_latency(to_base64("\x02")), std::invalid_argument);  // not zlib
  EXPECT_THROW(decode_latency(to_base64(latency_deflate("\x02"))), std::invalid_argument);  // v2
  std::string bytes = latency_bytes(r);
  bytes[3] = static_cast<char>(bytes[3] + 1);  // min (1000: 2 bytes) no longer in its bucket
  EXPECT_THROW(decode_latency(to_base64(latency_deflate(bytes))), std::invalid_argument);
  EXPECT_EQ(decode_latency(to_base64(latency_deflate(latency_bytes(r)))), r);
  for (const std::string s : {"", "f", "fo", "foo", "foob", "fooba", "foobar"})
    EXPECT_EQ(from_base64(to_base64(s)), s);
  EXPECT_EQ(to_base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(to_base64("fooba"), "Zm9vYmE=");
}
