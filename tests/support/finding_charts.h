#pragma once
// Which chart a finding is about (Finding::group), checked over a whole run: the presentation
// view shows beside a chart the findings that name it.
#include <string>
#include <vector>

#include "common/run.h"

namespace perflab::test {

// What is wrong with the charts the run's findings name: a finding names a chart the run does
// not have or that has no points, or a comparison or share computed from a chart's series
// (every one but a CPU total, client + server, which no single chart shows) names none. Empty
// when nothing is.
std::vector<std::string> finding_chart_violations(const Run& run);

}  // namespace perflab::test
