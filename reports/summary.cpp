#include "reports/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

#include "results/result_names.hpp"

namespace gp {

std::int64_t VerdictCounts::total() const {
  return std::accumulate(by_verdict.begin(), by_verdict.end(), std::int64_t{0});
}

ReportSummary summarize(const std::vector<CheckResult>& checks) {
  ReportSummary s;
  for (const CheckResult& c : checks) {
    s.overall.add(c);
    auto it =
        std::find_if(s.by_backend.begin(), s.by_backend.end(), [&](const auto& e) { return e.first == c.backend; });
    if (it == s.by_backend.end()) it = s.by_backend.insert(s.by_backend.end(), {c.backend, VerdictCounts{}});
    it->second.add(c);
  }
  return s;
}

std::string summary_line(const VerdictCounts& counts) {
  std::string line = fmt::format("{} check{}:", counts.total(), counts.total() == 1 ? "" : "s");
  const char* sep = " ";
  for (Verdict v : kAllVerdicts) {
    line += fmt::format("{}{} {}", sep, v == Verdict::skip ? counts.actionable_skips() : counts[v], verdict_name(v));
    if (counts.expected_of(v) > 0) line += fmt::format(" ({} expected)", counts.expected_of(v));
    sep = ", ";
  }
  if (counts.covered) line += fmt::format(", {} covered by stronger checks", counts.covered);
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
  return fmt::format(
      "{} [{}] {} {}", c.case_id, c.backend, dtype_name(c.dtype),
      c.part.empty() ? direction_label(c.direction, c.direction == Direction::forward ? -1 : c.input) : c.part);
}

std::optional<double> sensitivity_of(const CheckResult& c) {
  if (c.verdict != Verdict::pass || std::isnan(c.metrics.sensitivity_ulp)) return std::nullopt;
  return c.metrics.sensitivity_ulp;
}

std::vector<SensitivityCell> sensitivity_table(const std::vector<CheckResult>& checks) {
  struct Values {
    std::vector<double> s, ratio;
  };
  std::map<std::tuple<std::string, std::string, DType>, Values> by_cell;
  std::vector<std::tuple<std::string, std::string, DType>> order;
  for (const CheckResult& c : checks) {
    auto s = sensitivity_of(c);
    if (!s) continue;
    auto key = std::make_tuple(c.op, c.backend, c.dtype);
    auto [it, inserted] = by_cell.try_emplace(key);
    if (inserted) order.push_back(key);
    it->second.s.push_back(*s);
    const double budget = std::isnan(c.metrics.budget_ulp) ? 1.0 : std::max(1.0, c.metrics.budget_ulp);
    it->second.ratio.push_back(*s / budget);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[(v.size() - 1) / 2];
  };
  std::vector<SensitivityCell> out;
  for (const auto& key : order) {
    const Values& v = by_cell.at(key);
    out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), static_cast<std::int64_t>(v.s.size()),
                   median(v.s), *std::max_element(v.s.begin(), v.s.end()), median(v.ratio)});
  }
  return out;
}

}  // namespace gp
