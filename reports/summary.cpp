#include "reports/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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

bool has_metrics(const CheckResult& c) {
  return c.verdict != Verdict::skip && !(c.verdict == Verdict::error && c.metrics.elements == 0);
}

std::optional<double> margin_of(const CheckResult& c) {
  if ((c.verdict != Verdict::pass && c.verdict != Verdict::fail) || !has_metrics(c) || std::isnan(c.metrics.margin))
    return std::nullopt;
  return c.metrics.margin;
}

std::string check_key(const CheckResult& c) {
  return fmt::format("{} [{}] {} {}", c.case_id, c.backend, dtype_name(c.dtype),
                     direction_label(c.direction, c.direction == Direction::forward ? -1 : c.input));
}

}  // namespace gp
