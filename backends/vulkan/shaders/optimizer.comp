#version 450
// Optimizer steps (sgd_step, adamw_step): one invocation per element of the flattened parameter,
// writing row 0 (the new parameter) and the state rows of out_ ([rows, n]). The scalars are
// core's optimizer_scalars, each as the bits of a double plus a float copy (ATTR). Forward only.
#define LOCAL_X 256
#include "common.glsl"
#include "math.glsl"
#include "op_codes.h"

BUF(0, param_)
BUF(1, grad_)
BUF(2, state0_)  // sgd: the momentum buffer; adamw: m
BUF(3, state1_)  // adamw: v
BUF(4, out_)

// sgd: lr, wd, momentum, 1 - dampening; adamw: lr, 1 - lr wd, b1, 1 - b1, b2, 1 - b2, eps, t
layout(push_constant) uniform Push {
  uint n;
  uint op;
  uint flags;  // sgd: bit 0 weight decay, bit 1 momentum, bit 2 Nesterov, bit 3 fresh buffer
  uint pad;
  uvec2 bits[8];
  float f[8];
} pc;
#define OP SPEC_OR_PUSH(SPEC_OP, pc.op)

C scalar(int k) { return ATTR(pc.bits[k], pc.f[k]); }

// 1 - beta^t from 1 - beta, without the cancellation of 1 - pow(beta, t).
C one_minus_power(C one_minus_beta, C t) { return -m_expm1(t * m_log1p(-one_minus_beta)); }

void sgd(uint i) {
  const C p = TO_C(param_[i]);
  C d = TO_C(grad_[i]);
  if ((pc.flags & 1u) != 0u) d += scalar(1) * p;
  C b = TO_C(state0_[i]);
  if ((pc.flags & 2u) != 0u) {
    b = (pc.flags & 8u) != 0u ? d : scalar(2) * b + scalar(3) * d;
    d = (pc.flags & 4u) != 0u ? d + scalar(2) * b : b;
  }
  out_[i] = FROM_C(p - scalar(0) * d);
  out_[pc.n + i] = FROM_C(b);
}

void adamw(uint i) {
  const C t = scalar(7);
  const C c1 = one_minus_power(scalar(3), t), c2 = one_minus_power(scalar(5), t);
  const C g = TO_C(grad_[i]);
  const C m1 = scalar(2) * TO_C(state0_[i]) + scalar(3) * g;
  const C v1 = scalar(4) * TO_C(state1_[i]) + scalar(5) * (g * g);
  const C denom = sqrt(v1 / c2) + scalar(6);
  out_[i] = FROM_C(scalar(1) * TO_C(param_[i]) - scalar(0) * (m1 / c1) / denom);
  out_[pc.n + i] = FROM_C(m1);
  out_[2u * pc.n + i] = FROM_C(v1);
}

void main() {
  const uint i = group_linear() * LOCAL_X + gl_LocalInvocationID.x;
  if (i >= pc.n) return;
  switch (OP) {
    case GP_OP_sgd_step: sgd(i); break;
    case GP_OP_adamw_step: adamw(i); break;
  }
}
