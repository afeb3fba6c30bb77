#pragma once
// The rules every finding's words must keep (docs/verdicts.md), checked from its numbers alone:
// the checker reads the finding's generated sentence and holds each word it finds to the
// interval, the threshold and the claim's band, without calling the code that wrote the words.
#include <string>
#include <vector>

#include "common/finding.h"

namespace perflab::test {

// What the finding's sentence says that its own numbers refute; empty when nothing does.
std::vector<std::string> finding_rule_violations(const Finding& f);

}  // namespace perflab::test
