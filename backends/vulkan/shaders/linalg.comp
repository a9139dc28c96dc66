#version 450
// Batched GEMM out[b] = op(A[b]) * op(B[b]) (+ bias[j]), with arbitrary element strides so the
// transposes of the backward passes (dA = G B^T, dB = A^T G, linear's x W^T) cost nothing.
// 16x16 output tiles; each work group stages 16x16 tiles of A and B in shared memory.
#define TILE 16
#define LOCAL_X TILE
#define LOCAL_Y TILE
#include "common.glsl"

BUF(0, a_)
BUF(1, b_)
BUF(2, bias_)
BUF(3, out_)

layout(push_constant) uniform Push {
  uint m, n, k, batch;
  uint a_batch, a_row, a_col;  // A(b, i, kk) at b * a_batch + i * a_row + kk * a_col
  uint b_batch, b_row, b_col;  // B(b, kk, j) at b * b_batch + kk * b_row + j * b_col
  uint has_bias;
} pc;

shared C tile_a[TILE][TILE];
shared C tile_b[TILE][TILE];

void main() {
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint j = gl_WorkGroupID.x * TILE + tx;  // output column
  uint i = gl_WorkGroupID.y * TILE + ty;  // output row
  uint b = gl_WorkGroupID.z;
  uint a_base = b * pc.a_batch, b_base = b * pc.b_batch;
  C acc = K(0.0);
  for (uint k0 = 0u; k0 < pc.k; k0 += TILE) {
    uint ka = k0 + tx, kb = k0 + ty;
    tile_a[ty][tx] = (i < pc.m && ka < pc.k) ? TO_C(a_[a_base + i * pc.a_row + ka * pc.a_col]) : K(0.0);
    tile_b[ty][tx] = (kb < pc.k && j < pc.n) ? TO_C(b_[b_base + kb * pc.b_row + j * pc.b_col]) : K(0.0);
    barrier();
    for (uint kk = 0u; kk < TILE; ++kk) acc += tile_a[ty][kk] * tile_b[kk][tx];
    barrier();
  }
  if (i < pc.m && j < pc.n) {
    if (pc.has_bias != 0u) acc += TO_C(bias_[j]);
    out_[(b * pc.m + i) * pc.n + j] = FROM_C(acc);
  }
}
