// The stable softmax of one row and its VJP (internal.hpp). Used by logsumexp, softmax,
// log_softmax, cross_entropy, gumbel_softmax and log_matmul_exp.
#include <algorithm>
#include <cmath>

#include "reference/internal.hpp"

namespace gp::ref::detail {

template <class R>
SoftmaxRow<R> softmax_row(const std::vector<R>& x, bool staged_exp) {
  using std::exp;
  using std::log1p;
  SoftmaxRow<R> r;
  const std::size_t n = x.size();
  if (n == 0) return r;  // a row of no element (softmax over an empty axis): nothing to write
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
  // A definition that stages e_k in the storage type (softmax, staged=storage) divides the
  // rounded e_k by S, the sum of the unrounded ones (oneDNN keeps S in f32 while it stores e_k).
  // A relative error of at most u_s in e_j is one of u_s in p_j = e_j / S: the forward bound grows
  // by u_s |y_j| to first order. A backward reads y from the forward's output (g_j = y_j (dy_j -
  // <dy, y>)), so it sees the same relative error in every y_k: u_s y_j (|dy_j - <dy, y>| +
  // sum_k y_k |dy_k|) more, which softmax_row_vjp propagates from these p.
  if (staged_exp)
    for (auto& p : r.p) p = staged(p);
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

#define GP_REF_SOFTMAX_ROW(R)                                      \
  template SoftmaxRow<R> softmax_row(const std::vector<R>&, bool); \
  template std::vector<R> softmax_row_vjp(const SoftmaxRow<R>&, const std::vector<R>&);
GP_REF_SOFTMAX_ROW(long double)
GP_REF_SOFTMAX_ROW(MpReal)
GP_REF_SOFTMAX_ROW(Tracked)
#undef GP_REF_SOFTMAX_ROW

}  // namespace gp::ref::detail
