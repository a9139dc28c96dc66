// Shared by every shader: storage type S, compute type C, K(literal) for literals exact in float,
// load/store conversions, and the 2-D work-group grid (more than 65535 groups). One of DT_F32,
// DT_F64, DT_F16, DT_BF16 is defined by the build (-D); 16-bit types are storage only and are
// converted with explicit round-to-nearest-even code, because the rounding of a plain
// float -> float16_t conversion is implementation-defined.

// Long fixed-count loops (series) carry [[dont_unroll]]: unrolled, they multiply the code that
// lavapipe's JIT compiles at first dispatch, for no gain on a GPU.
#extension GL_EXT_control_flow_attributes : require

#if defined(DT_F64)
#define S double
#define C double
#define K(x) double(x)  // only for literals exact in float; irrational constants use lf
#define TO_C(v) (v)
#define FROM_C(v) (v)
#define IS_F64 1
#elif defined(DT_F32)
#define S float
#define C float
#define K(x) float(x)
#define TO_C(v) (v)
#define FROM_C(v) (v)
#elif defined(DT_F16) || defined(DT_BF16)
#extension GL_EXT_shader_16bit_storage : require
#define S uint16_t
#define C float
#define K(x) float(x)
#if defined(DT_F16)
#define TO_C(v) unpackHalf2x16(uint(v)).x
#define FROM_C(v) uint16_t(f32_to_f16(v))
#else
#define TO_C(v) uintBitsToFloat(uint(v) << 16)
#define FROM_C(v) uint16_t(f32_to_bf16(v))
#endif
#else
#error "define one of DT_F32, DT_F64, DT_F16, DT_BF16"
#endif

// Raw storage values held in registers (copies move bits, not values): 16-bit storage types
// cannot be local variables, so they travel as uint.
#if defined(DT_F16) || defined(DT_BF16)
#define RAW uint
#define RAW_ZERO 0u
#define TO_RAW(v) uint(v)
#define FROM_RAW(v) uint16_t(v)
#else
#define RAW S
#define RAW_ZERO S(0)
#define TO_RAW(v) (v)
#define FROM_RAW(v) (v)
#endif

#define BUF(binding_, name_) \
  layout(std430, set = 0, binding = binding_) buffer Buf##binding_ { S name_[]; };
#define IBUF(binding_, name_) \
  layout(std430, set = 0, binding = binding_) buffer Buf##binding_ { int name_[]; };

// f32 -> IEEE half bits, round to nearest even, with subnormals, overflow to inf and NaN kept.
uint f32_to_f16(float f) {
  uint x = floatBitsToUint(f);
  uint sign = (x >> 16) & 0x8000u;
  uint ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u);
  if (ax >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds to infinity
  if (ax < 0x38800000u) {                         // below 2^-14: subnormal half
    float scaled = uintBitsToFloat(ax) * 16777216.0;  // exact: times 2^24
    return sign | uint(roundEven(scaled));
  }
  uint m = ax - 0x38000000u;  // rebias the exponent from 127 to 15
  return sign | ((m + 0xfffu + ((m >> 13) & 1u)) >> 13);
}

// f32 -> bfloat16 bits, round to nearest even, NaN kept quiet.
uint f32_to_bf16(float f) {
  uint x = floatBitsToUint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (x >> 16) | 0x40u;
  return (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
}

// Host-side attributes arrive as the bits of a double plus a float copy, so f64 shaders keep
// every bit of e.g. p = 3.7 and the other variants need no Float64 capability.
#if defined(IS_F64)
#define ATTR(bits, f) packDouble2x32(bits)
#else
#define ATTR(bits, f) (f)
#endif

// Which op and mode (forward/backward, copy mode) a dispatch runs: specialization constants
// whose default, SPEC_FROM_PUSH, makes the generic pipeline that reads them from push constants
// (one pipeline per family and dtype: what lavapipe gets, since it compiles every pipeline at
// first dispatch). On a GPU each (op, mode) gets its own pipeline: the constant folds the other
// ops' code away, so registers and loops are sized for the one op (vk_pipelines.hpp).
// Shaders define OP and MODE with SPEC_OR_PUSH over their push-constant fields.
#include "op_codes.h"
layout(constant_id = 0) const uint SPEC_OP = SPEC_FROM_PUSH;
layout(constant_id = 1) const uint SPEC_MODE = SPEC_FROM_PUSH;
#define SPEC_OR_PUSH(spec, field) ((spec) == SPEC_FROM_PUSH ? (field) : (spec))

// The local size is declared here, before any use of gl_WorkGroupSize (a constant that is only
// right after the declaration). Shaders #define LOCAL_X (and LOCAL_Y) before including this.
#ifndef LOCAL_Y
#define LOCAL_Y 1
#endif
layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

uint group_linear() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// Elementwise shaders: invocation element k (k < ELEMS_PER_INVOCATION) of the group's block,
// LOCAL_X apart so that every load of a subgroup is coalesced. They load all their elements
// before the first store: the compiler must assume that the buffers alias, so a store would hold
// the next load back, and one load in flight per invocation does not cover a GPU's memory
// latency (on an H200 it capped a copy at 1.7 of 4 TB/s). The computation then runs in a loop
// that is not unrolled, taking its operands with PICK, so an op's code is compiled once.
uint item(uint k) {
  return (group_linear() * ELEMS_PER_INVOCATION + k) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}
#define PICK(v, k) ((k) == 0u ? v[0] : (k) == 1u ? v[1] : (k) == 2u ? v[2] : v[3])

// 4-D index helpers (component x is the outermost dimension, w the innermost).
uvec4 unravel4(uint idx, uvec4 d) {
  uvec4 c;
  if (d.x == 1u && d.y == 1u) {  // uniform; rank <= 2 needs one division, not three
    c.xy = uvec2(0u);
    c.z = idx / d.w;
    c.w = idx - c.z * d.w;
    return c;
  }
  c.w = idx % d.w;
  idx /= d.w;
  c.z = idx % d.z;
  idx /= d.z;
  c.y = idx % d.y;
  c.x = idx / d.y;
  return c;
}
uint dot4(uvec4 c, uvec4 s) { return c.x * s.x + c.y * s.y + c.z * s.z + c.w * s.w; }
uvec4 row_major_strides(uvec4 d) { return uvec4(d.y * d.z * d.w, d.z * d.w, d.w, 1u); }
