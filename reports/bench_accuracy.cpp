#include "reports/bench_accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace gp {

namespace {

// FAIL and ERROR before MISTRUSTED before SKIP before PASS: the row shows the worst.
int severity(Verdict v) {
  switch (v) {
    case Verdict::fail:
    case Verdict::error:
      return 3;
    case Verdict::mistrusted:
      return 2;
    case Verdict::skip:
      return 1;
    case Verdict::pass:
      return 0;
  }
  return 0;
}

}  // namespace

std::size_t attach_accuracy(BenchReport& bench, const RunReport& parity) {
  std::map<std::tuple<std::string, std::string, Direction>, RowAccuracy> found;
  for (const CheckResult& c : parity.checks) {
    if (c.subject != SubjectKind::primitive) continue;
    if (c.direction != Direction::forward && c.direction != Direction::backward) continue;
    auto [it, fresh] = found.try_emplace({c.case_id, c.backend, c.direction});
    RowAccuracy& a = it->second;
    const bool judged = c.verdict == Verdict::pass || c.verdict == Verdict::fail;
    if (fresh) {
      a.verdict = c.verdict;
      a.margin = judged ? c.metrics.margin : 0;
      a.sensitivity_ulp = judged ? c.metrics.sensitivity_ulp : std::nan("");
    } else {
      if (severity(c.verdict) > severity(a.verdict)) a.verdict = c.verdict;
      if (judged) {
        a.margin = std::max(a.margin, c.metrics.margin);
        a.sensitivity_ulp = std::isnan(a.sensitivity_ulp) ? c.metrics.sensitivity_ulp
                                                          : std::min(a.sensitivity_ulp, c.metrics.sensitivity_ulp);
      }
    }
    a.checks += 1;
  }
  std::size_t attached = 0;
  for (BenchRow& r : bench.rows) {
    const auto it = found.find({r.case_id, r.device, r.direction});
    if (it == found.end()) continue;
    r.accuracy = it->second;
    ++attached;
  }
  return attached;
}

}  // namespace gp
