#version 450
// Binary elementwise ops with NumPy broadcasting (strides from core's broadcast_plan, 4-D,
// stride 0 on broadcast dims). Gradient of an input = sum over the output elements that read
// it: per-thread loop when each gradient element has few terms; else, when the innermost dim
// is kept (the bias-add case [B,N] + [N]), tiles of neighbouring gradient elements times chunks
// of terms with partial sums in a scratch buffer and a second pass that adds them; else one
// work group per gradient element with a subgroup + shared-memory sum. Gradients read only the
// operands their derivative needs (add and sub: neither), and the column pass can also write the
// gradient of the other input when that one has the output's shape, so g is read once for both.
#define WG 256
#define LOCAL_X WG
#include "common.glsl"
#include "math.glsl"
#include "op_codes.h"

BUF(0, a_)
BUF(1, b_)
BUF(2, g_)
BUF(3, r_)  // forward: z; backward: the gradient of input `which` (BMODE_GRAD_SAME: of a)
layout(std430, set = 0, binding = 4) buffer Buf4 { C partials_[]; };  // [chunks][count]
BUF(5, rb_)  // BMODE_GRAD_SAME: the gradient of b

layout(push_constant) uniform Push {
  uint op;
  uint mode;
  uint which;  // 0: gradient of a, 1: gradient of b
  uint count;  // forward: output elements; backward: gradient elements
  uint terms;  // backward: output elements summed into each gradient element
  uint chunks;       // BMODE_GRAD_COLUMNS: chunks of terms (partial sums per gradient element)
  uint chunk_terms;  // terms per chunk
  uint fused;        // BMODE_GRAD_COLUMNS: 1 = also write the other input's gradient (output-shaped) to r_
  uvec4 out_dims;
  uvec4 a_stride;
  uvec4 b_stride;
  uvec4 grad_dims;    // the gradient target's dims (1 on its broadcast dims)
  uvec4 reduce_dims;  // out_dims on the target's broadcast dims, else 1
} pc;
#define OP SPEC_OR_PUSH(SPEC_OP, pc.op)
#define MODE SPEC_OR_PUSH(SPEC_MODE, pc.mode)

#include "reduce.glsl"

C f(uint op, C a, C b) {
  switch (op) {
    case GP_OP_add: return a + b;
    case GP_OP_sub: return a - b;
    case GP_OP_mul: return a * b;
    case GP_OP_div: return a / b;
    case GP_OP_pow: return m_pow(a, b);
    case GP_OP_maximum: return a > b ? a : b;
    case GP_OP_minimum: return a < b ? a : b;
  }
  return K(0.0);
}

C partial_derivative(uint op, uint which, C a, C b) {
  bool da = which == 0u;
  switch (op) {
    case GP_OP_add: return K(1.0);
    case GP_OP_sub: return da ? K(1.0) : K(-1.0);
    case GP_OP_mul: return da ? b : a;
    case GP_OP_div: return da ? K(1.0) / b : -(a / b) / b;  // b b would underflow for a tiny b
    case GP_OP_pow: return da ? b * m_pow(a, b - K(1.0)) : m_pow(a, b) * m_log(a);
    // The input f selected takes the cotangent: at a tie (or a NaN) the second, never neither.
    case GP_OP_maximum: return (da == (a > b)) ? K(1.0) : K(0.0);
    case GP_OP_minimum: return (da == (a < b)) ? K(1.0) : K(0.0);
  }
  return K(0.0);
}

// Whether the derivative with respect to input `which` reads a, b (uniform: no divergence).
bool derivative_reads_a(uint op, uint which) {
  return op == GP_OP_pow || op == GP_OP_maximum || op == GP_OP_minimum || (which == 1u && (op == GP_OP_mul || op == GP_OP_div));
}
bool derivative_reads_b(uint op, uint which) {
  return op == GP_OP_pow || op == GP_OP_maximum || op == GP_OP_minimum || op == GP_OP_div || (which == 0u && op == GP_OP_mul);
}
bool fused() { return MODE == BMODE_GRAD_COLUMNS && pc.fused != 0u; }
bool loads_a() { return derivative_reads_a(OP, pc.which) || (fused() && derivative_reads_a(OP, 1u - pc.which)); }
bool loads_b() { return derivative_reads_b(OP, pc.which) || (fused() && derivative_reads_b(OP, 1u - pc.which)); }

// Term t of gradient element j: the operands the derivatives need, g, and g's (the output's)
// index.
uint load_term(uvec4 kept, uint t, out C a, out C b, out C g) {
  uvec4 o = kept + unravel4(t, pc.reduce_dims);
  uint out_index = dot4(o, row_major_strides(pc.out_dims));
  a = loads_a() ? TO_C(a_[dot4(o, pc.a_stride)]) : K(0.0);
  b = loads_b() ? TO_C(b_[dot4(o, pc.b_stride)]) : K(0.0);
  g = TO_C(g_[out_index]);
  return out_index;
}

C grad_term(uvec4 kept, uint t) {
  C a, b, g;
  load_term(kept, t, a, b, g);
  return g * partial_derivative(OP, pc.which, a, b);
}

