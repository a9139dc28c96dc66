#version 450
// Strided copy over a 4-D iteration space: dst[dst_base + c.dst_stride] = src[src_base +
// c.src_stride] for every coordinate c of dims. Transpose, reshape, concat, slice and their
// gradients are all instances; CMODE_FILL_ZERO clears dst (slice's gradient). Also the
// bandwidth benchmark's copy shader.
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
