// The stable softmax of one row and its VJP (internal.hpp). Used by logsumexp, softmax,
// log_softmax, cross_entropy, gumbel_softmax and log_matmul_exp.
#include <algorithm>
#include <cmath>

#include "reference/internal.hpp"

namespace gp::ref::detail {

template <class R>
SoftmaxRow<R> softmax_row(const std::vector<R>& x) {
  using std::exp;
  using std::log1p;
  SoftmaxRow<R> r;
  const std::size_t n = x.size();
  r.argmax = static_cast<std::size_t>(std::max_element(x.begin(), x.end()) - x.begin());
  r.max = x[r.argmax];
  r.p.resize(n);
  Sum<R> all, rest;
  for (std::size_t k = 0; k < n; ++k) {
    r.p[k] = k == r.argmax ? R(1) : exp(x[k] - r.max);
    all.add(r.p[k]);
    if (k != r.argmax) rest.add(r.p[k]);
  }
  r.sum = all.result();
  r.rest = rest.result();
  for (auto& p : r.p) p /= r.sum;
  r.log_sum = log1p(r.rest);
  return r;
}

template <class R>
std::vector<R> softmax_row_vjp(const SoftmaxRow<R>& row, const std::vector<R>& dy) {
  const std::size_t n = row.p.size();
  std::vector<R> p(n);
  for (std::size_t k = 0; k < n; ++k) p[k] = stored(row.p[k]);
  Sum<R> dot;
  for (std::size_t k = 0; k < n; ++k) dot.add_product(dy[k], p[k]);
  const R d = dot.result();
  std::vector<R> g(n);
  for (std::size_t j = 0; j < n; ++j) g[j] = p[j] * (dy[j] - d);
  return g;
}

#define GP_REF_SOFTMAX_ROW(R)                                \
  template SoftmaxRow<R> softmax_row(const std::vector<R>&); \
  template std::vector<R> softmax_row_vjp(const SoftmaxRow<R>&, const std::vector<R>&);
GP_REF_SOFTMAX_ROW(long double)
GP_REF_SOFTMAX_ROW(MpReal)
GP_REF_SOFTMAX_ROW(Tracked)
#undef GP_REF_SOFTMAX_ROW

}  // namespace gp::ref::detail
