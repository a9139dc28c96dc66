#include "reports/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "reports/result_names.hpp"

namespace gp {

std::int64_t VerdictCounts::total() const {
  return std::accumulate(by_verdict.begin(), by_verdict.end(), std::int64_t{0});
}

ReportSummary summarize(const std::vector<CheckResult>& checks) {
  ReportSummary s;
  for (const CheckResult& c : checks) {
    s.overall.add(c.verdict);
    auto it =
        std::find_if(s.by_backend.begin(), s.by_backend.end(), [&](const auto& e) { return e.first == c.backend; });
    if (it == s.by_backend.end()) it = s.by_backend.insert(s.by_backend.end(), {c.backend, VerdictCounts{}});
    it->second.add(c.verdict);
  }
  return s;
}

std::string summary_line(const VerdictCounts& counts) {
  std::string line = fmt::format("{} check{}:", counts.total(), counts.total() == 1 ? "" : "s");
  const char* sep = " ";
  for (Verdict v : kAllVerdicts) {
    line += fmt::format("{}{} {}", sep, counts[v], verdict_name(v));
    sep = ", ";
  }
  return line;
}

}  // namespace gp
