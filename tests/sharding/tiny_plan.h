#pragma once
// The sharding experiment's tiny parameters, shared by its integration tests (seconds, not
// minutes, against managed Redis servers).
#include <map>
#include <string>

namespace perflab::test {

inline std::map<std::string, std::string> tiny() {
  return {{"depths", "1,2"},
          {"repetitions", "2"},
          {"clients", "2"},
          {"requests", "200"},
          {"tests", "set,mset"},
          {"point_budget_s", "0.5"},
          {"distribution_keys", "2000"},
          {"variants", "direct,coalesced+nodelay,per-reply,twemproxy"},
          // Fixed rounds, every variant at every depth (the default measures to verdicts).
          {"verdicts", "false"},
          {"compared_only", "false"}};
}

// tiny() with these depths, tests and variants.
inline std::map<std::string, std::string> tiny_sweep(const char* depths, const char* tests,
                                                     const char* variants) {
  auto p = tiny();
  p["depths"] = depths;
  p["tests"] = tests;
  p["variants"] = variants;
  return p;
}

}  // namespace perflab::test
