// Binary elementwise ops with NumPy broadcasting. Shapes are padded to rank 4 on the host
// (core/op.hpp broadcast_plan): `dims` are the output dims (x outermost, w innermost), `sa` and
// `sb` the element strides of a and b (0 along broadcast dims). Each op is three one-line
// functions: value, d/da and d/db times g; the kernels are written once and instantiated by
// GP_BINARY_OPS (gp_op_codes.h). The backward writes both partial gradients at output size in `real`; the host
// then sums them over the broadcast dims with bcast_reduce (a work-group reduction) or converts
// them with cast_real when an input was not broadcast. When neither input is broadcast,
// binary_fwd_same and binary_bwd_same read and write at the element's own index, which is 64-bit
// (tensors past 2^31 elements run there), and binary_bwd_same writes both gradients in the
// storage type at once: the partials' round trip through scratch made a same-shape add's
// backward move three times the bytes it must. The broadcast kernels index in 32 bits. Each work item handles
// GP_EW_ITEMS elements, loaded before the first store (as the unary kernels). GP_GENERIC_ELEMENTWISE: one kernel per
// direction, binary_fwd_any / binary_bwd_any, switching on `op` (see unary.cl).

inline real fb_add(real a, real b) { return a + b; }
inline real da_add(real a, real b, real g) { return g; }
inline real db_add(real a, real b, real g) { return g; }
inline real fb_sub(real a, real b) { return a - b; }
inline real da_sub(real a, real b, real g) { return g; }
inline real db_sub(real a, real b, real g) { return -g; }
inline real fb_mul(real a, real b) { return a * b; }
inline real da_mul(real a, real b, real g) { return g * b; }
inline real db_mul(real a, real b, real g) { return g * a; }
inline real fb_div(real a, real b) { return a / b; }
inline real da_div(real a, real b, real g) { return g / b; }
inline real db_div(real a, real b, real g) { return g * (-(a / b) / b); }  // b b would underflow
inline real fb_pow(real a, real b) { return pow(a, b); }
// The partial derivative first, then g (as the reference): g b overflowed for b near -1.7e38 where
// b a^(b-1) is 0, and inf 0 gave NaN (hunt, bf16 on PoCL).
inline real da_pow(real a, real b, real g) { return g * (b * pow(a, b - R(1))); }
inline real db_pow(real a, real b, real g) { return g * (pow(a, b) * log(a)); }
inline real fb_maximum(real a, real b) { return a > b ? a : b; }
inline real da_maximum(real a, real b, real g) { return a > b ? g : R(0); }
inline real db_maximum(real a, real b, real g) { return a > b ? R(0) : g; }
inline real fb_minimum(real a, real b) { return a < b ? a : b; }
inline real da_minimum(real a, real b, real g) { return a < b ? g : R(0); }
inline real db_minimum(real a, real b, real g) { return a < b ? R(0) : g; }

// Offsets of output element i in a and b (strides sa, sb; 0 where broadcast). The coordinates
// are computed once for both, and rank <= 2 (a uniform branch) needs one division, not three:
// the general path made a broadcast add compute-bound at a quarter of the H200's bandwidth.
inline int2 bcast_offsets(int i, int4 d, int4 sa, int4 sb) {
  const int w = i % d.w;
  i /= d.w;
  if (d.x == 1 && d.y == 1) return (int2)(w * sa.w + i * sa.z, w * sb.w + i * sb.z);
  const int z = i % d.z;
  i /= d.z;
  const int y = i % d.y, x = i / d.y;
  return (int2)(w * sa.w + z * sa.z + y * sa.y + x * sa.x, w * sb.w + z * sb.z + y * sb.y + x * sb.x);
}

