#pragma once
// Small text helpers shared by every area: one home for each.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perflab {

// Without leading and trailing white space.
std::string trim(std::string_view s);
// The comma-separated items of `s`, each trimmed, in order; empty items are kept (a caller that
// does not accept them says so). An empty or blank `s` gives no items.
std::vector<std::string> split_commas(std::string_view s);
// The items joined by `sep`.
std::string join(const std::vector<std::string>& items, std::string_view sep = ",");
// A number with a fixed number of decimals, as published tables print them ("15787.46").
std::string format_fixed(double v, int decimals);
// ASCII case conversion.
std::string to_lower(std::string_view s);
std::string to_upper(std::string_view s);
// A time as ISO 8601 in UTC, to the second: 1700000000000 ms since the epoch is
// "2023-11-14T22:13:20Z".
std::string iso8601_utc(std::int64_t unix_ms);

}  // namespace perflab
