#version 450
// Strided copy over a 4-D iteration space: dst[dst_base + c.dst_stride] = src[src_base +
// c.src_stride] for every coordinate c of dims. Transpose, reshape, concat, slice and their
// gradients are all instances; CMODE_FILL_ZERO clears dst (slice's gradient). Also the
// bandwidth benchmark's copy shader. CMODE_TRANSPOSE swaps the last two axes through a
// shared-memory tile, so both the loads and the stores are coalesced (as a strided copy, one
// side walks memory with a stride of a whole row).
#define LOCAL_X 256
#include "common.glsl"
#include "op_codes.h"

BUF(0, src_)
BUF(1, dst_)

layout(push_constant) uniform Push {
  uint mode;
  uint count;
  uint src_base;
  uint dst_base;
  uvec4 dims;
  uvec4 src_stride;
  uvec4 dst_stride;
} pc;
#define MODE SPEC_OR_PUSH(SPEC_MODE, pc.mode)

// [b, r, c] -> [b, c, r] (dims = (1, b, r, c)): one group per TRANSPOSE_TILE^2 tile, each
// invocation one column of the tile and every (LOCAL_X / TRANSPOSE_TILE)-th row of it. The tile
// has one padding column, so reading it by columns hits distinct shared-memory banks.
shared RAW tile[TRANSPOSE_TILE][TRANSPOSE_TILE + 1u];
void transpose_tile() {
  const uint rows_per_pass = LOCAL_X / TRANSPOSE_TILE;
  uint b = pc.dims.y, r = pc.dims.z, c = pc.dims.w;
  uint tiles_r = (r + TRANSPOSE_TILE - 1u) / TRANSPOSE_TILE, tiles_c = (c + TRANSPOSE_TILE - 1u) / TRANSPOSE_TILE;
  uint g = group_linear();
  uint batch = g / (tiles_r * tiles_c), tr = (g / tiles_c) % tiles_r, tc = g % tiles_c;
  if (batch >= b) return;  // uniform per group
  uint lx = gl_LocalInvocationID.x % TRANSPOSE_TILE, ly = gl_LocalInvocationID.x / TRANSPOSE_TILE;
  uint base = batch * r * c;
  for (uint y = ly; y < TRANSPOSE_TILE; y += rows_per_pass) {
    uint row = tr * TRANSPOSE_TILE + y, col = tc * TRANSPOSE_TILE + lx;
    if (row < r && col < c) tile[y][lx] = TO_RAW(src_[pc.src_base + base + row * c + col]);
  }
  barrier();
  for (uint y = ly; y < TRANSPOSE_TILE; y += rows_per_pass) {
    uint out_row = tc * TRANSPOSE_TILE + y, out_col = tr * TRANSPOSE_TILE + lx;  // of the [c, r] output
    if (out_row < c && out_col < r) dst_[pc.dst_base + base + out_row * r + out_col] = FROM_RAW(tile[lx][y]);
  }
}

// The contiguous case has its own loop, not a select inside the index: a select would still
// evaluate unravel4's divisions (scalarised per lane by lavapipe, about 20 instructions each on
// a GPU).
void copy_contiguous() {
  RAW v[ELEMS_PER_INVOCATION];
  [[unroll]] for (uint k = 0u; k < ELEMS_PER_INVOCATION; ++k) {
    uint i = item(k);
    if (i < pc.count) v[k] = TO_RAW(src_[pc.src_base + i]);
  }
  [[unroll]] for (uint k = 0u; k < ELEMS_PER_INVOCATION; ++k) {
    uint i = item(k);
    if (i < pc.count) dst_[pc.dst_base + i] = FROM_RAW(v[k]);
  }
}

void main() {
  if (MODE == CMODE_CONTIGUOUS) {
    copy_contiguous();
    return;
  }
  if (MODE == CMODE_TRANSPOSE) {
    transpose_tile();
    return;
  }
  RAW v[ELEMS_PER_INVOCATION];
  [[unroll]] for (uint k = 0u; k < ELEMS_PER_INVOCATION; ++k) {
    uint i = item(k);
    v[k] = RAW_ZERO;  // +0.0 in every storage type
    if (MODE != CMODE_FILL_ZERO && i < pc.count) v[k] = TO_RAW(src_[pc.src_base + dot4(unravel4(i, pc.dims), pc.src_stride)]);
  }
  [[unroll]] for (uint k = 0u; k < ELEMS_PER_INVOCATION; ++k) {
    uint i = item(k);
    if (i < pc.count) dst_[pc.dst_base + dot4(unravel4(i, pc.dims), pc.dst_stride)] = FROM_RAW(v[k]);
  }
}
