// Storage and compute types of one program variant. The host builds the same source once per
// storage dtype with exactly one of GP_STORE_F32 / GP_STORE_F16 / GP_STORE_BF16 / GP_STORE_F64
// defined, plus GP_WG (work-group size of row kernels) and GP_TILE (matmul tile edge).
// `real` is the arithmetic type: float for f32/f16/bf16 storage, double for f64; `bits_t` an
// integer of the storage size, for copies that must not touch values (half is not loadable).
#if defined(GP_STORE_F64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
typedef double store_t;
typedef ulong bits_t;
#define LOAD(p, i) ((p)[i])
#define STORE(p, i, v) ((p)[i] = (v))
#define REAL_MAX DBL_MAX
#elif defined(GP_STORE_F16)
// half is only a storage type here (no cl_khr_fp16 needed): vload_half widens exactly,
// vstore_half_rte rounds once, to nearest even.
typedef float real;
typedef float2 real2;
typedef half store_t;
typedef ushort bits_t;
#define LOAD(p, i) vload_half((i), (p))
#define STORE(p, i, v) vstore_half_rte((v), (i), (p))
#define REAL_MAX FLT_MAX
#elif defined(GP_STORE_BF16)
typedef float real;
typedef float2 real2;
typedef ushort store_t;
typedef ushort bits_t;
inline float bf16_load(ushort b) { return as_float(((uint)b) << 16); }
// Round to nearest even on the upper 16 bits; NaN stays a (quiet) NaN.
inline ushort bf16_round(float v) {
  uint u = as_uint(v);
  if (isnan(v)) return (ushort)((u >> 16) | 0x40u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (ushort)(u >> 16);
}
#define LOAD(p, i) bf16_load((p)[i])
#define STORE(p, i, v) ((p)[i] = bf16_round(v))
#define REAL_MAX FLT_MAX
#elif defined(GP_STORE_F32)
typedef float real;
typedef float2 real2;
typedef float store_t;
typedef uint bits_t;
#define LOAD(p, i) ((p)[i])
#define STORE(p, i, v) ((p)[i] = (v))
#define REAL_MAX FLT_MAX
#else
#error "one of GP_STORE_F32, GP_STORE_F16, GP_STORE_BF16, GP_STORE_F64 must be defined"
#endif

#define R(c) ((real)(c))

// Wide elementwise kernels: each work item handles GP_EW_ITEMS elements, the local size apart
// within its group's block of local_size * GP_EW_ITEMS elements (coalesced for every k). Several
// loads in flight per item are what a large GPU needs to approach its memory bandwidth.
// 64-bit: a unary kernel's tensor may pass 2^31 elements (the other kernels take int counts).
#define GP_EW_INDEX(k)                                                                                   \
  ((long)get_group_id(0) * (long)get_local_size(0) * GP_EW_ITEMS + (long)(k) * (long)get_local_size(0) + \
   (long)get_local_id(0))

// sigmoid(x) and sigmoid(-x) from one exp(-|x|): each keeps its relative accuracy on both sides,
// so 1 - sigmoid(x) is never formed by a subtraction.
inline real sigmoid_pair(real x, real* minus) {
  real e = exp(-fabs(x));
  real big = R(1) / (R(1) + e), small = e / (R(1) + e);
  *minus = x >= R(0) ? small : big;
  return x >= R(0) ? big : small;
}
inline real sigmoid_r(real x) {
  real unused;
  return sigmoid_pair(x, &unused);
}

// Work-group reductions of one value per work item over GP_WG items (a power of two <= 256);
// every item gets the result. The tree is unrolled with compile-time guards so that no barrier
// sits inside a loop: PoCL compiles straight-line barrier regions far faster than barrier loops,
// and GPUs do not care. The trailing barrier lets callers reuse the scratch memory.
#define GP_TREE_STEP(S, COMBINE)            \
  if (GP_WG > (S)) {                        \
    if (lid < (S)) COMBINE(lid, lid + (S)); \
    barrier(CLK_LOCAL_MEM_FENCE);           \
  }
// Two halves: clang-format 14 has no fixed point for the eight steps in one macro (each run
// rewraps the last one).
#define GP_TREE_HIGH(COMBINE) \
  GP_TREE_STEP(128, COMBINE) GP_TREE_STEP(64, COMBINE) GP_TREE_STEP(32, COMBINE) GP_TREE_STEP(16, COMBINE)
#define GP_TREE_LOW(COMBINE) \
  GP_TREE_STEP(8, COMBINE) GP_TREE_STEP(4, COMBINE) GP_TREE_STEP(2, COMBINE) GP_TREE_STEP(1, COMBINE)
#define GP_TREE(COMBINE) GP_TREE_HIGH(COMBINE) GP_TREE_LOW(COMBINE)

#define GP_ADD_INTO(a, b) scratch[a] += scratch[b]
#define GP_MAX_INTO(a, b) scratch[a] = fmax(scratch[a], scratch[b])

inline real wg_sum(real v, __local real* scratch) {
  const int lid = get_local_id(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  GP_TREE(GP_ADD_INTO)
  real r = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

inline real wg_max(real v, __local real* scratch) {
  const int lid = get_local_id(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  GP_TREE(GP_MAX_INTO)
  real r = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

// Arg-max over the work-group: the smallest index holding the largest value.
#define GP_ARGMAX_INTO(a, b)                                \
  if (sv[b] > sv[a] || (sv[b] == sv[a] && si[b] < si[a])) { \
    sv[a] = sv[b];                                          \
    si[a] = si[b];                                          \
  }
inline int wg_argmax(real v, int idx, __local real* sv, __local int* si) {
  const int lid = get_local_id(0);
  sv[lid] = v;
  si[lid] = idx;
  barrier(CLK_LOCAL_MEM_FENCE);
  GP_TREE(GP_ARGMAX_INTO)
  int r = si[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

// Index of the first element of line (o, i) in an [outer, n, inner] view; the line's elements
// are `inner` apart.
inline long line_base(long line, long inner, long n) { return (line / inner) * n * inner + line % inner; }
// The line of element e of an [outer, n, inner] view (line_base's inverse).
inline long long_line_of(long e, long n, long inner) { return e / (n * inner) * inner + e % inner; }

// The part of a long line that a chunk pass's work-group takes (group = line * chunks + chunk):
// elements [begin, end) of the line starting at base.
typedef struct {
  long line, begin, end, base;
} LineChunk;
inline LineChunk line_chunk(long group, long n, long inner, long chunk, int chunks) {
  LineChunk c;
  c.line = group / chunks;
  c.begin = (group % chunks) * chunk;
  c.end = min(n, c.begin + chunk);
  c.base = line_base(c.line, inner, n);
  return c;
}
