#include "common/key_slot.h"

namespace perflab {

const std::array<std::uint16_t, 256>& crc16_xmodem_table() {
  static const auto table = [] {
    std::array<std::uint16_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i << 8;
      for (int b = 0; b < 8; ++b) c = (c & 0x8000) ? (c << 1) ^ 0x1021 : c << 1;
      t[i] = static_cast<std::uint16_t>(c);
    }
    return t;
  }();
  return table;
}

std::uint16_t crc16_xmodem(std::string_view data) {
  const auto& table = crc16_xmodem_table();
  std::uint16_t crc = 0;
  for (char ch : data) {
    const auto byte = static_cast<std::uint8_t>(ch);
    crc = static_cast<std::uint16_t>((crc << 8) ^ table[((crc >> 8) ^ byte) & 0xff]);
  }
  return crc;
}

std::string_view cluster_hash_tag(std::string_view key) {
  const auto open = key.find('{');
  if (open == std::string_view::npos) return key;
  const auto close = key.find('}', open + 1);
  if (close == std::string_view::npos || close == open + 1) return key;
  return key.substr(open + 1, close - open - 1);
}

int cluster_key_slot(std::string_view key) {
  return crc16_xmodem(cluster_hash_tag(key)) & (kClusterSlots - 1);
}

const std::vector<std::string>& cluster_slot_tags() {
  static const auto tags = [] {
    static constexpr std::string_view kAlphabet =
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    std::vector<std::string> t(kClusterSlots);
    int left = kClusterSlots;
    // Every tag of 1, 2, ... letters, the first letter turning fastest (an odometer); each slot
    // keeps the first tag that lands in it. 62^3 tags cover every slot.
    for (std::size_t len = 1; left > 0; ++len) {
      std::string tag(len, kAlphabet[0]);
      for (;;) {
        auto& slot_tag = t[static_cast<std::size_t>(cluster_key_slot(tag))];
        if (slot_tag.empty()) {
          slot_tag = tag;
          --left;
        }
        std::size_t i = 0;
        while (i < len && tag[i] == kAlphabet.back()) tag[i++] = kAlphabet[0];
        if (i == len) break;
        tag[i] = kAlphabet[kAlphabet.find(tag[i]) + 1];
      }
    }
    return t;
  }();
  return tags;
}

std::string cluster_tag_for_slot(int slot) {
  return cluster_slot_tags().at(static_cast<std::size_t>(slot));
}

}  // namespace perflab
