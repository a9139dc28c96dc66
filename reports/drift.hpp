// Run-to-run drift: two reports of the same catalog compared check by check (`gradparity
// compare OLD.json NEW.json`). Margins (error ÷ bound) move before verdicts do, so a driver or
// kernel change that eats into the error budget shows here while every check still passes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "results/result.hpp"

namespace gp {

struct CheckChange {
  const CheckResult* old_check = nullptr;  // null for a check that appeared
  const CheckResult* new_check = nullptr;  // null for a check that vanished
  double old_margin = 0, new_margin = 0;   // both set only in `margins`
  double increase() const;                 // new - old; +inf from a finite margin to inf; 0 for inf -> inf
};

struct RunComparison {
  std::vector<CheckChange> margins;  // checks with a margin in both runs, largest increase first
  // Passing 16-bit results one storage ULP or less from the reference in both runs: each is one of
  // the two f16/bf16 neighbours of the exact value, and which one an f32 computation near a
  // rounding midpoint lands on is not a kernel's accuracy (such a margin reads 0 or near 1 by
  // construction). Counted, kept out of `margins` and of the drift limit.
  std::vector<CheckChange> storage_rounding;
  std::vector<CheckChange> new_failures;  // FAIL or ERROR now, anything else before
  std::vector<CheckChange> new_passes;    // PASS now, FAIL / ERROR / MISTRUSTED before
  std::vector<CheckChange> other_verdict_changes;
  std::vector<CheckChange> appeared, vanished;
  std::size_t common = 0;       // checks present in both
  double max_increase() const;  // 0 when no margins
};

// Pairs checks by (case, backend, dtype, direction, input). Keeps pointers into both reports,
// which must outlive the result.
RunComparison compare_runs(const RunReport& old_run, const RunReport& new_run);

// The text `gradparity compare` prints: the run pair, counts, then the largest margin increases
// and decreases, new failures, new passes, other verdict changes, checks that appeared or vanished,
// each list cut at `rows` entries, and last the verdict against `max_increase`.
std::string comparison_to_text(const RunComparison& cmp, const RunReport& old_run, const RunReport& new_run,
                               double max_increase, std::size_t rows);

// Drift that should fail a CI job: a margin rose by more than `max_increase`, or a check newly
// fails or errors.
bool drift_exceeds(const RunComparison& cmp, double max_increase);

}  // namespace gp
