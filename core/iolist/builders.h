#pragma once
// Statement builders for the multi-row INSERT of the event store (docs/iolist.md).
//
// interpolate — the "before": a faithful C++ translation of the Elixir original: every row a
//               new string built by operator+ and std::to_string, rows joined with ",", then
//               insert + " " + params + ";".
// iolist      — the "after": fragments are referenced, not copied (static literals are never
//               copied, numbers are formatted once into one small arena), the total size is
//               known, and flattening makes one allocation and one copy.
// Both produce byte-identical SQL.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace perflab::iolist {

// Every event carries 8 bind parameters, in this column order.
inline constexpr std::size_t kParamsPerEvent = 8;
inline constexpr std::string_view kEventColumns =
    "(event_id, stream_id, stream_version, correlation_id, event_type, data, metadata, created_at)";
// libpq's limit of 65,535 parameters per statement: 8,191 events of 8 parameters.
inline constexpr std::size_t kMaxEventsPerStatement = 65535 / kParamsPerEvent;

// "INSERT INTO <table> (event_id, ...) VALUES" — the statement's fixed head.
std::string insert_head(std::string_view qualified_table);

// The "before" builder.
std::string build_interpolate(const std::string& head, std::size_t number_of_events);

// A list of fragments that refer to literals (which must outlive it) or to numbers formatted
// into its own arena.
class IoList {
 public:
  IoList(std::size_t fragments, std::size_t arena_bytes);
  void add(std::string_view literal) {
    parts_.push_back(literal);
    size_ += literal.size();
  }
  void add_number(std::size_t v);
  std::size_t size() const { return size_; }
  std::size_t fragments() const { return parts_.size(); }
  // One allocation of size(), one copy of every fragment.
  std::string flatten() const;

 private:
  std::vector<std::string_view> parts_;
  std::unique_ptr<char[]> arena_;
  std::size_t arena_cap_ = 0, arena_used_ = 0, size_ = 0;
};

// The "after" builder: the statement as an IoList over `head` (which must outlive it).
IoList build_iolist(const std::string& head, std::size_t number_of_events);

}  // namespace perflab::iolist
