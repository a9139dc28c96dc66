#include "reports/bench_accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

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

// `b` folded into `a`: the worse verdict, the larger margin, the smaller sensitivity.
void combine(RowAccuracy& a, const RowAccuracy& b) {
  if (a.checks == 0) {
    a = b;
    return;
  }
  if (severity(b.verdict) > severity(a.verdict)) a.verdict = b.verdict;
  a.margin = std::max(a.margin, b.margin);
  if (std::isnan(a.sensitivity_ulp) || b.sensitivity_ulp < a.sensitivity_ulp) a.sensitivity_ulp = b.sensitivity_ulp;
  a.checks += b.checks;
}

std::size_t attach_accuracy(BenchReport& bench, const RunReport& parity) {
  std::map<std::tuple<std::string, std::string, Direction>, RowAccuracy> found;
  for (const CheckResult& c : parity.checks) {
    if (c.direction != Direction::forward && c.direction != Direction::backward) continue;
    const bool judged = c.verdict == Verdict::pass || c.verdict == Verdict::fail;
    combine(found[{c.case_id, c.backend, c.direction}],
            {c.verdict, judged ? c.metrics.margin : 0, judged ? c.metrics.sensitivity_ulp : std::nan(""), 1});
  }
  std::size_t attached = 0;
  for (BenchRow& r : bench.rows) {
    // A model's gradient row and a training step run the forward too: the checks of both.
    std::vector<Direction> judged_by = {r.direction};
    if (r.subject == BenchSubject::creation) judged_by.clear();
    if (r.subject == BenchSubject::model || r.subject == BenchSubject::training)
      judged_by = r.direction == Direction::forward ? std::vector{Direction::forward}
                                                    : std::vector{Direction::forward, Direction::backward};
    RowAccuracy a;
    for (Direction d : judged_by)
      if (const auto it = found.find({r.case_id, r.device, d}); it != found.end()) combine(a, it->second);
    if (a.checks == 0) continue;
    r.accuracy = a;
    ++attached;
  }
  return attached;
}

}  // namespace gp
