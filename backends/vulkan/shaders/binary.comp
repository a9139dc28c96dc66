#version 450
// Binary elementwise ops with NumPy broadcasting (strides from core's broadcast_plan, 4-D,
// stride 0 on broadcast dims). Gradient of an input = sum over the output elements that read
// it: per-thread loop when each gradient element has few terms, else one work group per
// gradient element with a shared-memory tree sum (the bias-add case [B,N] + [N]).
#define WG 256
#define LOCAL_X WG
#include "common.glsl"
#include "math.glsl"
#include "op_codes.h"

BUF(0, a_)
BUF(1, b_)
BUF(2, g_)
BUF(3, r_)  // forward: z; backward: the gradient of input `which`

layout(push_constant) uniform Push {
  uint op;
  uint mode;
  uint which;  // 0: gradient of a, 1: gradient of b
  uint count;  // forward: output elements; backward: gradient elements
  uint terms;  // backward: output elements summed into each gradient element
  uint pad0, pad1, pad2;
  uvec4 out_dims;
  uvec4 a_stride;
  uvec4 b_stride;
  uvec4 grad_dims;    // the gradient target's dims (1 on its broadcast dims)
  uvec4 reduce_dims;  // out_dims on the target's broadcast dims, else 1
} pc;

shared C partial[WG];

C f(uint op, C a, C b) {
  switch (op) {
    case BOP_ADD: return a + b;
    case BOP_SUB: return a - b;
    case BOP_MUL: return a * b;
    case BOP_DIV: return a / b;
    case BOP_POW: return m_pow(a, b);
    case BOP_MAXIMUM: return a > b ? a : b;
    case BOP_MINIMUM: return a < b ? a : b;
  }
  return K(0.0);
}

C partial_derivative(uint op, uint which, C a, C b) {
  bool da = which == 0u;
  switch (op) {
    case BOP_ADD: return K(1.0);
    case BOP_SUB: return da ? K(1.0) : K(-1.0);
    case BOP_MUL: return da ? b : a;
    case BOP_DIV: return da ? K(1.0) / b : -a / (b * b);
    case BOP_POW: return da ? b * m_pow(a, b - K(1.0)) : m_pow(a, b) * m_log(a);
    case BOP_MAXIMUM: return (da ? a > b : b > a) ? K(1.0) : K(0.0);
    case BOP_MINIMUM: return (da ? a < b : b < a) ? K(1.0) : K(0.0);
  }
  return K(0.0);
}

// Term t of gradient element j: g at the output coordinate times the partial derivative there.
C grad_term(uvec4 kept, uint t) {
  uvec4 o = kept + unravel4(t, pc.reduce_dims);
  uint oi = dot4(o, row_major_strides(pc.out_dims));
  C a = TO_C(a_[dot4(o, pc.a_stride)]);
  C b = TO_C(b_[dot4(o, pc.b_stride)]);
  return TO_C(g_[oi]) * partial_derivative(pc.op, pc.which, a, b);
}

void main() {
  if (pc.mode == BMODE_FORWARD) {
    uint i = global_linear();
    if (i >= pc.count) return;
    uvec4 o = unravel4(i, pc.out_dims);
    r_[i] = FROM_C(f(pc.op, TO_C(a_[dot4(o, pc.a_stride)]), TO_C(b_[dot4(o, pc.b_stride)])));
  } else if (pc.mode == BMODE_GRAD_PER_THREAD) {
    uint j = global_linear();
    if (j >= pc.count) return;
    uvec4 kept = unravel4(j, pc.grad_dims);
    C s = K(0.0);
    for (uint t = 0u; t < pc.terms; ++t) s += grad_term(kept, t);
    r_[j] = FROM_C(s);
  } else {
    uint j = group_linear();  // uniform per group: every invocation reaches the barriers
    uint lid = gl_LocalInvocationID.x;
    C s = K(0.0);
    if (j < pc.count) {
      uvec4 kept = unravel4(j, pc.grad_dims);
      for (uint t = lid; t < pc.terms; t += WG) s += grad_term(kept, t);
    }
    partial[lid] = s;
    barrier();
    for (uint w = WG / 2u; w > 0u; w >>= 1) {
      if (lid < w) partial[lid] += partial[lid + w];
      barrier();
    }
    if (lid == 0u && j < pc.count) r_[j] = FROM_C(partial[0]);
  }
}
