// Reductions over one axis. The tensor is viewed as [outer, n, inner] (core/op.hpp
// split_at_axis); one work-group of GP_WG items reduces one line (o, i), whose n elements are
// `inner` apart. The output of line (o, i) sits at o * inner + i with or without keepdim.
// One kernel pair per reduction (reduce_fwd_NAME / reduce_bwd_NAME), each a one-line
// instantiation of the line function below with its mode as a compile-time constant, so that
// every kernel only holds the barriers it needs.

#define RED_SUM 0
#define RED_MEAN 1
#define RED_MAX 2
#define RED_LSE 3
#define RED_VAR 4

// Mean of the line, shared by variance forward and backward.
inline real line_mean(__global const store_t* x, int base, int n, int inner, __local real* scratch) {
  real acc = R(0);
  for (int j = get_local_id(0); j < n; j += GP_WG) acc += LOAD(x, base + j * inner);
  return wg_sum(acc, scratch) / (real)n;
}

// Max and the sum of exp(x - max) over the other elements (so that the log is log1p-accurate).
inline real line_lse_parts(__global const store_t* x, int base, int n, int inner, __local real* sv,
                           __local int* si, real* rest) {
  real m = -INFINITY;
  int am = 0;
  for (int j = get_local_id(0); j < n; j += GP_WG) {
    real v = LOAD(x, base + j * inner);
    if (v > m) { m = v; am = j; }
  }
  am = wg_argmax(m, am, sv, si);
  m = LOAD(x, base + am * inner);
  real acc = R(0);
  for (int j = get_local_id(0); j < n; j += GP_WG)
    if (j != am) acc += exp(LOAD(x, base + j * inner) - m);
  *rest = wg_sum(acc, sv);
  return m;
}

inline void reduce_line_fwd(__global const store_t* x, __global store_t* y, int n, int inner, int correction,
                            const int mode, __local real* sv, __local int* si) {
  const int line = get_group_id(0);
  const int base = line_base(line, inner, n);
  const int lid = get_local_id(0);
  real result;
  if (mode == RED_MAX) {
    real m = -INFINITY;
    for (int j = lid; j < n; j += GP_WG) m = fmax(m, LOAD(x, base + j * inner));
    result = wg_max(m, sv);
  } else if (mode == RED_LSE) {
    real rest;
    real m = line_lse_parts(x, base, n, inner, sv, si, &rest);
    result = m + log1p(rest);
  } else if (mode == RED_VAR) {
    real mean = line_mean(x, base, n, inner, sv);
    real acc = R(0);
    for (int j = lid; j < n; j += GP_WG) {
      real d = LOAD(x, base + j * inner) - mean;
      acc += d * d;
    }
    result = wg_sum(acc, sv) / (real)(n - correction);
  } else {
    real acc = R(0);
    for (int j = lid; j < n; j += GP_WG) acc += LOAD(x, base + j * inner);
    result = wg_sum(acc, sv);
    if (mode == RED_MEAN) result /= (real)n;
  }
  if (lid == 0) STORE(y, line, result);
}

inline void reduce_line_bwd(__global const store_t* x, __global const store_t* y, __global const store_t* g,
                            __global store_t* dx, int n, int inner, int correction, const int mode,
                            __local real* sv, __local int* si) {
  const int line = get_group_id(0);
  const int base = line_base(line, inner, n);
  const int lid = get_local_id(0);
  const real gv = LOAD(g, line);
  if (mode == RED_LSE) {
    real rest;
    real m = line_lse_parts(x, base, n, inner, sv, si, &rest);
    real scale = gv / (R(1) + rest);
    for (int j = lid; j < n; j += GP_WG) STORE(dx, base + j * inner, scale * exp(LOAD(x, base + j * inner) - m));
  } else if (mode == RED_VAR) {
    real mean = line_mean(x, base, n, inner, sv);
    real scale = R(2) * gv / (real)(n - correction);
    for (int j = lid; j < n; j += GP_WG) STORE(dx, base + j * inner, scale * (LOAD(x, base + j * inner) - mean));
  } else if (mode == RED_MAX) {
    // The domain guarantees a unique maximum; y holds it exactly (max does not round).
    real m = LOAD(y, line);
    for (int j = lid; j < n; j += GP_WG) STORE(dx, base + j * inner, LOAD(x, base + j * inner) == m ? gv : R(0));
  } else {
    real v = mode == RED_MEAN ? gv / (real)n : gv;
    for (int j = lid; j < n; j += GP_WG) STORE(dx, base + j * inner, v);
  }
}

#define GP_REDUCE_OPS(X) X(sum, RED_SUM) X(mean, RED_MEAN) X(max, RED_MAX) X(logsumexp, RED_LSE) X(variance, RED_VAR)

#define GP_DEFINE_REDUCE(NAME, MODE)                                                                       \
  __kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void reduce_fwd_##NAME(                      \
      __global const store_t* x, __global store_t* y, int outer, int n, int inner, int correction) {       \
    __local real sv[GP_WG];                                                                                \
    __local int si[GP_WG];                                                                                 \
    reduce_line_fwd(x, y, n, inner, correction, MODE, sv, si);                                             \
  }                                                                                                        \
  __kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void reduce_bwd_##NAME(                      \
      __global const store_t* x, __global const store_t* y, __global const store_t* g, __global store_t* dx, \
      int outer, int n, int inner, int correction) {                                                      \
    __local real sv[GP_WG];                                                                                \
    __local int si[GP_WG];                                                                                 \
    reduce_line_bwd(x, y, g, dx, n, inner, correction, MODE, sv, si);                                      \
  }

GP_REDUCE_OPS(GP_DEFINE_REDUCE)
