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
inline real line_lse_parts(__global const store_t* x, int base, int n, int inner, __local real* sv, __local int* si,
                           real* rest) {
  real m = -INFINITY;
  int am = 0;
  for (int j = get_local_id(0); j < n; j += GP_WG) {
    real v = LOAD(x, base + j * inner);
    if (v > m) {
      m = v;
      am = j;
    }
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
                            __global store_t* dx, int n, int inner, int correction, const int mode, __local real* sv,
                            __local int* si) {
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
    // The first maximum takes the cotangent, as the contract's: at a tie (outside the catalog's
    // domain) every tied maximum took it, k times the cotangent in all.
    real m = -INFINITY;
    int am = 0;
    for (int j = lid; j < n; j += GP_WG) {
      const real v = LOAD(x, base + j * inner);
      if (v > m) {
        m = v;
        am = j;
      }
    }
    am = wg_argmax(m, am, sv, si);
    for (int j = lid; j < n; j += GP_WG) STORE(dx, base + j * inner, j == am ? gv : R(0));
  } else {
    real v = mode == RED_MEAN ? gv / (real)n : gv;
    for (int j = lid; j < n; j += GP_WG) STORE(dx, base + j * inner, v);
  }
}

#define GP_REDUCE_OPS(X) X(sum, RED_SUM) X(mean, RED_MEAN) X(max, RED_MAX) X(logsumexp, RED_LSE) X(variance, RED_VAR)

#define GP_DEFINE_REDUCE(NAME, MODE)                                                                         \
  __kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void reduce_fwd_##NAME(                        \
      __global const store_t* x, __global store_t* y, int outer, int n, int inner, int correction) {         \
    __local real sv[GP_WG];                                                                                  \
    __local int si[GP_WG];                                                                                   \
    reduce_line_fwd(x, y, n, inner, correction, MODE, sv, si);                                               \
  }                                                                                                          \
  __kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void reduce_bwd_##NAME(                        \
      __global const store_t* x, __global const store_t* y, __global const store_t* g, __global store_t* dx, \
      int outer, int n, int inner, int correction) {                                                         \
    __local real sv[GP_WG];                                                                                  \
    __local int si[GP_WG];                                                                                   \
    reduce_line_bwd(x, y, g, dx, n, inner, correction, MODE, sv, si);                                        \
  }

GP_REDUCE_OPS(GP_DEFINE_REDUCE)

// Long lines (dispatch_rowwise.cpp's kLongLine): one work-group per line would leave the device
// but one compute unit for a reduction of 10^7 elements (17 GB/s of the H200's 4.8 TB/s). Such a
// line is split into chunks of `chunk` elements, one work-group each (group = line * chunks +
// chunk). A statistic takes two phases: every chunk's partial (reduce_chunk), then one group per
// line combining its partials in chunk order (reduce_combine), so that every group reading a
// line's statistic reads the same value. The forward then finishes each line (reduce_finish), the
// backward writes every element from its line's statistics (reduce_bwd_long), with the same
// formulas as the one-group kernels above. Addresses are 64-bit; indices within a line are int
// (the dispatch refuses longer lines).
#define STAT_SUM 0       // sum of x
#define STAT_ARGMAX 1    // the smallest index holding the largest x, and that x
#define STAT_EXP_REST 2  // sum of exp(x - m) over the elements other than the argmax (m, am: stat)
#define STAT_SQ_DEV 3    // sum of (x - mean)^2, mean = stat / n

