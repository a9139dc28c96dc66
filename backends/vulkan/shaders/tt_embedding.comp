#version 450
// tt_embedding (core/README.md; layout in core's TtGeometry): the selected core slices are
// contracted per output element, never the V x D table. MODE 0: one invocation per output
// element, the r1 r2 triple products of its slices. MODE k = 1, 2, 3: one invocation per element
// of core k's gradient, its running sum over the batch rows in order (repeated ids add up the same
// way every run; every element is written). No buffer beyond the output or the gradient.
#define LOCAL_X 64
#include "common.glsl"

IBUF(0, ids_)
BUF(1, g1_)
BUF(2, g2_)
BUF(3, g3_)
BUF(4, dy_)   // backward: the output's gradient
BUF(5, out_)  // the output, or core MODE's gradient

layout(push_constant) uniform Push {
  uint mode, count;
  uint v1, v2, v3, batch;
  uint d1, d2, d3, r1, r2;
} pc;

#define MODE SPEC_OR_PUSH(SPEC_MODE, pc.mode)

uint g1_at(uint i1, uint j1, uint a) { return (i1 * pc.d1 + j1) * pc.r1 + a; }
uint g2_at(uint i2, uint a, uint j2, uint c) { return ((i2 * pc.r1 + a) * pc.d2 + j2) * pc.r2 + c; }
uint g3_at(uint i3, uint c, uint j3) { return (i3 * pc.r2 + c) * pc.d3 + j3; }
C dy_at(uint b, uint j1, uint j2, uint j3) { return TO_C(dy_[b * pc.d1 * pc.d2 * pc.d3 + (j1 * pc.d2 + j2) * pc.d3 + j3]); }
C g1(uvec3 i, uint j1, uint a) { return TO_C(g1_[g1_at(i.x, j1, a)]); }
C g2(uvec3 i, uint a, uint j2, uint c) { return TO_C(g2_[g2_at(i.y, a, j2, c)]); }
C g3(uvec3 i, uint c, uint j3) { return TO_C(g3_[g3_at(i.z, c, j3)]); }

// The mixed-radix digits of row b's id; false for an id outside the vocabulary (its output row
// is NaN and it adds nothing to a gradient).
bool digits(uint b, out uvec3 i) {
  int id = ids_[b];
  if (id < 0 || uint(id) >= pc.v1 * pc.v2 * pc.v3) return false;
  uint u = uint(id);
  i = uvec3(u / (pc.v2 * pc.v3), u / pc.v3 % pc.v2, u % pc.v3);
  return true;
}

C forward(uint n) {
  uint dim = pc.d1 * pc.d2 * pc.d3, b = n / dim, j = n % dim;
  uint j1 = j / (pc.d2 * pc.d3), j2 = j / pc.d3 % pc.d2, j3 = j % pc.d3;
  uvec3 i;
  if (!digits(b, i)) return C(uintBitsToFloat(0x7fc00000u));
  C acc = K(0.0);
  for (uint a = 0u; a < pc.r1; ++a)
    for (uint c = 0u; c < pc.r2; ++c) acc += g1(i, j1, a) * g2(i, a, j2, c) * g3(i, c, j3);
  return acc;
}

C core_gradient(uint n) {
  uint slice = MODE == 1u ? pc.d1 * pc.r1 : MODE == 2u ? pc.r1 * pc.d2 * pc.r2 : pc.r2 * pc.d3;
  uint s = n / slice, p = n % slice;
  C acc = K(0.0);
  for (uint b = 0u; b < pc.batch; ++b) {
    uvec3 i;
    if (!digits(b, i) || (MODE == 1u ? i.x : MODE == 2u ? i.y : i.z) != s) continue;
    if (MODE == 1u) {  // dG1[i1, 0, j1, a]: p = j1 r1 + a
      uint j1 = p / pc.r1, a = p % pc.r1;
      for (uint j2 = 0u; j2 < pc.d2; ++j2)
        for (uint j3 = 0u; j3 < pc.d3; ++j3)
          for (uint c = 0u; c < pc.r2; ++c) acc += dy_at(b, j1, j2, j3) * g2(i, a, j2, c) * g3(i, c, j3);
    } else if (MODE == 2u) {  // dG2[i2, a, j2, c]: p = (a d2 + j2) r2 + c
      uint c = p % pc.r2, j2 = p / pc.r2 % pc.d2, a = p / (pc.r2 * pc.d2);
      for (uint j1 = 0u; j1 < pc.d1; ++j1)
        for (uint j3 = 0u; j3 < pc.d3; ++j3) acc += dy_at(b, j1, j2, j3) * g1(i, j1, a) * g3(i, c, j3);
    } else {  // dG3[i3, c, j3, 0]: p = c d3 + j3
      uint c = p / pc.d3, j3 = p % pc.d3;
      for (uint j1 = 0u; j1 < pc.d1; ++j1)
        for (uint j2 = 0u; j2 < pc.d2; ++j2)
          for (uint a = 0u; a < pc.r1; ++a) acc += dy_at(b, j1, j2, j3) * g1(i, j1, a) * g2(i, a, j2, c);
    }
  }
  return acc;
}

void main() {
  uint n = group_linear() * LOCAL_X + gl_LocalInvocationID.x;
  if (n >= pc.count) return;
  out_[n] = FROM_C(MODE == 0u ? forward(n) : core_gradient(n));
}
