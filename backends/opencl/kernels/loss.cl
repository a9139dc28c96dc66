// Losses with a scalar output, reduced in two stages: loss_partial (or ce_rows) leaves one real
// per work-group (or row), sum_partials adds them in a single work-group and scales.
// mode: 0 mse (a - b)^2, 1 bce_with_logits max(a,0) - a b + log1p(e^-|a|).

#define LOSS_MSE 0
#define LOSS_BCE 1

inline real loss_term(real a, real b, int mode) {
  if (mode == LOSS_MSE) return (a - b) * (a - b);
  return fmax(a, R(0)) - a * b + log1p(exp(-fabs(a)));
}

__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void loss_partial(__global const store_t* a,
                                                                              __global const store_t* b,
                                                                              __global real* partial, int n, int mode) {
  __local real scratch[GP_WG];
  real acc = R(0);
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc += loss_term(LOAD(a, i), LOAD(b, i), mode);
  real s = wg_sum(acc, scratch);
  if (get_local_id(0) == 0) partial[get_group_id(0)] = s;
}

__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void sum_partials(__global const real* partial,
                                                                              __global store_t* y, int count,
                                                                              real scale) {
  __local real scratch[GP_WG];
  real acc = R(0);
  for (int i = get_local_id(0); i < count; i += GP_WG) acc += partial[i];
  real s = wg_sum(acc, scratch);
  if (get_local_id(0) == 0) STORE(y, 0, s * scale);
}

// Elementwise gradients of mse / bce given the scalar upstream gradient g[0]; `scale` is 1/n
// for a mean (always for bce), 1 for a sum. A null-gradient input gets want_* = 0.
__kernel void loss_bwd(__global const store_t* a, __global const store_t* b, __global const store_t* g,
                       __global store_t* da, __global store_t* db, int n, int mode, real scale, int want_a,
                       int want_b) {
  const int i = get_global_id(0);
  if (i >= n) return;
  real av = LOAD(a, i), bv = LOAD(b, i), gv = LOAD(g, 0) * scale;
  if (mode == LOSS_MSE) {
    real d = R(2) * (av - bv) * gv;
    if (want_a) STORE(da, i, d);
    if (want_b) STORE(db, i, -d);
  } else {
    if (want_a) STORE(da, i, (sigmoid_r(av) - bv) * gv);
    if (want_b) STORE(db, i, -av * gv);
  }
}

// rowloss[r] = -log_softmax(x[r])[t] = (max - x[r, t]) + log1p(rest) (line_lse_parts: rest is the
// sum of exp(x - max) without the maximum's own 1); an out-of-range target gives NaN.
__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void ce_rows(__global const store_t* x,
                                                                         __global const int* t, __global real* rowloss,
                                                                         int B, int C) {
  __local real scratch[GP_WG];
  __local int scratch_i[GP_WG];
  const int r = get_group_id(0);
  real rest;
  real m = line_lse_parts(x, r * C, C, 1, scratch, scratch_i, &rest);
  if (get_local_id(0) == 0) {
    int k = t[r];
    rowloss[r] = (k >= 0 && k < C) ? (m - LOAD(x, r * C + k)) + log1p(rest) : NAN;
  }
}

// dx[r, j] = g / B (softmax(x[r])_j - [j == t[r]]). At a target holding the maximum,
// p - 1 = -rest / (1 + rest): the subtraction would cancel when that maximum dominates.
__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void ce_bwd(__global const store_t* x,
                                                                        __global const int* t,
                                                                        __global const store_t* g, __global store_t* dx,
                                                                        int B, int C) {
  __local real scratch[GP_WG];
  __local int scratch_i[GP_WG];
  const int r = get_group_id(0);
  real rest;
  real m = line_lse_parts(x, r * C, C, 1, scratch, scratch_i, &rest);
  real s = R(1) + rest;
  real gv = LOAD(g, 0) / (real)B;
  int k = t[r];
  for (int j = get_local_id(0); j < C; j += GP_WG) {
    real xj = LOAD(x, r * C + j);
    real p = exp(xj - m) / s;
    real d = j != k ? p : (xj == m ? -rest / s : p - R(1));
    STORE(dx, r * C + j, gv * d);
  }
}

// cross_entropy over rows longer than dispatch_rowwise.cpp's kLongLine: each row's maximum m and
// the sum `rest` of its other exponentials come from reduction.cl's chunk passes (logsumexp's
// statistics); then ce_rows' and ce_bwd's formulas, one work item per row or per element.
__kernel void ce_long_rows(__global const store_t* x, __global const int* t, __global const real* m_v,
                           __global const real* rest_v, __global real* rowloss, int B, long C) {
  const int r = get_global_id(0);
  if (r >= B) return;
  const int k = t[r];
  rowloss[r] = (k >= 0 && k < C) ? (m_v[r] - LOAD(x, r * C + k)) + log1p(rest_v[r]) : NAN;
}

__kernel void ce_long_bwd(__global const store_t* x, __global const int* t, __global const store_t* g,
                          __global store_t* dx, __global const real* m_v, __global const real* rest_v, long total,
                          long C, int B) {
  const long e = get_global_id(0);
  if (e >= total) return;
  const long r = e / C, j = e % C;
  const real m = m_v[r], rest = rest_v[r], s = R(1) + rest;
  const real xj = LOAD(x, e);
  const real p = exp(xj - m) / s;
  const real d = j != t[r] ? p : (xj == m ? -rest / s : p - R(1));
  STORE(dx, e, LOAD(g, 0) / (real)B * d);
}