__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void reduce_chunk(
    __global const store_t* x, __global real* part_v, __global int* part_i, __global const real* stat_v,
    __global const int* stat_i, long n, long inner, long chunk, int chunks, int stat) {
  __local real sv[GP_WG];
  __local int si[GP_WG];
  const long group = get_group_id(0);
  const LineChunk c = line_chunk(group, n, inner, chunk, chunks);
  const long line = c.line, begin = c.begin, end = c.end, base = c.base;
  const int lid = get_local_id(0);
  if (stat == STAT_ARGMAX) {
    real m = -INFINITY;
    int am = (int)begin;
    for (long j = begin + lid; j < end; j += GP_WG) {
      const real v = LOAD(x, base + j * inner);
      if (v > m) {
        m = v;
        am = (int)j;
      }
    }
    am = wg_argmax(m, am, sv, si);
    if (lid == 0) {
      part_v[group] = LOAD(x, base + (long)am * inner);
      part_i[group] = am;
    }
    return;
  }
  real acc = R(0);
  if (stat == STAT_SUM) {
    for (long j = begin + lid; j < end; j += GP_WG) acc += LOAD(x, base + j * inner);
  } else if (stat == STAT_EXP_REST) {
    const real m = stat_v[line];
    const int am = stat_i[line];
    for (long j = begin + lid; j < end; j += GP_WG)
      if (j != am) acc += exp(LOAD(x, base + j * inner) - m);
  } else {
    const real mean = stat_v[line] / (real)n;
    for (long j = begin + lid; j < end; j += GP_WG) {
      const real d = LOAD(x, base + j * inner) - mean;
      acc += d * d;
    }
  }
  acc = wg_sum(acc, sv);
  if (lid == 0) part_v[group] = acc;
}

__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void reduce_combine(__global const real* part_v,
                                                                                __global const int* part_i,
                                                                                __global real* stat_v,
                                                                                __global int* stat_i, int chunks,
                                                                                int stat) {
  __local real sv[GP_WG];
  __local int si[GP_WG];
  const long line = get_group_id(0);
  const int lid = get_local_id(0);
  __global const real* pv = part_v + line * chunks;
  if (stat == STAT_ARGMAX) {
    __global const int* pi = part_i + line * chunks;
    real m = -INFINITY;
    int am = INT_MAX;
    for (int c = lid; c < chunks; c += GP_WG)
      if (pv[c] > m || (pv[c] == m && pi[c] < am)) {
        m = pv[c];
        am = pi[c];
      }
    const real largest = wg_max(m, sv);
    am = wg_argmax(m, am, sv, si);
    if (lid == 0) {
      stat_v[line] = largest;
      stat_i[line] = am;
    }
    return;
  }
  real acc = R(0);
  for (int c = lid; c < chunks; c += GP_WG) acc += pv[c];
  acc = wg_sum(acc, sv);
  if (lid == 0) stat_v[line] = acc;
}

// One work item per line: the line's result from its statistics (s1: the sum or the maximum,
// s2: the second phase's sum).
__kernel void reduce_finish(__global const real* s1, __global const real* s2, __global store_t* y, long lines, long n,
                            int correction, int mode) {
  const long line = get_global_id(0);
  if (line >= lines) return;
  real r = s1[line];
  if (mode == RED_MEAN)
    r /= (real)n;
  else if (mode == RED_LSE)
    r = s1[line] + log1p(s2[line]);
  else if (mode == RED_VAR)
    r = s2[line] / (real)(n - correction);
  STORE(y, line, r);
}

// One work item per element of x: element (o, j, i) of line o * inner + i.
__kernel void reduce_bwd_long(__global const store_t* x, __global const store_t* y, __global const store_t* g,
                              __global store_t* dx, __global const real* s1, __global const int* s1_index,
                              __global const real* s2, long total, long n, long inner, int correction, int mode) {
  const long e = get_global_id(0);
  if (e >= total) return;
  const long line = long_line_of(e, n, inner);
  const real gv = LOAD(g, line);
  real v;
  if (mode == RED_LSE) {
    const real scale = gv / (R(1) + s2[line]);
    v = scale * exp(LOAD(x, e) - s1[line]);
  } else if (mode == RED_VAR) {
    const real scale = R(2) * gv / (real)(n - correction);
    v = scale * (LOAD(x, e) - s1[line] / (real)n);
  } else if (mode == RED_MAX) {
    v = e / inner % n == s1_index[line] ? gv : R(0);  // the first maximum (STAT_ARGMAX)
  } else {
    v = mode == RED_MEAN ? gv / (real)n : gv;
  }
  STORE(dx, e, v);
}
