#version 450
// log_matmul_exp, one invocation per element of the pass's output:
//   LMODE_FORWARD  out[i, j] = log sum_p exp(A[i, p] + B[p, j]) in one pass: the running maximum
//                  m and rest = the sum, over every term seen but the maximum's, of exp(t - m);
//                  a new maximum rescales rest (the old maximum's term, 1, joins it). No term is
//                  exp'd unshifted, and log1p(rest) keeps the digits of a row dominated by its
//                  maximum.
//   LMODE_STATS    stats[2 e] = m, stats[2 e + 1] = 1 + rest of element e = (i, j), in the compute
//                  type, for the gradients' weights exp(t - m) / (1 + rest): recomputed from A and
//                  B, not exp(t - C) from the stored C, whose rounding (|C| u, or a 16-bit
//                  spacing) would reach the exponent (docs/error-model.md, "Backward formulations")
//   LMODE_GRAD_A   out[i, p] = sum_j G[i, j] weight(i, p, j)
//   LMODE_GRAD_B   out[p, j] = sum_i G[i, j] weight(i, p, j)
#define LOCAL_X 64
#include "common.glsl"
#include "math.glsl"

BUF(0, a_)
BUF(1, b_)
layout(std430, set = 0, binding = 2) buffer Buf2 { C stats_[]; };
BUF(3, g_)
BUF(4, out_)

layout(push_constant) uniform Push {
  uint mode;
  uint m, n, k;
} pc;
#define MODE SPEC_OR_PUSH(SPEC_MODE, pc.mode)

C term(uint i, uint p, uint j) { return TO_C(a_[i * pc.k + p]) + TO_C(b_[p * pc.n + j]); }

// m and rest of element (i, j).
void log_sum_exp(uint i, uint j, out C m, out C rest) {
  m = term(i, 0u, j), rest = K(0.0);
  for (uint p = 1u; p < pc.k; ++p) {
    C t = term(i, p, j);
    if (t > m) {
      rest = (rest + K(1.0)) * m_exp(m - t);
      m = t;
    } else {
      rest += m_exp(t - m);
    }
  }
}

C weighted(uint i, uint p, uint j) {
  uint e = i * pc.n + j;
  return TO_C(g_[e]) * (m_exp(term(i, p, j) - stats_[2u * e]) / stats_[2u * e + 1u]);
}

void main() {
  uint e = group_linear() * LOCAL_X + gl_LocalInvocationID.x;
  C acc = K(0.0);
  if (MODE == LMODE_FORWARD || MODE == LMODE_STATS) {
    if (e >= pc.m * pc.n) return;
    C m, rest;
    log_sum_exp(e / pc.n, e % pc.n, m, rest);
    if (MODE == LMODE_STATS) {
      stats_[2u * e] = m;
      stats_[2u * e + 1u] = K(1.0) + rest;
      return;
    }
    acc = m + m_log1p(rest);
  } else if (MODE == LMODE_GRAD_A) {
    if (e >= pc.m * pc.k) return;
    uint i = e / pc.k, p = e % pc.k;
    for (uint j = 0u; j < pc.n; ++j) acc += weighted(i, p, j);
  } else {
    if (e >= pc.k * pc.n) return;
    uint p = e / pc.n, j = e % pc.n;
    for (uint i = 0u; i < pc.m; ++i) acc += weighted(i, p, j);
  }
  out_[e] = FROM_C(acc);
}
