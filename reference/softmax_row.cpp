// The stable softmax of one row and its VJP, with the error model documented in internal.hpp and
// reference/README.md. Used by logsumexp, softmax, log_softmax, cross_entropy and gumbel_softmax.
#include <algorithm>
#include <cmath>

#include "reference/internal.hpp"

namespace gp::ref::detail {

std::vector<Real> gather_row(const std::vector<Real>& v, const AxisSplit& s, std::int64_t o, std::int64_t i) {
  std::vector<Real> row(at(s.n));
  for (std::int64_t j = 0; j < s.n; ++j) row[at(j)] = v[at(row_index(s, o, i, j))];
  return row;
}

SoftmaxRow softmax_row(const std::vector<Real>& x, const std::vector<Real>* input_scale) {
  SoftmaxRow r;
  const std::size_t n = x.size();
  r.max = *std::max_element(x.begin(), x.end());
  r.p.resize(n);
  Real sum = 0;
  for (std::size_t k = 0; k < n; ++k) sum += r.p[k] = std::exp(x[k] - r.max);
  for (auto& p : r.p) p /= sum;
  r.log_sum = std::log(sum);

  auto own_error = [&](std::size_t k) { return input_scale ? (*input_scale)[k] : Real(0); };
  for (std::size_t k = 0; k < n; ++k) r.spread += r.p[k] * (1 + mag(x[k] - r.max) + own_error(k));
  r.rel.resize(n);
  for (std::size_t j = 0; j < n; ++j) r.rel[j] = static_cast<Real>(n) + 2 + mag(x[j] - r.max) + own_error(j) + r.spread;
  r.lse_scale = mag(r.max) + mag(r.log_sum) + mag(r.max + r.log_sum) + static_cast<Real>(n) + r.spread;
  return r;
}

void softmax_row_vjp(const SoftmaxRow& row, const std::vector<Real>& dy, std::vector<Real>& g,
                     std::vector<Real>& g_scale) {
  const std::size_t n = row.p.size();
  Real dot = 0, dot_error = 0;
  for (std::size_t k = 0; k < n; ++k) {
    dot += dy[k] * row.p[k];
    dot_error += mag(dy[k]) * row.p[k] * (static_cast<Real>(n) + row.rel[k]);
  }
  g.resize(n);
  g_scale.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    g[j] = row.p[j] * (dy[j] - dot);
    g_scale[j] = mag(g[j]) * (row.rel[j] + 1) + row.p[j] * (mag(dy[j]) + mag(dot) + dot_error);
  }
}

}  // namespace gp::ref::detail
