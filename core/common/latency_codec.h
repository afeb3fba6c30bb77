#pragma once
// The latency recorder's compact text form for run files, after HdrHistogram's V2 compressed
// encoding: its counters and exact figures as varints (zero runs folded), deflated (zlib), in
// base64.
//
// Bytes before zlib (each a LEB128 varint): version (1), clamped, min, max, sum, the index of
// the first non-zero counter, then the counters from it to the last non-zero one,
// ZigZag-encoded, where a run of k >= 2 zero counters is written as -k. zlib halves that on a
// real distribution (200,000 loopback TCP round trips, 6,600 non-zero buckets: 11,748 bytes of
// base64 varints, 6,144 deflated; every bucket as a JSON [index,count] pair: 62,899; the 8-byte
// counters deflated: 8,876), so a run with a recorder per point and round stays small;
// perflab-latency-bench prints the sizes.
#include <string>
#include <string_view>

#include "common/latency_recorder.h"

namespace perflab {

std::string encode_latency(const LatencyRecorder& r);
// Throws std::invalid_argument for text encode_latency did not write (bad base64, not zlib,
// truncated, another version, counters that disagree with the figures).
LatencyRecorder decode_latency(std::string_view text);
// The same into `into`, reusing its counters (for reading many rounds one after another).
void decode_latency(std::string_view text, LatencyRecorder& into);

// The pieces, for tests and the benchmark's size comparison.
std::string latency_bytes(const LatencyRecorder& r);  // the varints, before zlib and base64
std::string latency_deflate(std::string_view bytes);  // zlib, best compression
std::string to_base64(std::string_view bytes);
std::string from_base64(std::string_view text);  // throws std::invalid_argument

}  // namespace perflab
