#pragma once
// Redis Cluster's hash slots: CRC-16/XMODEM of a key (or of its {tag}) modulo 16384, exactly as
// redis-server's keyHashSlot computes them. No network code: the cluster client (targets) and the
// proxy's cluster upstream (proxy) both route with it.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perflab {

inline constexpr int kClusterSlots = 16384;

// The table of CRC-16/XMODEM (polynomial 0x1021), byte at a time. twemproxy's crc16 hash uses it
// with a wider accumulator (proxy/hashkit.cpp).
const std::array<std::uint16_t, 256>& crc16_xmodem_table();
// CRC-16/XMODEM: polynomial 0x1021, initial value 0, no reflection ("123456789" -> 0x31C3).
std::uint16_t crc16_xmodem(std::string_view data);

// The part of a key Redis Cluster hashes: when the key has a '{' and a '}' after it with at
// least one byte between the first '{' and the first '}' after it, those bytes; otherwise the
// whole key. So "{user1}.a" and "x{user1}" share a slot; "{}", "{" and "a{}{b}" hash whole.
std::string_view cluster_hash_tag(std::string_view key);
// The key's slot, 0..16383.
int cluster_key_slot(std::string_view key);
// A short tag (1 to 3 letters or digits) whose slot is `slot`: "{tag}" in a key puts the key
// in that slot (what redis-benchmark --cluster does to send each client's keys to its node).
std::string cluster_tag_for_slot(int slot);
// Those tags for every slot, computed once (slot i's at index i).
const std::vector<std::string>& cluster_slot_tags();

}  // namespace perflab
