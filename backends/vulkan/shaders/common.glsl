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

// The local size is declared here, before any use of gl_WorkGroupSize (a constant that is only
// right after the declaration). Shaders #define LOCAL_X (and LOCAL_Y) before including this.
#ifndef LOCAL_Y
#define LOCAL_Y 1
#endif
layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

uint group_linear() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }
uint global_linear() { return group_linear() * gl_WorkGroupSize.x + gl_LocalInvocationID.x; }

// 4-D index helpers (component x is the outermost dimension, w the innermost).
uvec4 unravel4(uint idx, uvec4 d) {
  uvec4 c;
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
