// The latency recorder's compact text form: varint bytes with zero runs folded, deflated, in
// base64.
#include "common/latency_codec.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace perflab {

namespace {

constexpr std::uint64_t kVersion = 1;
// The most bytes latency_bytes can write: six figures and every counter, 10 bytes each at most.
constexpr std::size_t kMaxBytes = (6 + LatencyRecorder::kCountsLength) * 10;

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

[[noreturn]] void bad(const char* what) {
  throw std::invalid_argument(std::string("latency recorder text: ") + what);
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : b_(bytes) {}
  bool done() const { return pos_ == b_.size(); }
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ == b_.size()) bad("truncated");
      const auto byte = static_cast<unsigned char>(b_[pos_++]);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return v;
    }
    bad("varint too long");
  }

 private:
  std::string_view b_;
  std::size_t pos_ = 0;
};

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

std::string latency_bytes(const LatencyRecorder& r) {
  std::string out;
  put_varint(out, kVersion);
  put_varint(out, r.clamped());
  put_varint(out, static_cast<std::uint64_t>(r.min_ns()));
  put_varint(out, static_cast<std::uint64_t>(r.max_ns()));
  put_varint(out, r.sum_ns());
  if (r.count() == 0) return out;
  const std::size_t first = LatencyRecorder::index_of(r.min_ns());
  const std::size_t last = r.last_nonzero_index();
  put_varint(out, first);
  for (std::size_t i = first; i <= last;) {
    std::size_t zeros = 0;
    while (i + zeros <= last && r.count_at_index(i + zeros) == 0) ++zeros;
    if (zeros >= 2) {
      put_varint(out, zigzag(-static_cast<std::int64_t>(zeros)));
      i += zeros;
    } else {
      put_varint(out, zigzag(static_cast<std::int64_t>(r.count_at_index(i))));
      ++i;
    }
  }
  return out;
}

std::string encode_latency(const LatencyRecorder& r) {
  return to_base64(latency_deflate(latency_bytes(r)));
}

std::string latency_deflate(std::string_view bytes) {
  uLongf size = compressBound(static_cast<uLong>(bytes.size()));
  std::string packed(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(packed.data()), &size,
                reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uLong>(bytes.size()),
                Z_BEST_COMPRESSION) != Z_OK)
    throw std::runtime_error("latency recorder text: zlib failed");
  packed.resize(size);
  return packed;
}

// zlib data inflated, up to kMaxBytes: into a buffer that grows with what comes out (a
// recorder's few hundred bytes), never one of kMaxBytes zeroed for each recorder read.
std::string inflate_bytes(const std::string& packed) {
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) throw std::runtime_error("latency recorder text: zlib failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  zs.avail_in = static_cast<uInt>(packed.size());
  std::string bytes;
  int status = Z_OK;
  while (status == Z_OK && bytes.size() < kMaxBytes) {
    const std::size_t done = bytes.size();
    bytes.resize(std::min(kMaxBytes, std::max<std::size_t>(1024, 2 * done)));
    zs.next_out = reinterpret_cast<Bytef*>(bytes.data() + done);
    zs.avail_out = static_cast<uInt>(bytes.size() - done);
    status = inflate(&zs, Z_NO_FLUSH);
    bytes.resize(bytes.size() - zs.avail_out);
    if (status == Z_BUF_ERROR && zs.avail_in > 0 && bytes.size() < kMaxBytes) status = Z_OK;
  }
  inflateEnd(&zs);
  if (status != Z_STREAM_END) bad("not zlib data of a latency recorder");
  return bytes;
}

LatencyRecorder decode_latency(std::string_view text) {
  LatencyRecorder r;
  decode_latency(text, r);
  return r;
}

void decode_latency(std::string_view text, LatencyRecorder& into) {
  const std::string bytes = inflate_bytes(from_base64(text));
  Reader in(bytes);
  if (in.varint() != kVersion) bad("unknown version");
  const std::uint64_t clamped = in.varint();
  const std::uint64_t min = in.varint(), max = in.varint(), sum = in.varint();
  if (min > static_cast<std::uint64_t>(LatencyRecorder::kHighestTrackableNs) ||
      max > static_cast<std::uint64_t>(LatencyRecorder::kHighestTrackableNs))
    bad("value out of range");
  std::vector<std::uint64_t> counts;
  if (!in.done()) {
    const std::uint64_t first = in.varint();
    if (first >= LatencyRecorder::kCountsLength) bad("index out of range");
    counts.assign(first, 0);
    while (!in.done()) {
      const std::int64_t v = unzigzag(in.varint());
      const std::uint64_t zeros = v < 0 ? static_cast<std::uint64_t>(-v) : 0;
      if (counts.size() + std::max<std::uint64_t>(zeros, 1) > LatencyRecorder::kCountsLength)
        bad("too many counters");
      if (v < 0)
        counts.resize(counts.size() + zeros, 0);
      else
        counts.push_back(static_cast<std::uint64_t>(v));
    }
  }
  try {
    into.assign_parts(counts, clamped, static_cast<std::int64_t>(min),
                      static_cast<std::int64_t>(max), sum);
  } catch (const std::invalid_argument& e) {
    bad(e.what());
  }
}

std::string to_base64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16 |
                            static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1]))
                                << 8 |
                            static_cast<unsigned char>(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (rest == 2) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::string from_base64(std::string_view text) {
  static const std::array<int, 256> value = [] {
    std::array<int, 256> t{};
    t.fill(-1);
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = i;
    return t;
  }();
  if (text.size() % 4 != 0) bad("base64 length is not a multiple of 4");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    if (pad == 1 && text[i + 2] == '=') bad("bad base64 padding");
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + static_cast<std::size_t>(k)];
      const int d = k >= 4 - pad ? 0 : value[static_cast<unsigned char>(c)];
      if (d < 0) bad("bad base64 character");
      v = v << 6 | static_cast<std::uint32_t>(d);
    }
    out.push_back(static_cast<char>(v >> 16));
    if (pad < 2) out.push_back(static_cast<char>((v >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(v & 0xff));
  }
  return out;
}

}  // namespace perflab
