// gru_cell's contract (core/README.md) written out plainly in long double, unit by unit, for
// the tests of the op and of the fused GRU model: what the reference must agree with, and the
// same cell with the reset gate before the hidden matmul (Cho et al. 2014; Keras
// reset_after=False), a library's other formulation.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "support/fake_backend.hpp"

namespace gp::testing {

struct Gates {
  ref::Real r, z, n;
};

// The gates of every unit [batch, hidden] of the contract; `reset_before` applies r to the state
// before W_hn instead: n = tanh(W_in x + b_in + W_hn (r * h) + b_hn).
inline std::vector<Gates> contract_gates(const std::vector<ref::RefTensor>& in, bool reset_before) {
  const std::int64_t B = in[0].shape[0], I = in[0].shape[1], H = in[1].shape[1];
  auto at = [&](int t, std::int64_t i) { return in[static_cast<std::size_t>(t)].v[static_cast<std::size_t>(i)]; };
  auto sigmoid = [](ref::Real a) { return 1 / (1 + std::exp(-a)); };
  // b[row] + W[row, :] . (scale * v[b, :]) for input v (0: x, 1: h) and its weight (2, 3) and bias (4, 5).
  auto affine = [&](int v, std::int64_t row, std::int64_t b, const std::vector<ref::Real>& scale) {
    const std::int64_t len = v == 0 ? I : H;
    ref::Real s = at(v + 4, row);
    for (std::int64_t k = 0; k < len; ++k)
      s += at(v + 2, row * len + k) * scale[static_cast<std::size_t>(k)] * at(v, b * len + k);
    return s;
  };
  std::vector<Gates> out;
  const std::vector<ref::Real> ones(static_cast<std::size_t>(std::max(I, H)), 1);
  for (std::int64_t b = 0; b < B; ++b) {
    std::vector<ref::Real> r;
    for (std::int64_t j = 0; j < H; ++j) r.push_back(sigmoid(affine(0, j, b, ones) + affine(1, j, b, ones)));
    for (std::int64_t j = 0; j < H; ++j) {
      const ref::Real z = sigmoid(affine(0, H + j, b, ones) + affine(1, H + j, b, ones));
      const ref::Real hidden =
          reset_before ? affine(1, 2 * H + j, b, r) : r[static_cast<std::size_t>(j)] * affine(1, 2 * H + j, b, ones);
      out.push_back({r[static_cast<std::size_t>(j)], z, std::tanh(affine(0, 2 * H + j, b, ones) + hidden)});
    }
  }
  return out;
}

// h' = (1 - z) n + z h.
inline std::vector<ref::Real> contract_output(const std::vector<ref::RefTensor>& in, bool reset_before = false) {
  std::vector<ref::Real> y;
  const std::vector<Gates> gates = contract_gates(in, reset_before);
  for (std::size_t e = 0; e < gates.size(); ++e) y.push_back((1 - gates[e].z) * gates[e].n + gates[e].z * in[1].v[e]);
  return y;
}

// The cell with the reset gate before the hidden matmul; its VJP stays the declared one.
inline void reset_before_forward(const OpCall&, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
  const std::vector<ref::Real> y = contract_output(widen_inputs(in), true);
  for (std::size_t e = 0; e < y.size(); ++e) host(out).set(static_cast<std::int64_t>(e), static_cast<double>(y[e]));
}

}  // namespace gp::testing
