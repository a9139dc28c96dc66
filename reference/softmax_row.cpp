// The stable softmax of one row and its VJP, with the error model documented in internal.hpp and
// reference/README.md. Used by logsumexp, softmax, log_softmax, cross_entropy and gumbel_softmax.
#include <algorithm>
#include <cmath>

#include "reference/internal.hpp"

namespace gp::ref::detail {

template <class R>
SoftmaxRow<R> softmax_row(const std::vector<R>& x, const std::vector<R>* input_scale) {
  using std::exp;
  using std::log;
  SoftmaxRow<R> r;
  const std::size_t n = x.size();
  r.max = *std::max_element(x.begin(), x.end());
  r.p.resize(n);
  R sum(0);
  for (std::size_t k = 0; k < n; ++k) sum += r.p[k] = exp(x[k] - r.max);
  for (auto& p : r.p) p /= sum;
  r.log_sum = log(sum);

  auto own_error = [&](std::size_t k) { return input_scale ? (*input_scale)[k] : R(0); };
  for (std::size_t k = 0; k < n; ++k) r.spread += r.p[k] * (1 + mag(x[k] - r.max) + own_error(k));
  r.rel.resize(n);
  for (std::size_t j = 0; j < n; ++j)
    r.rel[j] = real<R>(static_cast<std::int64_t>(n)) + 2 + mag(x[j] - r.max) + own_error(j) + r.spread;
  r.lse_scale = mag(r.max) + mag(r.log_sum) + mag(r.max + r.log_sum) + real<R>(static_cast<std::int64_t>(n)) + r.spread;
  return r;
}

template <class R>
void softmax_row_vjp(const SoftmaxRow<R>& row, const std::vector<R>& dy, std::vector<R>& g, std::vector<R>& g_scale) {
  const std::size_t n = row.p.size();
  R dot(0), dot_error(0);
  for (std::size_t k = 0; k < n; ++k) {
    dot += dy[k] * row.p[k];
    dot_error += mag(dy[k]) * row.p[k] * (real<R>(static_cast<std::int64_t>(n)) + row.rel[k]);
  }
  g.resize(n);
  g_scale.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    g[j] = row.p[j] * (dy[j] - dot);
    g_scale[j] = mag(g[j]) * (row.rel[j] + 1) + row.p[j] * (mag(dy[j]) + mag(dot) + dot_error);
  }
}

template SoftmaxRow<long double> softmax_row(const std::vector<long double>&, const std::vector<long double>*);
template SoftmaxRow<MpReal> softmax_row(const std::vector<MpReal>&, const std::vector<MpReal>*);
template void softmax_row_vjp(const SoftmaxRow<long double>&, const std::vector<long double>&,
                              std::vector<long double>&, std::vector<long double>&);
template void softmax_row_vjp(const SoftmaxRow<MpReal>&, const std::vector<MpReal>&, std::vector<MpReal>&,
                              std::vector<MpReal>&);

}  // namespace gp::ref::detail
