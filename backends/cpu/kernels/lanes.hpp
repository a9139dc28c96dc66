// Walking a tensor one axis at a time. split_at_axis views it as [outer, n, inner]; a "lane" is
// the n elements (o, 0..n-1, i), spaced `inner` apart. Reductions and row-wise ops are written
// per lane; lane (o, i) is also the index of the reduced output element.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/op.hpp"

namespace gp::cpu {

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
};
template <typename T>
LogSumExp<T> lane_log_sum_exp(const Lane<const T*>& v) {
  LogSumExp<T> r{lane_argmax(v), 0, 0};
  r.max = v[r.arg];
  for (std::int64_t j = 0; j < v.n; ++j)
    if (j != r.arg) r.rest += std::exp(v[j] - r.max);
  return r;
}

// out[j] = softmax over the lane of z(j), with the maximum subtracted before exp so that no
// term overflows. z is a callable so that gumbel_softmax can pass (l + noise) / tau unstored.
template <typename T, typename Z>
void softmax_lane(std::int64_t n, Z&& z, const Lane<T*>& out) {
  T m = z(0);
  for (std::int64_t j = 1; j < n; ++j) m = std::max(m, z(j));
  T sum = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    out[j] = std::exp(z(j) - m);
    sum += out[j];
  }
  for (std::int64_t j = 0; j < n; ++j) out[j] /= sum;
}

// VJP of softmax: dz[j] = scale * y_j (g_j - sum_k g_k y_k).
template <typename T>
void softmax_vjp_lane(const Lane<const T*>& y, const Lane<const T*>& g, const Lane<T*>& dz, T scale) {
  T dot = 0;
  for (std::int64_t j = 0; j < y.n; ++j) dot += g[j] * y[j];
  for (std::int64_t j = 0; j < y.n; ++j) dz[j] = scale * y[j] * (g[j] - dot);
}

}  // namespace gp::cpu
