// perflab-json-bench: reading a run file (parse + build the Run) and writing it, timed with each
// JSON library Perflab could read run files with (a benchmark, not a test: it prints figures).
//   perflab-json-bench RUN.json [TRIES]   (make a large run with perflab-window-bench make-run)
// Every try times each reader once, in turn; each gives the median, min and max (wall and CPU
// time), and the ratio to the first of its list as the median of the per-try ratios, min–max.
#include <simdjson.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/run.h"
#include "common/run_io.h"

using namespace perflab;
using nlohmann::json;

namespace {

// The Run from a parsed document (nlohmann::json or simdjson::dom::element), reading the fields
// run_from_json reads with their types checked, but not their ranges nor every field's name
// in a refusal (run_from_json does both: these readers do a little less work than it).
template <class Dom>
class DomRunBuilder {
 public:
  using V = typename Dom::Value;

  static Run build(const V& root) {
    Run run;
    run.experiment = Dom::string(req(root, "experiment"));
    run.title = opt_string(root, "title");
    if (auto p = Dom::find(root, "params"))
      Dom::members(
          *p, [&](std::string_view k, const V& v) { run.params[std::string(k)] = Dom::string(v); });
    if (auto t = Dom::find(root, "targets"))
      Dom::elements(*t, [&](const V& e) {
        run.targets.push_back({Dom::string(req(e, "kind")), Dom::string(req(e, "address")),
                               opt_bool(e, "managed"), opt_string(e, "version")});
      });
    if (auto h = Dom::find(root, "host")) {
      run.host.cpu_model = opt_string(*h, "cpu_model");
      run.host.cores = static_cast<int>(opt_number(*h, "cores"));
      run.host.kernel = opt_string(*h, "kernel");
      run.host.hostname = opt_string(*h, "hostname");
      run.host.perflab_version = opt_string(*h, "perflab_version");
      run.host.build_type = opt_string(*h, "build_type");
    }
    run.started_unix_ms = static_cast<std::int64_t>(opt_number(root, "started_unix_ms"));
    run.ended_unix_ms = static_cast<std::int64_t>(opt_number(root, "ended_unix_ms"));
    run.status = run_status_from_string(Dom::string(req(root, "status")));
    run.message = opt_string(root, "message");
    run.detail = opt_string(root, "detail");
    if (auto g = Dom::find(root, "groups"))
      Dom::elements(*g, [&](const V& e) {
        Group group{Dom::string(req(e, "id")),    opt_string(e, "title"),
                    opt_string(e, "unit"),        opt_string(e, "x_label"),
                    opt_bool(e, "numeric_x"),     opt_bool(e, "lower_is_better"),
                    opt_string(e, "description"), opt_bool(e, "log_y"),
                    opt_bool(e, "log_x"),         opt_bool(e, "headline")};
        group.stacked = opt_bool(e, "stacked");
        run.groups.push_back(std::move(group));
      });
    if (auto s = Dom::find(root, "series"))
      Dom::elements(*s, [&](const V& e) {
        Series ser{Dom::string(req(e, "group")), Dom::string(req(e, "name")), {}};
        if (auto pts = Dom::find(e, "points"))
          Dom::elements(*pts, [&](const V& p) { ser.points.push_back(point(p)); });
        run.series.push_back(std::move(ser));
      });
    if (auto f = Dom::find(root, "findings"))
      Dom::elements(*f, [&](const V& e) {
        Finding fd;
        fd.id = Dom::string(req(e, "id"));
        fd.text = opt_string(e, "text");
        fd.value = Dom::number(req(e, "value"));
        run.findings.push_back(std::move(fd));
      });
    run.threshold = opt_number(root, "threshold");
    return run;
  }

