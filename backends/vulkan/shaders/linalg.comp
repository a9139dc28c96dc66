#version 450
// Batched GEMM out[b] = op(A[b]) * op(B[b]) (+ bias[j]), with arbitrary element strides so the
// transposes of the backward passes (dA = G B^T, dB = A^T G, linear's x W^T) cost nothing.
// 16x16 output tiles; each work group stages 16x16 tiles of A and B in shared memory.
// Split K (dispatch_linalg.cpp): with slices > 1 the grid's z is batch * slices and each group
// sums the inner indices [slice * slice_k, (slice + 1) * slice_k) of its tile into partials_
// ([batch][slices][m][n]); a second dispatch (sum_slices) adds them in slice order, the bias last.
#define TILE 16
#define LOCAL_X TILE
#define LOCAL_Y TILE
#include "common.glsl"

BUF(0, a_)
BUF(1, b_)
BUF(2, bias_)
BUF(3, out_)
layout(std430, set = 0, binding = 4) buffer Buf4 { C partials_[]; };

layout(push_constant) uniform Push {
  uint m, n, k, batch;
  uint a_batch, a_row, a_col;  // A(b, i, kk) at b * a_batch + i * a_row + kk * a_col
  uint b_batch, b_row, b_col;  // B(b, kk, j) at b * b_batch + kk * b_row + j * b_col
  uint has_bias;
  uint slices, slice_k, sum_slices;
} pc;

shared C tile_a[TILE][TILE];
shared C tile_b[TILE][TILE];

void store(uint b, uint i, uint j, C acc) {
  if (pc.has_bias != 0u) acc += TO_C(bias_[j]);
  out_[(b * pc.m + i) * pc.n + j] = FROM_C(acc);
}

void main() {
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint j = gl_WorkGroupID.x * TILE + tx;  // output column
  uint i = gl_WorkGroupID.y * TILE + ty;  // output row
  if (pc.sum_slices != 0u) {  // uniform: no barrier below is reached
    uint b = gl_WorkGroupID.z;
    if (i >= pc.m || j >= pc.n) return;
    uint at = i * pc.n + j, size = pc.m * pc.n;
    C acc = partials_[b * pc.slices * size + at];
    for (uint s = 1u; s < pc.slices; ++s) acc += partials_[(b * pc.slices + s) * size + at];
    store(b, i, j, acc);
    return;
  }
  uint b = gl_WorkGroupID.z / pc.slices, slice = gl_WorkGroupID.z % pc.slices;
  uint a_base = b * pc.a_batch, b_base = b * pc.b_batch;
  uint k_begin = slice * pc.slice_k, k_end = min(pc.k, k_begin + pc.slice_k);
  C acc = K(0.0);
  for (uint k0 = k_begin; k0 < k_end; k0 += TILE) {
    uint ka = k0 + tx, kb = k0 + ty;
    tile_a[ty][tx] = (i < pc.m && ka < k_end) ? TO_C(a_[a_base + i * pc.a_row + ka * pc.a_col]) : K(0.0);
    tile_b[ty][tx] = (kb < k_end && j < pc.n) ? TO_C(b_[b_base + kb * pc.b_row + j * pc.b_col]) : K(0.0);
    barrier();
    for (uint kk = 0u; kk < TILE; ++kk) acc += tile_a[ty][kk] * tile_b[kk][tx];
    barrier();
  }
  if (i >= pc.m || j >= pc.n) return;
  if (pc.slices > 1u)
    partials_[((b * pc.slices + slice) * pc.m + i) * pc.n + j] = acc;
  else
    store(b, i, j, acc);
}
