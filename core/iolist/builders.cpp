#include "iolist/builders.h"

#include <charconv>
#include <cstring>
#include <stdexcept>

namespace perflab::iolist {

std::string insert_head(std::string_view qualified_table) {
  std::string h = "INSERT INTO ";
  h += qualified_table;
  h += " ";
  h += kEventColumns;
  h += " VALUES";
  return h;
}

std::string build_interpolate(const std::string& head, std::size_t number_of_events) {
  // def create_events(number_of_events \\ 1) do
  //   insert = "INSERT INTO events (...) VALUES"
  const std::string insert = head;
  //   params = 1..number_of_events |> Enum.map(fn event_number ->
  //       index = (event_number - 1) * 8
  //       "($#{index + 1}, $#{index + 2}, ..., $#{index + 8})" end)
  std::vector<std::string> rows;
  for (std::size_t event_number = 1; event_number <= number_of_events; ++event_number) {
    const std::size_t index = (event_number - 1) * 8;
    rows.push_back("($" + std::to_string(index + 1) + ", $" + std::to_string(index + 2) + ", $" +
                   std::to_string(index + 3) + ", $" + std::to_string(index + 4) + ", $" +
                   std::to_string(index + 5) + ", $" + std::to_string(index + 6) + ", $" +
                   std::to_string(index + 7) + ", $" + std::to_string(index + 8) + ")");
  }
  //     |> Enum.join(",")
  std::string params;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) params += ",";
    params += rows[i];
  }
  //   insert <> " " <> params <> ";"
  return insert + " " + params + ";";
}

IoList::IoList(std::size_t fragments, std::size_t arena_bytes)
    : arena_(new char[arena_bytes == 0 ? 1 : arena_bytes]), arena_cap_(arena_bytes) {
  parts_.reserve(fragments);
}

void IoList::add_number(std::size_t v) {
  char* begin = arena_.get() + arena_used_;
  auto [end, ec] = std::to_chars(begin, arena_.get() + arena_cap_, v);
  if (ec != std::errc()) throw std::length_error("IoList arena too small");
  const auto len = static_cast<std::size_t>(end - begin);
  arena_used_ += len;
  add(std::string_view(begin, len));
}

std::string IoList::flatten() const {
  std::string out;
  out.resize(size_);
  char* p = out.data();
  for (auto part : parts_) {
    std::memcpy(p, part.data(), part.size());
    p += part.size();
  }
  return out;
}

namespace {
std::size_t digits(std::size_t v) {
  std::size_t d = 1;
  while (v >= 10) v /= 10, ++d;
  return d;
}
}  // namespace

IoList build_iolist(const std::string& head, std::size_t number_of_events) {
  static constexpr std::string_view kOpen = "($", kSep = ", $", kClose = ")", kComma = ",",
                                    kSpace = " ", kEnd = ";";
  // [insert, " ", params, ";"], params = per event ["($", n1, ", $", n2, ..., n8, ")"] + ","
  const std::size_t fragments = 3 + number_of_events * (2 * kParamsPerEvent + 2);
  const std::size_t arena =
      number_of_events * kParamsPerEvent * digits(number_of_events * kParamsPerEvent);
  IoList list(fragments, arena);
  list.add(head);
  list.add(kSpace);
  for (std::size_t event_number = 1; event_number <= number_of_events; ++event_number) {
    const std::size_t index = (event_number - 1) * kParamsPerEvent;
    list.add(kOpen);
    for (std::size_t k = 1; k <= kParamsPerEvent; ++k) {
      if (k > 1) list.add(kSep);
      list.add_number(index + k);
    }
    list.add(kClose);
    if (event_number != number_of_events) list.add(kComma);
  }
  list.add(kEnd);
  return list;
}

}  // namespace perflab::iolist
