#version 450
// The unary family (the straight-through ops with their surrogate gradients among them): forward
// y = f(x), backward dx = g * f'(x). The op is a push-constant code (GP_OP_*, generated from the
// catalog into gp_op_codes.h) ; uniform across the dispatch, so the switch costs one uniform
// branch, which keeps one pipeline per dtype instead of one per op: lavapipe compiles every
// pipeline at first use. Derivatives are recomputed from x in C precision rather than read from
// y, so a 16-bit stored y does not limit the gradient's accuracy.
#define LOCAL_X 256
#include "common.glsl"
#include "math.glsl"
#include "op_codes.h"

BUF(0, x_)
BUF(1, y_)
BUF(2, g_)
BUF(3, dx_)

layout(push_constant) uniform Push {
  uint n;
  uint op;
  uint backward;
  uint pad;
  uvec2 p_bits;
  uvec2 alpha_bits;
  float p_f;
  float alpha_f;
} pc;
#define OP SPEC_OR_PUSH(SPEC_OP, pc.op)
#define MODE SPEC_OR_PUSH(SPEC_MODE, pc.backward)

// f(x) when !bwd, f'(x) when bwd. Each op computes its transcendental primitives once for both
// (one inlined copy per call site is what lavapipe's JIT has to compile).
C eval(uint op, C x, bool bwd, C p, C alpha) {
  switch (op) {
    case GP_OP_neg: return bwd ? K(-1.0) : -x;
    case GP_OP_square: return bwd ? K(2.0) * x : x * x;
    case GP_OP_reciprocal: return bwd ? K(-1.0) / (x * x) : K(1.0) / x;
    case GP_OP_abs: return bwd ? (x > K(0.0) ? K(1.0) : x < K(0.0) ? K(-1.0) : K(0.0)) : abs(x);
    case GP_OP_exp: return m_exp(x);
    case GP_OP_expm1: return bwd ? m_exp(x) : m_expm1(x);
    case GP_OP_log: return bwd ? K(1.0) / x : m_log(x);
    case GP_OP_log1p: return bwd ? K(1.0) / (K(1.0) + x) : m_log1p(x);
    case GP_OP_sqrt: return bwd ? K(0.5) / sqrt(x) : sqrt(x);
    case GP_OP_rsqrt: return bwd ? K(-0.5) / (x * sqrt(x)) : K(1.0) / sqrt(x);
    case GP_OP_pow_scalar: return bwd ? p * m_pow(x, p - K(1.0)) : m_pow(x, p);
    case GP_OP_sin:
    case GP_OP_cos: {  // sin(x + pi/2) = cos x: shift the quadrant instead of a second reduction
      int q = (op == GP_OP_cos ? 1 : 0) + (bwd ? 1 : 0);
      return m_sin_quadrant(x, q);
    }
    case GP_OP_tanh: return bwd ? m_sech2(x) : m_tanh(x);
    case GP_OP_sigmoid:
    case GP_OP_softplus:
    case GP_OP_silu: {
      C s, sm;
      m_sigmoid_pair(x, s, sm);  // sigmoid(x), sigmoid(-x) from one exp
      if (op == GP_OP_sigmoid) return bwd ? s * sm : s;
      if (op == GP_OP_silu) return bwd ? s * (K(1.0) + x * sm) : x * s;
      // softplus = max(x, 0) + log1p(e^-|x|), e^-|x| = min(s, sm) / max(s, sm)
      return bwd ? s : max(x, K(0.0)) + m_log1p(min(s, sm) / max(s, sm));
    }
    case GP_OP_relu: return x > K(0.0) ? (bwd ? K(1.0) : x) : K(0.0);
    case GP_OP_leaky_relu: return x > K(0.0) ? (bwd ? K(1.0) : x) : (bwd ? alpha : alpha * x);
    case GP_OP_elu: {
      if (x > K(0.0)) return bwd ? K(1.0) : x;
      return bwd ? alpha * m_exp(x) : alpha * m_expm1(x);
    }
    case GP_OP_gelu: {  // alpha: the approximation (core's unary_scalars), 0 = erf, 1 = tanh
      if (alpha == K(0.0)) {
        C phi, density;
        m_phi_density(x, phi, density);
        return bwd ? phi + x * density : x * phi;
      }
      // 0.5 x (1 + tanh u) = x sigmoid(2u): no cancellation for x << 0
      C u = SQRT_2_OVER_PI * (x + GELU_A * x * x * x);
      C s, sm;
      m_sigmoid_pair(K(2.0) * u, s, sm);
      if (!bwd) return x * s;
      C du = SQRT_2_OVER_PI * (K(1.0) + K(3.0) * GELU_A * x * x);
      return s + x * s * sm * K(2.0) * du;
    }
    case GP_OP_hardswish:  // x relu6(x + 3) / 6
      if (x <= K(-3.0)) return K(0.0);
      if (x >= K(3.0)) return bwd ? K(1.0) : x;
      return bwd ? (K(2.0) * x + K(3.0)) / K(6.0) : x * (x + K(3.0)) / K(6.0);
    case GP_OP_ste_round: return bwd ? K(1.0) : roundEven(x);  // straight-through: identity
    case GP_OP_ste_hardtanh_gate:
      return bwd ? (abs(x) < K(1.0) ? K(1.0) : K(0.0)) : (x > K(0.0) ? K(1.0) : K(0.0));
  }
  return K(0.0);
}

void main() {
  C p = ATTR(pc.p_bits, pc.p_f);
  C alpha = ATTR(pc.alpha_bits, pc.alpha_f);
  bool bwd = MODE != 0u;
  C x[ELEMS_PER_INVOCATION], g[ELEMS_PER_INVOCATION];
  [[unroll]] for (uint k = 0u; k < ELEMS_PER_INVOCATION; ++k) {
    uint i = item(k);
    x[k] = i < pc.n ? TO_C(x_[i]) : K(0.0);
    g[k] = bwd && i < pc.n ? TO_C(g_[i]) : K(0.0);
  }
  [[dont_unroll]] for (uint k = 0u; k < ELEMS_PER_INVOCATION; ++k) {
    uint i = item(k);
    if (i >= pc.n) break;
    if (bwd)
      dx_[i] = FROM_C(PICK(g, k) * eval(OP, PICK(x, k), true, p, alpha));
    else
      y_[i] = FROM_C(eval(OP, PICK(x, k), false, p, alpha));
  }
}
