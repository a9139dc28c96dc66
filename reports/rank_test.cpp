#include "reports/rank_test.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

namespace gp {

namespace {

// counts[u] = the number of the C(n + m, n) orderings of n earlier and m later values whose U is
// u. The largest value is a later one, above all i earlier ones (U gains i), or an earlier one:
// N(i, j, u) = N(i, j - 1, u - i) + N(i - 1, j, u).
std::vector<long double> u_counts(std::size_t n, std::size_t m) {
  std::vector<std::vector<long double>> prev(m + 1, std::vector<long double>(1, 1.0L));  // i = 0
  for (std::size_t i = 1; i <= n; ++i) {
    std::vector<std::vector<long double>> next(m + 1);
    next[0].assign(1, 1.0L);
    for (std::size_t j = 1; j <= m; ++j) {
      next[j].assign(i * j + 1, 0.0L);
      for (std::size_t u = 0; u < next[j - 1].size(); ++u) next[j][u + i] += next[j - 1][u];
      for (std::size_t u = 0; u < prev[j].size(); ++u) next[j][u] += prev[j][u];
    }
    prev = std::move(next);
  }
  return prev[m];
}

double normal_upper_tail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace

double smallest_p_value(std::size_t n_earlier, std::size_t n_later) {
  // One ordering of C(n + m, n) puts every later value above every earlier one.
  long double orderings = 1;
  for (std::size_t k = 1; k <= n_earlier; ++k)
    orderings = orderings * static_cast<long double>(n_later + k) / static_cast<long double>(k);
  return static_cast<double>(1.0L / orderings);
}

RankTest later_is_larger(const std::vector<double>& earlier, const std::vector<double>& later) {
  RankTest t;
  const std::size_t n = earlier.size(), m = later.size();
  if (n == 0 || m == 0) return t;
  bool ties = false;
  for (double a : earlier)
    for (double b : later) {
      if (b > a) t.u += 1;
      if (b == a) {
        t.u += 0.5;
        ties = true;
      }
    }
  if (!ties && n + m <= 60) {
    const std::vector<long double> counts = u_counts(n, m);
    long double total = 0, tail = 0;
    for (std::size_t u = 0; u < counts.size(); ++u) {
      total += counts[u];
      if (static_cast<double>(u) >= t.u) tail += counts[u];
    }
    t.p_value = static_cast<double>(tail / total);
    t.exact = true;
    return t;
  }
  // Normal approximation, the variance corrected for ties and a continuity correction of 1/2.
  std::vector<double> all(earlier);
  all.insert(all.end(), later.begin(), later.end());
  std::sort(all.begin(), all.end());
  double tie_term = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    const double g = static_cast<double>(j - i);
    tie_term += g * g * g - g;
    i = j;
  }
  const double dn = static_cast<double>(n), dm = static_cast<double>(m), total = dn + dm;
  const double variance = dn * dm / 12.0 * ((total + 1) - tie_term / (total * (total - 1)));
  if (variance <= 0) return t;  // every value equal: nothing is larger
  t.p_value = normal_upper_tail((t.u - dn * dm / 2 - 0.5) / std::sqrt(variance));
  return t;
}

}  // namespace gp
