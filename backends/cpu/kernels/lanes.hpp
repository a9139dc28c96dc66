// Walking a tensor one axis at a time. split_at_axis views it as [outer, n, inner]; a "lane" is
// the n elements (o, 0..n-1, i), spaced `inner` apart. Reductions and row-wise ops are written
// per lane; lane (o, i) is also the index of the reduced output element.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/op.hpp"

namespace gp::cpu {

// term(first) + ... + term(first + count - 1) by pairwise summation: runs of kPairwiseRun terms in
// order, the runs' sums added in a balanced tree. A running sum of a long lane stagnates: once
// it is far above its terms, each addition rounds away part of a term, the same way every time
// (a running f32 variance of 10^7 values erred by 1.1%, 18 times its bound; softmax rows of
// 131,072 by 1.7 times theirs). Pairwise, every partial sum stays within a few times its operands.
inline constexpr std::int64_t kPairwiseRun = 32;
template <typename T, typename Term>
T pairwise_sum(std::int64_t first, std::int64_t count, const Term& term) {
  if (count <= kPairwiseRun) {
    T s = 0;
    for (std::int64_t j = first; j < first + count; ++j) s += term(j);
    return s;
  }
  const std::int64_t half = count / 2;
  return pairwise_sum<T>(first, half, term) + pairwise_sum<T>(first + half, count - half, term);
}

// A strided view of one lane.
template <typename P>
struct Lane {
  P base;
  std::int64_t n, stride;
  auto& operator[](std::int64_t j) const { return base[j * stride]; }
};

// Calls visit(lane_index, first_element_offset) for each of the outer*inner lanes.
template <typename Visit>
void for_each_lane(const AxisSplit& s, Visit&& visit) {
  for (std::int64_t o = 0; o < s.outer; ++o)
    for (std::int64_t i = 0; i < s.inner; ++i) visit(o * s.inner + i, o * s.n * s.inner + i);
}

template <typename P>
Lane<P> lane_at(P data, const AxisSplit& s, std::int64_t offset) {
  return {data + offset, s.n, s.inner};
}

// Index of the largest element of a lane (the first one on a tie).
template <typename T>
std::int64_t lane_argmax(const Lane<const T*>& v) {
  std::int64_t best = 0;
  for (std::int64_t j = 1; j < v.n; ++j)
    if (v[j] > v[best]) best = j;
  return best;
}

// The stable log-sum-exp of a lane: its maximum m (at `arg`) and rest = the sum over every other
// j of e^(x_j - m). The argmax term, exactly 1, is kept out of the sum, so that log S =
// log1p(rest) and 1 - p_arg = rest / (1 + rest) keep their digits in a lane dominated by its
// maximum (where log S and 1 - p_arg are tiny).
template <typename T>
struct LogSumExp {
  std::int64_t arg;
  T max, rest;
  T log_sum() const { return std::log1p(rest); }
  // The softmax weight exp(v - max) / sum of a term v of the lane: the gradient of the
  // log-sum-exp, from the inputs rather than as exp(v - y) from the stored result y.
  T weight(T v) const { return std::exp(v - max) / (T(1) + rest); }
};
template <typename T>
LogSumExp<T> lane_log_sum_exp(const Lane<const T*>& v) {
  LogSumExp<T> r{lane_argmax(v), 0, 0};
  r.max = v[r.arg];
  r.rest = pairwise_sum<T>(0, v.n, [&](std::int64_t j) { return j == r.arg ? T(0) : std::exp(v[j] - r.max); });
  return r;
}

// out[j] = softmax over the lane of z(j), with the maximum subtracted before exp so that no
// term overflows. z is a callable so that gumbel_softmax can pass (l + noise) / tau unstored.
template <typename T, typename Z>
void softmax_lane(std::int64_t n, Z&& z, const Lane<T*>& out) {
  T m = z(0);
  for (std::int64_t j = 1; j < n; ++j) m = std::max(m, z(j));
  for (std::int64_t j = 0; j < n; ++j) out[j] = std::exp(z(j) - m);
  const T sum = pairwise_sum<T>(0, n, [&](std::int64_t j) { return out[j]; });
  for (std::int64_t j = 0; j < n; ++j) out[j] /= sum;
}

// VJP of softmax: dz[j] = scale * y_j (g_j - sum_k g_k y_k).
template <typename T>
void softmax_vjp_lane(const Lane<const T*>& y, const Lane<const T*>& g, const Lane<T*>& dz, T scale) {
  const T dot = pairwise_sum<T>(0, y.n, [&](std::int64_t j) { return g[j] * y[j]; });
  for (std::int64_t j = 0; j < y.n; ++j) dz[j] = scale * y[j] * (g[j] - dot);
}

}  // namespace gp::cpu
