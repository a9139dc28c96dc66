// Scalar helpers in their numerically stable forms, shared by the elementwise ops and the
// losses.
#pragma once

#include <algorithm>
#include <cmath>

namespace gp::cpu {

// Evaluated on the side where exp cannot overflow. 1 - sigmoid(x) is sigmoid(-x), which
// callers use instead of subtracting (1 - y cancels when y is near 1).
template <typename T>
T sigmoid(T x) {
  if (x >= 0) return T(1) / (T(1) + std::exp(-x));
  T e = std::exp(x);
  return e / (T(1) + e);
}

// ln(1 + e^x) = max(x, 0) + ln(1 + e^-|x|): no overflow, no cancellation.
template <typename T>
T softplus(T x) {
  return std::max(x, T(0)) + std::log1p(std::exp(-std::abs(x)));
}

}  // namespace gp::cpu
