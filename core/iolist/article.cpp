// The IO-list article's figures (Elixir EventStore, Benchfella, µs per operation, 100 events per
// append), written once: the findings carry the ratios, the experiment's article the tables.
#include "common/text.h"
#include "iolist/iolist_run.h"

namespace perflab::iolist {

namespace {

struct Published {
  bool read;  // read events (else append events)
  std::int64_t clients;
  double before_us, after_us;  // string interpolation, IO list
  double ratio;                // after / before as published
};
constexpr Published kPublished[] = {
    {false, 1, 15787.46, 12239.92, 0.78},       {false, 10, 137400.10, 108868.50, 0.79},
    {false, 100, 1495547.00, 1116299.00, 0.75}, {true, 1, 2151.71, 1928.22, 0.90},
    {true, 10, 20172.47, 20102.93, 1.00},       {true, 100, 202203.20, 201094.80, 0.99},
};
// An earlier change in the same project: one prepared INSERT per event -> one multi-row INSERT.
constexpr Published kPublishedMultiRow = {false, 1, 24479.62, 9738.10, 0.40};

std::vector<std::string> published_row(std::string benchmark, const Published& p) {
  return {std::move(benchmark), format_fixed(p.before_us, 2), format_fixed(p.after_us, 2),
          format_fixed(p.ratio, 2)};
}

}  // namespace

std::optional<double> published_ratio(bool read, std::int64_t clients) {
  for (const auto& p : kPublished)
    if (p.read == read && p.clients == clients) return p.ratio;
  return std::nullopt;
}

Article iolist_article() {
  Article a;
  a.source =
      "Elixir EventStore, Benchfella results as published in the article (seed 000), µs per "
      "operation, 100 events per append.";
  const std::vector<std::string> columns{"benchmark", "before", "after", "ratio"};
  ArticleTable t{
      "Published figures: before (interpolation) → after (IO list)", "µs per op", columns, {}};
  for (const auto& p : kPublished)
    t.rows.push_back(published_row(std::string(p.read ? "read events, " : "append events, ") +
                                       writers_label(p.clients, p.read),
                                   p));
  a.tables.push_back(std::move(t));
  a.tables.push_back(
      {"An earlier change in the same project: one prepared INSERT per event → "
       "one multi-row INSERT",
       "µs per op",
       columns,
       {published_row("append 100 events", kPublishedMultiRow)}});
  return a;
}

}  // namespace perflab::iolist