 private:
  static Point point(const V& p) {
    Point pt;
    pt.label = Dom::string(req(p, "label"));
    if (auto x = Dom::find(p, "x")) pt.x = Dom::number(*x);
    if (auto s = Dom::find(p, "samples"))
      Dom::elements(*s, [&](const V& v) { pt.samples.push_back(Dom::number(v)); });
    if (auto e = Dom::find(p, "extra"))
      Dom::members(
          *e, [&](std::string_view k, const V& v) { pt.extra[std::string(k)] = Dom::number(v); });
    pt.cv = opt_number(p, "cv");
    if (auto st = Dom::find(p, "stats"); st && pt.samples.empty()) {
      pt.stats.n = static_cast<std::size_t>(opt_number(*st, "n"));
      pt.stats.median = opt_number(*st, "median");
    }
    summarize_samples(pt);
    return pt;
  }
  static V req(const V& obj, const char* key) {
    auto v = Dom::find(obj, key);
    if (!v) throw std::runtime_error(std::string(key) + ": missing");
    return *v;
  }
  static std::string opt_string(const V& obj, const char* key) {
    auto v = Dom::find(obj, key);
    return v ? Dom::string(*v) : std::string();
  }
  static double opt_number(const V& obj, const char* key) {
    auto v = Dom::find(obj, key);
    return v ? Dom::number(*v) : 0;
  }
  static bool opt_bool(const V& obj, const char* key) {
    auto v = Dom::find(obj, key);
    return v ? Dom::boolean(*v) : false;
  }
};

struct NlohmannDom {
  using Value = json;
  static std::optional<std::reference_wrapper<const json>> find(const json& o, const char* k) {
    if (!o.is_object()) throw std::runtime_error("expected an object");
    auto it = o.find(k);
    if (it == o.end() || it->is_null()) return std::nullopt;
    return std::cref(*it);
  }
  static std::string string(const json& v) { return v.get<std::string>(); }
  static double number(const json& v) {
    if (!v.is_number()) throw std::runtime_error("expected a number");
    return v.get<double>();
  }
  static bool boolean(const json& v) { return v.get<bool>(); }
  template <class F>
  static void elements(const json& v, F f) {
    if (!v.is_array()) throw std::runtime_error("expected an array");
    for (const json& e : v) f(e);
  }
  template <class F>
  static void members(const json& v, F f) {
    if (!v.is_object()) throw std::runtime_error("expected an object");
    for (auto it = v.begin(); it != v.end(); ++it) f(it.key(), it.value());
  }
};

struct SimdjsonDom {
  using Value = simdjson::dom::element;
  using E = simdjson::dom::element;
  static std::optional<E> find(const E& o, const char* k) {
    simdjson::dom::object obj;
    if (o.get_object().get(obj)) throw std::runtime_error("expected an object");
    E v;
    if (obj.at_key(k).get(v) || v.is_null()) return std::nullopt;
    return v;
  }
  static std::string string(const E& v) {
    std::string_view s;
    if (v.get_string().get(s)) throw std::runtime_error("expected a string");
    return std::string(s);
  }
  static double number(const E& v) {
    double d;
    if (v.get_double().get(d)) throw std::runtime_error("expected a number");
    return d;
  }
  static bool boolean(const E& v) {
    bool b;
    if (v.get_bool().get(b)) throw std::runtime_error("expected true or false");
    return b;
  }
  template <class F>
  static void elements(const E& v, F f) {
    simdjson::dom::array a;
    if (v.get_array().get(a)) throw std::runtime_error("expected an array");
    for (E e : a) f(e);
  }
  template <class F>
  static void members(const E& v, F f) {
    simdjson::dom::object o;
    if (v.get_object().get(o)) throw std::runtime_error("expected an object");
    for (auto m : o) f(m.key, m.value);
  }
};

// nlohmann's SAX interface: the Run built from the parser's events, without a document. It
// keeps where it is as a stack of the containers open; what it does not read it skips.
class SaxRunBuilder : public nlohmann::json_sax<json> {
 public:
  Run run;