#define GP_DEFINE_BINARY(NAME)                                                                                        \
  __kernel void binary_fwd_##NAME(__global const store_t* a, __global const store_t* b, __global store_t* y,          \
                                  int4 dims, int4 sa, int4 sb, int n, int op) {                                       \
    real av[GP_EW_ITEMS], bv[GP_EW_ITEMS];                                                                            \
    for (int k = 0; k < GP_EW_ITEMS; ++k) {                                                                           \
      const int i = GP_EW_INDEX(k);                                                                                   \
      const int2 o = bcast_offsets(min(i, n - 1), dims, sa, sb);                                                      \
      av[k] = i < n ? LOAD(a, o.x) : R(0);                                                                            \
      bv[k] = i < n ? LOAD(b, o.y) : R(0);                                                                            \
    }                                                                                                                 \
    for (int k = 0; k < GP_EW_ITEMS; ++k) {                                                                           \
      const int i = GP_EW_INDEX(k);                                                                                   \
      if (i < n) STORE(y, i, fb_##NAME(av[k], bv[k]));                                                                \
    }                                                                                                                 \
  }                                                                                                                   \
  __kernel void binary_bwd_##NAME(__global const store_t* a, __global const store_t* b, __global const store_t* g,    \
                                  __global real* ga, __global real* gb, int4 dims, int4 sa, int4 sb, int n, int op) { \
    real av[GP_EW_ITEMS], bv[GP_EW_ITEMS], gv[GP_EW_ITEMS];                                                           \
    for (int k = 0; k < GP_EW_ITEMS; ++k) {                                                                           \
      const int i = GP_EW_INDEX(k);                                                                                   \
      const int2 o = bcast_offsets(min(i, n - 1), dims, sa, sb);                                                      \
      av[k] = i < n ? LOAD(a, o.x) : R(0);                                                                            \
      bv[k] = i < n ? LOAD(b, o.y) : R(0);                                                                            \
      gv[k] = i < n ? LOAD(g, i) : R(0);                                                                              \
    }                                                                                                                 \
    for (int k = 0; k < GP_EW_ITEMS; ++k) {                                                                           \
      const int i = GP_EW_INDEX(k);                                                                                   \
      if (i >= n) return;                                                                                             \
      ga[i] = da_##NAME(av[k], bv[k], gv[k]);                                                                         \
      gb[i] = db_##NAME(av[k], bv[k], gv[k]);                                                                         \
    }                                                                                                                 \
  }                                                                                                                   \
  __kernel void binary_fwd_same_##NAME(__global const store_t* a, __global const store_t* b, __global store_t* y,     \
                                       long n, int op) {                                                              \
    real av[GP_EW_ITEMS], bv[GP_EW_ITEMS];                                                                            \
    for (int k = 0; k < GP_EW_ITEMS; ++k) {                                                                           \
      const long i = GP_EW_INDEX(k);                                                                                  \
      av[k] = i < n ? LOAD(a, i) : R(0);                                                                              \
      bv[k] = i < n ? LOAD(b, i) : R(0);                                                                              \
    }                                                                                                                 \
    for (int k = 0; k < GP_EW_ITEMS; ++k) {                                                                           \
      const long i = GP_EW_INDEX(k);                                                                                  \
      if (i < n) STORE(y, i, fb_##NAME(av[k], bv[k]));                                                                \
    }                                                                                                                 \
  }                                                                                                                   \
  __kernel void binary_bwd_same_##NAME(__global const store_t* a, __global const store_t* b,                          \
                                       __global const store_t* g, __global store_t* ga, __global store_t* gb, long n, \
                                       int op) {                                                                      \
    real av[GP_EW_ITEMS], bv[GP_EW_ITEMS], gv[GP_EW_ITEMS];                                                           \
    for (int k = 0; k < GP_EW_ITEMS; ++k) {                                                                           \
      const long i = GP_EW_INDEX(k);                                                                                  \
      av[k] = i < n ? LOAD(a, i) : R(0);                                                                              \
      bv[k] = i < n ? LOAD(b, i) : R(0);                                                                              \
      gv[k] = i < n ? LOAD(g, i) : R(0);                                                                              \
    }                                                                                                                 \
    for (int k = 0; k < GP_EW_ITEMS; ++k) {                                                                           \
      const long i = GP_EW_INDEX(k);                                                                                  \
      if (i >= n) return;                                                                                             \
      STORE(ga, i, da_##NAME(av[k], bv[k], gv[k]));                                                                   \
      STORE(gb, i, db_##NAME(av[k], bv[k], gv[k]));                                                                   \
    }                                                                                                                 \
  }

#ifdef GP_GENERIC_ELEMENTWISE
/* NAME is pasted at once: one more macro level would expand PoCL's `#define pow _cl_pow` */
#define GP_BINARY_F_CASE(NAME) \
  case GP_OP_##NAME:           \
    return fb_##NAME(a, b);
#define GP_BINARY_DA_CASE(NAME) \
  case GP_OP_##NAME:            \
    return da_##NAME(a, b, g);
#define GP_BINARY_DB_CASE(NAME) \
  case GP_OP_##NAME:            \
    return db_##NAME(a, b, g);
inline real fb_switch(int op, real a, real b) {
  switch (op) { GP_BINARY_OPS(GP_BINARY_F_CASE) }
  return R(0);
}
inline real da_switch(int op, real a, real b, real g) {
  switch (op) { GP_BINARY_OPS(GP_BINARY_DA_CASE) }
  return R(0);
}
inline real db_switch(int op, real a, real b, real g) {
  switch (op) { GP_BINARY_OPS(GP_BINARY_DB_CASE) }
  return R(0);
}
#define fb_any(a, b) fb_switch(op, a, b) /* op: the kernel's argument */
#define da_any(a, b, g) da_switch(op, a, b, g)
#define db_any(a, b, g) db_switch(op, a, b, g)
GP_DEFINE_BINARY(any)
#else
GP_BINARY_OPS(GP_DEFINE_BINARY)
#endif

// The gradient of a broadcast input: dst[j] sums src (the partial gradient at output size) over
// every output element that reads input element j, its "terms" t = 0 .. count - 1 (the broadcast
// dims' combinations, row-major). `out_dims` and `in_dims` are rank-4 padded, in_dims[d] is 1
// along broadcast dims. A long sum is split into chunks of `chunk_terms`, each chunk's sum written
// to partials[chunk * in_numel + j] and the chunks added in order by bcast_sum_chunks: one
// work-group per gradient element left most of a GPU idle when a few elements sum 2^20 terms.
typedef struct {
  int4 kept;    // j's coordinates, along broadcast dims 0
  int4 spread;  // the broadcast dims' extents, 1 along kept dims
} BcastTerms;

inline BcastTerms bcast_terms(int j, int4 out_dims, int4 in_dims) {
  BcastTerms b;
  b.kept.w = in_dims.w == 1 ? 0 : j % in_dims.w;
  j /= in_dims.w;
  b.kept.z = in_dims.z == 1 ? 0 : j % in_dims.z;
  j /= in_dims.z;
  b.kept.y = in_dims.y == 1 ? 0 : j % in_dims.y;
  j /= in_dims.y;
  b.kept.x = in_dims.x == 1 ? 0 : j;
  b.spread = (int4)(in_dims.x == 1 ? out_dims.x : 1, in_dims.y == 1 ? out_dims.y : 1, in_dims.z == 1 ? out_dims.z : 1,
                    in_dims.w == 1 ? out_dims.w : 1);
  return b;
}

// The output index of term t.
inline int bcast_term_index(const BcastTerms* b, int t, int4 out_dims) {
  const int w = b->kept.w + t % b->spread.w;
  t /= b->spread.w;
  const int z = b->kept.z + t % b->spread.z;
  t /= b->spread.z;
  const int y = b->kept.y + t % b->spread.y;
  const int x = b->kept.x + t / b->spread.y;
  return ((x * out_dims.y + y) * out_dims.z + z) * out_dims.w + w;
}

inline int bcast_count(int4 out_dims, int4 in_dims) {
  const BcastTerms b = bcast_terms(0, out_dims, in_dims);
  return b.spread.x * b.spread.y * b.spread.z * b.spread.w;
}

// The element's sum of the chunk's terms in dst (one chunk) or in partials. Groups: in_numel *
// chunks, group g sums chunk g / in_numel of element g % in_numel, its items striding over the
// chunk: consecutive terms are consecutive output elements when the innermost dim is broadcast.
__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void bcast_reduce(__global const real* src,
                                                                              __global store_t* dst,
                                                                              __global real* partials, int4 out_dims,
                                                                              int4 in_dims, int in_numel, int chunks,
                                                                              int chunk_terms) {
  __local real scratch[GP_WG];
  const int j = get_group_id(0) % in_numel, chunk = get_group_id(0) / in_numel;
  const BcastTerms b = bcast_terms(j, out_dims, in_dims);
  const int end = min((chunk + 1) * chunk_terms, bcast_count(out_dims, in_dims));
  real acc = R(0);
  for (int t = chunk * chunk_terms + get_local_id(0); t < end; t += GP_WG)
    acc += src[bcast_term_index(&b, t, out_dims)];
  const real total = wg_sum(acc, scratch);
  if (get_local_id(0) != 0) return;
  if (chunks == 1)
    STORE(dst, j, total);
  else
    partials[chunk * in_numel + j] = total;
}

// The same where the innermost dim is kept (a bias gradient): a group holds GP_BCAST_COLUMNS
// consecutive elements (consecutive output elements for each term) and GP_WG / GP_BCAST_COLUMNS
// lanes striding over the chunk's terms; the lanes' sums are added in lane order. Groups: tiles
// of columns * chunks.
#define GP_BCAST_COLUMNS 32
__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void bcast_reduce_columns(
    __global const real* src, __global store_t* dst, __global real* partials, int4 out_dims, int4 in_dims, int in_numel,
    int chunks, int chunk_terms) {
  __local real scratch[GP_WG];
  const int lanes = GP_WG / GP_BCAST_COLUMNS, lid = get_local_id(0);
  const int column = lid % GP_BCAST_COLUMNS, lane = lid / GP_BCAST_COLUMNS;
  const int tiles = (in_numel + GP_BCAST_COLUMNS - 1) / GP_BCAST_COLUMNS;
  const int j = (get_group_id(0) % tiles) * GP_BCAST_COLUMNS + column, chunk = get_group_id(0) / tiles;
  real acc = R(0);
  if (j < in_numel) {
    const BcastTerms b = bcast_terms(j, out_dims, in_dims);
    const int end = min((chunk + 1) * chunk_terms, bcast_count(out_dims, in_dims));
    for (int t = chunk * chunk_terms + lane; t < end; t += lanes) acc += src[bcast_term_index(&b, t, out_dims)];
  }
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lane != 0 || j >= in_numel) return;
  real total = scratch[column];
  for (int l = 1; l < lanes; ++l) total += scratch[l * GP_BCAST_COLUMNS + column];
  if (chunks == 1)
    STORE(dst, j, total);
  else
    partials[chunk * in_numel + j] = total;
}

// dst[j] = the chunks' sums of element j, in chunk order.
__kernel void bcast_sum_chunks(__global const real* partials, __global store_t* dst, int in_numel, int chunks) {
  const int j = get_global_id(0);
  if (j >= in_numel) return;
  real s = partials[j];
  for (int c = 1; c < chunks; ++c) s += partials[c * in_numel + j];
  STORE(dst, j, s);
}

// dst = scale * src, converting the real work type to the storage type.
__kernel void cast_real(__global const real* src, __global store_t* dst, int n, real scale) {
  const int i = get_global_id(0);
  if (i < n) STORE(dst, i, scale * src[i]);
}
