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

void main() {
  uint i = global_linear();
  if (i >= pc.count) return;
  uvec4 c = unravel4(i, pc.dims);
  uint d = pc.dst_base + dot4(c, pc.dst_stride);
  if (pc.mode == CMODE_FILL_ZERO) {
    dst_[d] = FROM_C(K(0.0));
  } else {
    dst_[d] = src_[pc.src_base + dot4(c, pc.src_stride)];
  }
}
