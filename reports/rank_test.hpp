// The Mann-Whitney U test (Wilcoxon rank-sum), one-sided: do the later times tend to be larger
// than the earlier ones? `gradparity compare` on bench.json asks it of each row's repetitions, so
// a slowdown is judged against the noise the repetitions themselves show, not by a percentage
// alone (Mann & Whitney, Ann. Math. Statist. 18, 1947).
#pragma once

#include <vector>

namespace gp {

struct RankTest {
  double u = 0;        // pairs (earlier, later) with the later value larger, ties counting one half
  double p_value = 1;  // P(U >= u) when both samples come from one distribution
  bool exact = false;  // from the exact null distribution (no ties, n + m <= 60), else normal with ties corrected
};

RankTest later_is_larger(const std::vector<double>& earlier, const std::vector<double>& later);

// The smallest p-value samples of these sizes can give (every later value above every earlier
// one): a significance level below it can never be reached.
double smallest_p_value(std::size_t n_earlier, std::size_t n_later);

}  // namespace gp
