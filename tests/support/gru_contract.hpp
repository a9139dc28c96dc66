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

// The VJP of the cell with the reset gate before the hidden matmul, its own derivative (a library
// consistent with that formulation). Per row b, with q = r * h and g = dh':
//   dp_n = g (1 - z)(1 - n^2), da_z = g (h - n) z (1 - z), dq = W_hn^T dp_n, da_r = dq h r (1 - r)
//   dh = g z + r dq + W_hr^T da_r + W_hz^T da_z; the n rows of W_hh meet q instead of h.
inline std::vector<ref::RefTensor> reset_before_vjp(const std::vector<ref::RefTensor>& in, const ref::RefTensor& dout) {
  const std::int64_t B = in[0].shape[0], I = in[0].shape[1], H = in[1].shape[1];
  auto ix = [](std::int64_t i) { return static_cast<std::size_t>(i); };
  const std::vector<Gates> gates = contract_gates(in, true);
  std::vector<ref::RefTensor> d(in.size());
  for (std::size_t k = 0; k < in.size(); ++k) {
    d[k].shape = in[k].shape;
    d[k].v.assign(in[k].v.size(), 0);
  }
  const std::vector<ref::Real>&x = in[0].v, &h = in[1].v, &w_ih = in[2].v, &w_hh = in[3].v;
  for (std::int64_t b = 0; b < B; ++b) {
    auto gate = [&](std::int64_t j) { return gates[ix(b * H + j)]; };
    std::vector<ref::Real> da(ix(3 * H)), dq(ix(H), 0);
    for (std::int64_t j = 0; j < H; ++j) {
      const ref::Real g = dout.v[ix(b * H + j)], z = gate(j).z, n = gate(j).n;
      da[ix(2 * H + j)] = g * (1 - z) * (1 - n * n);
      da[ix(H + j)] = g * (h[ix(b * H + j)] - n) * z * (1 - z);
      for (std::int64_t k = 0; k < H; ++k) dq[ix(k)] += w_hh[ix((2 * H + j) * H + k)] * da[ix(2 * H + j)];
    }
    for (std::int64_t j = 0; j < H; ++j) da[ix(j)] = dq[ix(j)] * h[ix(b * H + j)] * gate(j).r * (1 - gate(j).r);
    for (std::int64_t row = 0; row < 3 * H; ++row) {
      d[4].v[ix(row)] += da[ix(row)];
      d[5].v[ix(row)] += da[ix(row)];
      for (std::int64_t k = 0; k < I; ++k) {
        d[2].v[ix(row * I + k)] += da[ix(row)] * x[ix(b * I + k)];
        d[0].v[ix(b * I + k)] += w_ih[ix(row * I + k)] * da[ix(row)];
      }
      for (std::int64_t k = 0; k < H; ++k) {  // the n rows read q = r h, and pass dq on to h through r
        const ref::Real reset = row >= 2 * H ? gate(k).r : 1;
        d[3].v[ix(row * H + k)] += da[ix(row)] * reset * h[ix(b * H + k)];
        d[1].v[ix(b * H + k)] += w_hh[ix(row * H + k)] * da[ix(row)] * reset;
      }
    }
    for (std::int64_t k = 0; k < H; ++k) d[1].v[ix(b * H + k)] += dout.v[ix(b * H + k)] * gate(k).z;
  }
  return d;
}

// The cell with the reset gate before the hidden matmul (forward only; the backward below).
inline void reset_before_forward(const OpCall&, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
  const std::vector<ref::Real> y = contract_output(widen_inputs(in), true);
  for (std::size_t e = 0; e < y.size(); ++e) host(out).set(static_cast<std::int64_t>(e), static_cast<double>(y[e]));
}

inline void reset_before_backward(const OpCall&, std::span<const DeviceBuffer* const> in, const DeviceBuffer&,
                                  const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
  const std::vector<ref::RefTensor> g = reset_before_vjp(widen_inputs(in), ref::RefTensor::from_host(host(dout)));
  for (std::size_t k = 0; k < grads.size(); ++k)
    if (grads[k]) store(g[k], host(*grads[k]));
}

}  // namespace gp::testing