  bool null() override { return true; }
  bool boolean(bool b) override {
    if (top() == In::Group) {
      Group& g = run.groups.back();
      if (key_ == "numeric_x")
        g.numeric_x = b;
      else if (key_ == "lower_is_better")
        g.lower_is_better = b;
      else if (key_ == "log_y")
        g.log_y = b;
      else if (key_ == "log_x")
        g.log_x = b;
      else if (key_ == "headline")
        g.headline = b;
      else if (key_ == "stacked")
        g.stacked = b;
    }
    return true;
  }
  bool number_integer(number_integer_t v) override { return number(static_cast<double>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return number(static_cast<double>(v)); }
  bool number_float(number_float_t v, const string_t&) override { return number(v); }
  bool string(string_t& s) override {
    switch (top()) {
      case In::Root:
        if (key_ == "experiment")
          run.experiment = std::move(s);
        else if (key_ == "title")
          run.title = std::move(s);
        else if (key_ == "status")
          run.status = run_status_from_string(s);
        else if (key_ == "message")
          run.message = std::move(s);
        else if (key_ == "detail")
          run.detail = std::move(s);
        break;
      case In::Params:
        run.params[key_] = std::move(s);
        break;
      case In::Group:
        if (key_ == "id")
          run.groups.back().id = std::move(s);
        else if (key_ == "title")
          run.groups.back().title = std::move(s);
        else if (key_ == "unit")
          run.groups.back().unit = std::move(s);
        else if (key_ == "x_label")
          run.groups.back().x_label = std::move(s);
        else if (key_ == "description")
          run.groups.back().description = std::move(s);
        break;
      case In::Series:
        if (key_ == "group")
          run.series.back().group = std::move(s);
        else if (key_ == "name")
          run.series.back().name = std::move(s);
        break;
      case In::Point:
        if (key_ == "label") point().label = std::move(s);
        break;
      case In::Finding:
        if (key_ == "id")
          run.findings.back().id = std::move(s);
        else if (key_ == "text")
          run.findings.back().text = std::move(s);
        break;
      default:
        break;
    }
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool key(string_t& k) override {
    key_.swap(k);
    return true;
  }
  bool start_object(std::size_t) override {
    In in = In::Skip;
    switch (top()) {
      case In::None:
        in = In::Root;
        break;
      case In::Root:
        if (key_ == "params") in = In::Params;
        break;
      case In::Groups:
        run.groups.emplace_back();
        in = In::Group;
        break;
      case In::SeriesList:
        run.series.emplace_back();
        in = In::Series;
        break;
      case In::Points:
        run.series.back().points.emplace_back();
        in = In::Point;
        break;
      case In::Point:
        if (key_ == "extra") in = In::Extra;
        break;
      case In::Findings:
        run.findings.emplace_back();
        in = In::Finding;
        break;
      default:
        break;
    }
    stack_.push_back(in);
    return true;
  }
  bool end_object() override {
    if (top() == In::Point) summarize_samples(point());
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    In in = In::Skip;
    if (top() == In::Root && key_ == "groups")
      in = In::Groups;
    else if (top() == In::Root && key_ == "series")
      in = In::SeriesList;
    else if (top() == In::Root && key_ == "findings")
      in = In::Findings;
    else if (top() == In::Series && key_ == "points")
      in = In::Points;
    else if (top() == In::Point && key_ == "samples")
      in = In::Samples;
    stack_.push_back(in);
    return true;
  }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    throw std::runtime_error(e.what());
  }

 private:
  enum class In {
    None,
    Root,
    Params,
    Groups,
    Group,
    SeriesList,
    Series,
    Points,
    Point,
    Samples,
    Extra,
    Findings,
    Finding,
    Skip
  };
  In top() const { return stack_.empty() ? In::None : stack_.back(); }
  Point& point() { return run.series.back().points.back(); }
  bool number(double v) {
    switch (top()) {
      case In::Root:
        if (key_ == "started_unix_ms")
          run.started_unix_ms = static_cast<std::int64_t>(v);
        else if (key_ == "ended_unix_ms")
          run.ended_unix_ms = static_cast<std::int64_t>(v);
        else if (key_ == "threshold")
          run.threshold = v;
        break;
      case In::Samples:
        point().samples.push_back(v);
        break;
      case In::Point:
        if (key_ == "x")
          point().x = v;
        else if (key_ == "cv")
          point().cv = v;
        break;
      case In::Extra:
        point().extra[key_] = v;
        break;
      case In::Finding:
        if (key_ == "value") run.findings.back().value = v;
        break;
      default:
        break;
    }
    return true;
  }
  std::vector<In> stack_;
  std::string key_;
};

// Parses and drops every event: what nlohmann's parser costs without a document.
class SaxNothing : public nlohmann::json_sax<json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool key(string_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    throw std::runtime_error(e.what());
  }
};

std::size_t points_of(const Run& run) {
  std::size_t n = 0;
  for (const auto& s : run.series) n += s.points.size();
  return n;
}

struct Contender {
  const char* name;
  std::function<std::size_t()> once;  // returns a figure of what was read, so none is skipped
  std::vector<double> wall = {}, cpu = {};
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Process CPU time: on a shared machine a reader's wall time also counts the time it waited for
// a core; both are shown.
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

void report(const std::vector<Contender>& all, const char* what) {
  const Contender& base = all.front();
  std::printf(
      "%s\n  (ms: median [min-max]; ratio to the first: median of the per-try ratios "
      "[min-max])\n",
      what);
  for (const Contender& c : all) {
    std::printf("  %s\n", c.name);
    for (const bool cpu : {false, true}) {
      const auto& t = cpu ? c.cpu : c.wall;
      const auto& b = cpu ? base.cpu : base.wall;
      std::vector<double> ratio;
      for (std::size_t i = 0; i < t.size(); ++i) ratio.push_back(t[i] / b[i]);
      std::printf("    %-5s %8.1f [%7.1f-%7.1f]   x%.2f [%.2f-%.2f]\n", cpu ? "CPU" : "wall",
                  median(t), *std::min_element(t.begin(), t.end()),
                  *std::max_element(t.begin(), t.end()), median(ratio),
                  *std::min_element(ratio.begin(), ratio.end()),
                  *std::max_element(ratio.begin(), ratio.end()));
    }
  }
}

void run_tries(std::vector<Contender>& all, int tries) {
  for (int t = 0; t < tries; ++t)
    for (Contender& c : all) {
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = cpu_ms();
      const std::size_t n = c.once();
      c.cpu.push_back(cpu_ms() - cpu_start);
      c.wall.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count());
      if (n == 0) throw std::runtime_error(std::string(c.name) + " read nothing");
    }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: perflab-json-bench RUN.json [TRIES]\n");
    return 2;
  }
  const int tries = argc >= 3 ? std::max(1, std::atoi(argv[2])) : 7;
  std::ifstream f(argv[1], std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  text.reserve(text.size() + simdjson::SIMDJSON_PADDING);  // as load_run reads a file: padded
  if (!f.good() && !f.eof()) {
    std::fprintf(stderr, "perflab-json-bench: cannot read %s\n", argv[1]);
    return 1;
  }
  const simdjson::padded_string padded(text);  // a file is read into a padded buffer directly
  std::printf("%s: %zu bytes, %zu points; simdjson %d.%d.%d (%s), nlohmann %d.%d.%d\n", argv[1],
              text.size(), points_of(run_from_json(text)), int(simdjson::SIMDJSON_VERSION_MAJOR),
              int(simdjson::SIMDJSON_VERSION_MINOR), int(simdjson::SIMDJSON_VERSION_REVISION),
              simdjson::get_active_implementation()->name().c_str(), NLOHMANN_JSON_VERSION_MAJOR,
              NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH);

  std::vector<Contender> read = {
      {"run_from_json (simdjson, every field checked)",
       [&] { return points_of(run_from_json(text)); }},
      {"nlohmann: parse into nlohmann::json + build",
       [&] { return points_of(DomRunBuilder<NlohmannDom>::build(json::parse(text))); }},
      {"nlohmann: SAX events build the Run",
       [&] {
         SaxRunBuilder b;
         json::sax_parse(text, &b);
         return points_of(b.run);
       }},
      {"simdjson: parse into dom::element + build",
       [&] {
         simdjson::dom::parser parser;
         return points_of(DomRunBuilder<SimdjsonDom>::build(parser.parse(padded).value()));
       }},
  };
  std::vector<Contender> parse_only = {
      {"simdjson: parse into dom::element",
       [&] {
         simdjson::dom::parser parser;
         return parser.parse(padded).value().get_object().value().size();
       }},
      {"nlohmann: parse into nlohmann::json", [&] { return json::parse(text).size(); }},
      {"nlohmann: SAX events, none used",
       [&] {
         SaxNothing nothing;
         return std::size_t(json::sax_parse(text, &nothing));
       }},
  };
  const Run run = run_from_json(text);
  std::vector<Contender> write = {
      {"run_to_json (nlohmann: build a json, dump it indented)",
       [&] { return run_to_json(run).size(); }},
      {"nlohmann: the same, dumped compact", [&] { return run_to_json(run, -1).size(); }},
  };
  run_tries(read, tries);
  run_tries(parse_only, tries);
  run_tries(write, tries);
  std::printf("%d tries\n", tries);
  report(read, "read: parse + build the Run");
  report(parse_only, "parse only (no Run)");
  report(write, "write (simdjson 3.0 writes no new document: it only re-serializes a parsed one)");
  return 0;
}
