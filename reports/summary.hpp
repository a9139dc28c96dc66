// Verdict counts of a report, overall and per backend: the "summary" object of parity.json and
// the summary line of parity.md are both printed from this one computation.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/result.hpp"

namespace gp {

struct VerdictCounts {
  std::array<std::int64_t, 5> by_verdict{};  // indexed by static_cast<int>(Verdict)
  // The SKIPs the design leaves out because a stronger check judges the same result
  // (ReasonKind::covered); counted in [Verdict::skip] as well.
  std::int64_t covered = 0;
  // Of each verdict, the failures the run's --expect file accounts for (CheckResult::expected).
  std::array<std::int64_t, 5> expected{};

  std::int64_t operator[](Verdict v) const { return by_verdict[static_cast<std::size_t>(v)]; }
  std::int64_t expected_of(Verdict v) const { return expected[static_cast<std::size_t>(v)]; }
  void add(Verdict v) { ++by_verdict[static_cast<std::size_t>(v)]; }
  void add(const CheckResult& c) {
    add(c.verdict);
    if (c.verdict == Verdict::skip && c.reason_kind == ReasonKind::covered) ++covered;
    if (c.expected) ++expected[static_cast<std::size_t>(c.verdict)];
  }
  // SKIPs a user has to act on: an op a backend lacks, a missing device.
  std::int64_t actionable_skips() const { return (*this)[Verdict::skip] - covered; }
  std::int64_t total() const;
  bool all(Verdict v) const { return total() > 0 && (*this)[v] == total(); }
};

struct ReportSummary {
  VerdictCounts overall;
  // Backends in the order of first appearance among the checks.
  std::vector<std::pair<std::string, VerdictCounts>> by_backend;
};

ReportSummary summarize(const std::vector<CheckResult>& checks);

// "12 checks: 9 PASS, 1 FAIL, 0 SKIP, 0 MISTRUSTED, 0 ERROR, 2 covered by stronger checks": the
// SKIPs the design leaves out are counted apart, so that a green line reads as complete.
std::string summary_line(const VerdictCounts& counts);

// Metrics mean nothing for a skipped check or an error raised before anything was compared.
bool has_metrics(const CheckResult& c);
// The margin a check measured, for PASS and FAIL checks with metrics; nullopt otherwise (a
// MISTRUSTED check's margin proves nothing, a SKIP has none). Summaries, heatmaps and run
// comparisons all read margins through this one rule.
std::optional<double> margin_of(const CheckResult& c);

// The sensitivity of a passing comparison with the reference (sensitivity_ulp), nullopt for
// other checks.
std::optional<double> sensitivity_of(const CheckResult& c);

// Sensitivity per op x backend x dtype over the passing comparisons: the median and the largest
// (the least sensitive check), and the median of sensitivity / max(1, device budget).
struct SensitivityCell {
  std::string op, backend;
  DType dtype = DType::f32;
  std::int64_t checks = 0;
  double median = 0, worst = 0, median_per_budget = 0;
};
std::vector<SensitivityCell> sensitivity_table(const std::vector<CheckResult>& checks);

// The key that identifies one check across runs and shards: case, backend, dtype, direction,
// input (forward checks ignore the input index).
std::string check_key(const CheckResult& c);

}  // namespace gp
