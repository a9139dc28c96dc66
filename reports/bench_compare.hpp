// `gradparity compare OLD NEW` on two bench.json: each row timed in both, its repetitions
// compared by a one-sided rank test (rank_test.hpp). A row is slower when the test says so at
// the significance level AND its median grew by more than the smallest slowdown that matters:
// the test alone would flag the few percent a machine drifts between two runs, a percentage
// alone would flag a noisy row's chance.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "reports/rank_test.hpp"
#include "results/bench.hpp"

namespace gp {

struct BenchCompareOptions {
  double significance = 1e-3;  // --significance: the rank test's p-value below which a change counts
  double min_slowdown = 0.15;  // --min-slowdown: the least growth of the median that counts (0.15: 15 %)
  std::size_t rows = 20;       // rows listed per section
};

struct BenchDelta {
  const BenchRow* before = nullptr;
  const BenchRow* after = nullptr;
  double ratio = 1;  // median after / median before
  RankTest slower, faster;
};

struct BenchComparison {
  std::vector<BenchDelta> slower, faster;  // significant changes beyond the least that counts
  std::size_t compared = 0;                // rows timed in both with the same timer
  std::size_t timer_changed = 0;           // rows timed by the device's timers in one and the host's in the other
  std::size_t only_before = 0, only_after = 0, not_timed = 0;
  double smallest_p_value = 0;  // what the repetitions can reach at best (the fewest of any row)
};

BenchComparison compare_bench(const BenchReport& before, const BenchReport& after, const BenchCompareOptions& opts);
std::string bench_comparison_text(const BenchComparison& cmp, const BenchCompareOptions& opts);

}  // namespace gp
