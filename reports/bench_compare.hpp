// `gradparity compare OLD NEW` on two bench.json: each row timed in both, its repetitions
// compared by a one-sided rank test (rank_test.hpp). A row is slower when the test says so at
// the significance level AND its median grew by more than the smallest slowdown that matters:
// the test alone would flag the few percent a machine drifts between two runs, a percentage
// alone would flag a noisy row's chance.
//
// A row must also be slower relative to its device's shift: the median over the device's rows of
// the new median over the old. A machine that runs slower as a whole (another tenant on the host,
// a different CI runner) moves every row of a device together, a kernel's change moves its own
// rows; a row that kept its time while the machine got faster has not become slower either, so
// both the measured and the relative change must count. The shift is reported on its own; with
// fewer than kShiftRows rows a device is judged as measured alone, and --absolute judges every
// row as measured alone.
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
  bool absolute = false;       // --absolute: rows judged as measured alone, not also relative to their device's shift
};

// The fewest compared rows of a device for its shift to be taken out: below it, one changed
// kernel would be much of the median.
inline constexpr std::size_t kShiftRows = 8;

struct DeviceShift {
  std::string device;
  std::size_t rows = 0;
  double ratio = 1;      // the median of the rows' new / old medians
  bool applied = false;  // rows were judged relative to it too
};

struct BenchDelta {
  const BenchRow* before = nullptr;
  const BenchRow* after = nullptr;
  double ratio = 1;                           // median after / median before
  double relative = 1;                        // ratio over the device's shift (ratio where the shift was not applied)
  RankTest slower, faster;                    // the repetitions as measured
  RankTest slower_relative, faster_relative;  // the old repetitions scaled by the device's shift
};

struct BenchComparison {
  std::vector<BenchDelta> slower, faster;  // significant changes beyond the least that counts
  std::vector<DeviceShift> shifts;         // per device with rows compared
  std::size_t compared = 0;                // rows timed in both with the same timer
  std::size_t timer_changed = 0;           // rows timed by the device's timers in one and the host's in the other
  std::size_t only_before = 0, only_after = 0, not_timed = 0;
  double smallest_p_value = 0;  // what the repetitions can reach at best (the fewest of any row)
};

BenchComparison compare_bench(const BenchReport& before, const BenchReport& after, const BenchCompareOptions& opts);
std::string bench_comparison_text(const BenchComparison& cmp, const BenchCompareOptions& opts);

}  // namespace gp
