#version 450
// gru_cell (core/README.md): one GRU step, PyTorch / cuDNN gates, rows r, z, n of the weights
// (core's GruGeometry). One invocation per element of the pass's output.
//   GRU_MODE_FORWARD  out[b, j] = sigmoid(-a_z) n + z h  (1 - z never formed by a subtraction)
//   GRU_MODE_GATES    gates[(b H + j) GRU_GATE_VALUES + t]: unit (b, j)'s gate gradients gi[0..2],
//                     gh[0..2] and z, in the compute type: made once per backward, read by every
//                     gradient pass (recomputed per gradient element they cost H or B units' gates
//                     each: 80 times the forward at batch 8, input 16, hidden 32, on lavapipe)
//   mode 0, 1         dx, dh [b, k] = (g z for dh) + sum over units j and gates of W[gate H + j, k] d
//   mode 2, 3         dW_ih, dW_hh [row, k] = sum over the batch, in order, of d x[b, k] or d h[b, k]
//   mode 4, 5         db_ih, db_hh [row] = sum over the batch, in order, of d
// with d the gate gradient on the input side (even modes) or the state side (odd modes).
#define LOCAL_X 64
#include "common.glsl"
#include "math.glsl"

BUF(0, x_)
BUF(1, h_)
BUF(2, w_ih_)
BUF(3, w_hh_)
BUF(4, b_ih_)
BUF(5, b_hh_)
BUF(6, g_)  // backward: the output's gradient
BUF(7, out_)
layout(std430, set = 0, binding = 8) buffer Buf8 { C gates_[]; };

layout(push_constant) uniform Push {
  uint mode, count;
  uint batch, inputs, hidden;
} pc;
#define MODE SPEC_OR_PUSH(SPEC_MODE, pc.mode)

struct Unit {
  C a_r, a_z, gh_n, p_n, r, r_minus, z, z_minus, n;
};

// A unit's gate gradients at its rows of W_ih (gi) and W_hh (gh), gates r, z, n, and its z.
struct Grads {
  C gi[3];
  C gh[3];
  C z;
};

C affine_x(uint row, uint b) {
  C acc = TO_C(b_ih_[row]);
  for (uint k = 0u; k < pc.inputs; ++k) acc += TO_C(w_ih_[row * pc.inputs + k]) * TO_C(x_[b * pc.inputs + k]);
  return acc;
}
C affine_h(uint row, uint b) {
  C acc = TO_C(b_hh_[row]);
  for (uint k = 0u; k < pc.hidden; ++k) acc += TO_C(w_hh_[row * pc.hidden + k]) * TO_C(h_[b * pc.hidden + k]);
  return acc;
}

Unit unit_at(uint b, uint j) {
  Unit u;
  uint H = pc.hidden;
  u.a_r = affine_x(j, b) + affine_h(j, b);
  u.a_z = affine_x(H + j, b) + affine_h(H + j, b);
  u.gh_n = affine_h(2u * H + j, b);
  m_sigmoid_pair(u.a_r, u.r, u.r_minus);
  m_sigmoid_pair(u.a_z, u.z, u.z_minus);
  u.p_n = affine_x(2u * H + j, b) + u.r * u.gh_n;
  u.n = m_tanh(u.p_n);
  return u;
}

Grads grads_at(uint b, uint j) {
  Unit u = unit_at(b, j);
  C g = TO_C(g_[b * pc.hidden + j]);
  C da_n = (g * u.z_minus) * m_sech2(u.p_n);
  C da_z = (g * (TO_C(h_[b * pc.hidden + j]) - u.n)) * (u.z * u.z_minus);
  C da_r = (da_n * u.gh_n) * (u.r * u.r_minus);
  Grads d;
  d.gi[0] = da_r;
  d.gh[0] = da_r;
  d.gi[1] = da_z;
  d.gh[1] = da_z;
  d.gi[2] = da_n;
  d.gh[2] = da_n * u.r;
  d.z = u.z;
  return d;
}

// Unit (b, j)'s gate gradient of `gate` on the state side (gh) or the input side (gi).
C side(uint b, uint j, uint gate, bool state) {
  return gates_[(b * pc.hidden + j) * GRU_GATE_VALUES + (state ? 3u : 0u) + gate];
}

void main() {
  uint e = group_linear() * LOCAL_X + gl_LocalInvocationID.x;
  if (e >= pc.count) return;
  uint H = pc.hidden;
  if (MODE == GRU_MODE_FORWARD) {
    Unit u = unit_at(e / H, e % H);
    out_[e] = FROM_C(u.z_minus * u.n + u.z * TO_C(h_[e]));
    return;
  }
  if (MODE == GRU_MODE_GATES) {
    Grads d = grads_at(e / H, e % H);
    uint at = e * GRU_GATE_VALUES;
    for (uint gate = 0u; gate < 3u; ++gate) {
      gates_[at + gate] = d.gi[gate];
      gates_[at + 3u + gate] = d.gh[gate];
    }
    gates_[at + 6u] = d.z;
    return;
  }
  bool state = MODE % 2u == 1u;
  uint len = state ? H : pc.inputs;
  C acc = K(0.0);
  if (MODE < 2u) {
    uint b = e / len, k = e % len;
    if (state) acc = TO_C(g_[e]) * gates_[(b * H + k) * GRU_GATE_VALUES + 6u];
    for (uint j = 0u; j < H; ++j)
      for (uint gate = 0u; gate < 3u; ++gate) {
        uint w = (gate * H + j) * len + k;
        acc += (state ? TO_C(w_hh_[w]) : TO_C(w_ih_[w])) * side(b, j, gate, state);
      }
  } else {
    uint row = MODE < 4u ? e / len : e, k = MODE < 4u ? e % len : 0u, gate = row / H;
    for (uint b = 0u; b < pc.batch; ++b) {
      C t = side(b, row % H, gate, state);
      if (MODE < 4u) t *= state ? TO_C(h_[b * len + k]) : TO_C(x_[b * len + k]);
      acc += t;
    }
  }
  out_[e] = FROM_C(acc);
}