// BMODE_FORWARD_SAME and BMODE_GRAD_SAME: every operand at the element's own index.
void same_shape() {
  const bool bwd = MODE == BMODE_GRAD_SAME;
  const bool read_a = !bwd || derivative_reads_a(OP, 0u) || derivative_reads_a(OP, 1u);
  const bool read_b = !bwd || derivative_reads_b(OP, 0u) || derivative_reads_b(OP, 1u);
  C a[ELEMS_PER_INVOCATION], b[ELEMS_PER_INVOCATION], g[ELEMS_PER_INVOCATION];
  [[unroll]] for (uint k = 0u; k < ELEMS_PER_INVOCATION; ++k) {
    uint i = item(k);
    bool inside = i < pc.count;
    a[k] = inside && read_a ? TO_C(a_[i]) : K(0.0);
    b[k] = inside && read_b ? TO_C(b_[i]) : K(0.0);
    g[k] = inside && bwd ? TO_C(g_[i]) : K(0.0);
  }
  [[dont_unroll]] for (uint k = 0u; k < ELEMS_PER_INVOCATION; ++k) {
    uint i = item(k);
    if (i >= pc.count) break;
    if (bwd) {
      r_[i] = FROM_C(PICK(g, k) * partial_derivative(OP, 0u, PICK(a, k), PICK(b, k)));
      rb_[i] = FROM_C(PICK(g, k) * partial_derivative(OP, 1u, PICK(a, k), PICK(b, k)));
    } else {
      r_[i] = FROM_C(f(OP, PICK(a, k), PICK(b, k)));
    }
  }
}

void main() {
  if (MODE == BMODE_FORWARD_SAME || MODE == BMODE_GRAD_SAME) {
    same_shape();
  } else if (MODE == BMODE_FORWARD) {
    C a[ELEMS_PER_INVOCATION], b[ELEMS_PER_INVOCATION];
    [[unroll]] for (uint k = 0u; k < ELEMS_PER_INVOCATION; ++k) {
      uint i = item(k);
      a[k] = b[k] = K(0.0);
      if (i < pc.count) {
        uvec4 o = unravel4(i, pc.out_dims);
        a[k] = TO_C(a_[dot4(o, pc.a_stride)]);
        b[k] = TO_C(b_[dot4(o, pc.b_stride)]);
      }
    }
    [[dont_unroll]] for (uint k = 0u; k < ELEMS_PER_INVOCATION; ++k) {
      uint i = item(k);
      if (i >= pc.count) break;
      r_[i] = FROM_C(f(OP, PICK(a, k), PICK(b, k)));
    }
  } else if (MODE == BMODE_GRAD_PER_THREAD) {
    // Term 0 of every element up front (for inputs of the output's shape it is the only one).
    C a[ELEMS_PER_INVOCATION], b[ELEMS_PER_INVOCATION], g[ELEMS_PER_INVOCATION];
    [[unroll]] for (uint k = 0u; k < ELEMS_PER_INVOCATION; ++k) {
      uint j = item(k);
      a[k] = b[k] = g[k] = K(0.0);
      if (j < pc.count && pc.terms > 0u) load_term(unravel4(j, pc.grad_dims), 0u, a[k], b[k], g[k]);
    }
    [[dont_unroll]] for (uint k = 0u; k < ELEMS_PER_INVOCATION; ++k) {
      uint j = item(k);
      if (j >= pc.count) break;
      uvec4 kept = unravel4(j, pc.grad_dims);
      // No term (a broadcast input's gradient over an empty batch): the sum of nothing.
      C s = pc.terms == 0u ? K(0.0) : PICK(g, k) * partial_derivative(OP, pc.which, PICK(a, k), PICK(b, k));
      for (uint t = 1u; t < pc.terms; ++t) s += grad_term(kept, t);
      r_[j] = FROM_C(s);
    }
  } else if (MODE == BMODE_GRAD_COLUMNS) {
    ColumnTile tile = column_tile(pc.count);
    uint j = tile.column;
    bool mine = j < pc.count && tile.chunk < pc.chunks;
    C s = K(0.0);
    if (mine) {
      uvec4 kept = unravel4(j, pc.grad_dims);
      uint end = min((tile.chunk + 1u) * pc.chunk_terms, pc.terms);
      for (uint t = tile.chunk * pc.chunk_terms + tile.lane; t < end; t += COLUMN_LANES) {
        C a, b, g;
        uint out_index = load_term(kept, t, a, b, g);
        s += g * partial_derivative(OP, pc.which, a, b);
        if (fused()) r_[out_index] = FROM_C(g * partial_derivative(OP, 1u - pc.which, a, b));
      }
    }
    s = column_tile_sum2(C2(s, K(0.0))).x;
    if (tile.lane == 0u && mine) partials_[tile.chunk * pc.count + j] = s;
  } else if (MODE == BMODE_SUM_CHUNKS) {
    [[dont_unroll]] for (uint k = 0u; k < ELEMS_PER_INVOCATION; ++k) {
      uint j = item(k);
      if (j >= pc.count) break;
      C s = partials_[j];
      for (uint c = 1u; c < pc.chunks; ++c) s += partials_[c * pc.count + j];
      r_[j] = FROM_C(s);
    }
  } else {
    uint j = group_linear();  // uniform per group: every invocation reaches the barriers
    C s = K(0.0);
    if (j < pc.count) {
      uvec4 kept = unravel4(j, pc.grad_dims);
      for (uint t = gl_LocalInvocationID.x; t < pc.terms; t += WG) s += grad_term(kept, t);
    }
    s = group_sum(s);
    if (gl_LocalInvocationID.x == 0u && j < pc.count) r_[j] = FROM_C(s);
  }
}
