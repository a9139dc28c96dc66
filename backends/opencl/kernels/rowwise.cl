// Row-wise ops: softmax, log_softmax (any axis), gumbel_softmax (last axis, noise and 1/tau)
// and layer_norm / rms_norm (last axis; `centred` = 0 for rms_norm: no mean, no bias). One
// work-group of GP_WG items per line of the [outer, n, inner] view; the backward recomputes the
// row statistics from x instead of trusting a stored 16-bit y. bspline_basis, a row per value,
// has no reduction to share: one work item per value, at the end of this file.

#define ROW_SOFTMAX 0
#define ROW_LOG_SOFTMAX 1

inline real row_z(__global const store_t* x, __global const store_t* noise, int k, int has_noise, real inv_tau) {
  real z = LOAD(x, k);
  if (has_noise) z = (z + LOAD(noise, k)) * inv_tau;
  return z;
}

// Max of z over the line and sum of exp(z - max).
inline real row_max_sum(__global const store_t* x, __global const store_t* noise, int base, int n, int inner,
                        int has_noise, real inv_tau, __local real* scratch, real* sum) {
  real m = -INFINITY;
  for (int j = get_local_id(0); j < n; j += GP_WG) m = fmax(m, row_z(x, noise, base + j * inner, has_noise, inv_tau));
  m = wg_max(m, scratch);
  real acc = R(0);
  for (int j = get_local_id(0); j < n; j += GP_WG)
    acc += exp(row_z(x, noise, base + j * inner, has_noise, inv_tau) - m);
  *sum = wg_sum(acc, scratch);
  return m;
}

__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void softmax_fwd(__global const store_t* x,
                                                                             __global const store_t* noise,
                                                                             __global store_t* y, int outer, int n,
                                                                             int inner, int has_noise, real inv_tau) {
  __local real scratch[GP_WG];
  const int base = line_base(get_group_id(0), inner, n);
  real s;
  real m = row_max_sum(x, noise, base, n, inner, has_noise, inv_tau, scratch, &s);
  for (int j = get_local_id(0); j < n; j += GP_WG) {
    int k = base + j * inner;
    real z = row_z(x, noise, k, has_noise, inv_tau) - m;
    STORE(y, k, exp(z) / s);
  }
}

// log_softmax: (x - m) - log1p(rest), rest the sum of exp(x - m) without the maximum's own 1
// (line_lse_parts): at a dominant maximum log S is tiny, and log of the rounded S would lose it.
__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void log_softmax_fwd(__global const store_t* x,
                                                                                 __global store_t* y, int outer, int n,
                                                                                 int inner) {
  __local real scratch[GP_WG];
  __local int scratch_i[GP_WG];
  const int base = line_base(get_group_id(0), inner, n);
  real rest;
  real m = line_lse_parts(x, base, n, inner, scratch, scratch_i, &rest);
  real log_s = log1p(rest);
  for (int j = get_local_id(0); j < n; j += GP_WG) STORE(y, base + j * inner, (LOAD(x, base + j * inner) - m) - log_s);
}

// softmax: dz = p (g - sum g p); log_softmax: dz = g - p sum g; dx = dz / tau.
__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void softmax_bwd(
    __global const store_t* x, __global const store_t* noise, __global const store_t* g, __global store_t* dx,
    int outer, int n, int inner, int mode, int has_noise, real inv_tau) {
  __local real scratch[GP_WG];
  const int base = line_base(get_group_id(0), inner, n);
  real s;
  real m = row_max_sum(x, noise, base, n, inner, has_noise, inv_tau, scratch, &s);
  real acc = R(0);
  for (int j = get_local_id(0); j < n; j += GP_WG) {
    int k = base + j * inner;
    real gv = LOAD(g, k);
    acc += mode == ROW_SOFTMAX ? gv * exp(row_z(x, noise, k, has_noise, inv_tau) - m) / s : gv;
  }
  real dot = wg_sum(acc, scratch);
  for (int j = get_local_id(0); j < n; j += GP_WG) {
    int k = base + j * inner;
    real p = exp(row_z(x, noise, k, has_noise, inv_tau) - m) / s;
    real gv = LOAD(g, k);
    real dz = mode == ROW_SOFTMAX ? p * (gv - dot) : gv - p * dot;
    STORE(dx, k, dz * inv_tau);
  }
}

// softmax and log_softmax over a long line (dispatch_rowwise.cpp's kLongLine): one work-group
// per line left the H200 one compute unit for 131,072 columns (8.9 GB/s). The line's maximum m and
// the sum `rest` of exp(x - m) over its other elements come from reduction.cl's chunk passes
// (STAT_ARGMAX, STAT_EXP_REST), the backward's sum of g p (or of g) likewise; every element is then
// one work item, with the one-group kernels' formulas: exp(x - m) / (1 + rest), (x - m) -
// log1p(rest); dz = p (g - sum g p), or g - p sum g.
__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void softmax_dot_chunk(
    __global const store_t* x, __global const store_t* g, __global real* part_v, __global const real* m_v,
    __global const real* rest_v, long n, long inner, long chunk, int chunks) {
  __local real scratch[GP_WG];
  const LineChunk c = line_chunk(get_group_id(0), n, inner, chunk, chunks);
  const real m = m_v[c.line], s = R(1) + rest_v[c.line];
  real acc = R(0);
  for (long j = c.begin + get_local_id(0); j < c.end; j += GP_WG) {
    const long k = c.base + j * inner;
    acc += LOAD(g, k) * exp(LOAD(x, k) - m) / s;
  }
  acc = wg_sum(acc, scratch);
  if (get_local_id(0) == 0) part_v[get_group_id(0)] = acc;
}

__kernel void softmax_long_fwd(__global const store_t* x, __global store_t* y, __global const real* m_v,
                               __global const real* rest_v, long total, long n, long inner, int mode) {
  const long e = get_global_id(0);
  if (e >= total) return;
  const long line = long_line_of(e, n, inner);
  const real z = LOAD(x, e) - m_v[line];
  STORE(y, e, mode == ROW_SOFTMAX ? exp(z) / (R(1) + rest_v[line]) : z - log1p(rest_v[line]));
}

__kernel void softmax_long_bwd(__global const store_t* x, __global const store_t* g, __global store_t* dx,
                               __global const real* m_v, __global const real* rest_v, __global const real* dot_v,
                               long total, long n, long inner, int mode) {
  const long e = get_global_id(0);
  if (e >= total) return;
  const long line = long_line_of(e, n, inner);
  const real p = exp(LOAD(x, e) - m_v[line]) / (R(1) + rest_v[line]);
  const real gv = LOAD(g, e);
  STORE(dx, e, mode == ROW_SOFTMAX ? p * (gv - dot_v[line]) : gv - p * dot_v[line]);
}

// Mean and 1/sqrt(var + eps) of row r (population variance, two passes); without centring the
// mean is 0 and var the mean square.
inline real2 ln_stats(__global const store_t* x, int base, int n, real eps, int centred, __local real* scratch) {
  real acc = R(0);
  if (centred)
    for (int j = get_local_id(0); j < n; j += GP_WG) acc += LOAD(x, base + j);
  real mean = centred ? wg_sum(acc, scratch) / (real)n : R(0);
  acc = R(0);
  for (int j = get_local_id(0); j < n; j += GP_WG) {
    real d = LOAD(x, base + j) - mean;
    acc += d * d;
  }
  real var = wg_sum(acc, scratch) / (real)n;
  return (real2)(mean, R(1) / sqrt(var + eps));
}

__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void layer_norm_fwd(__global const store_t* x,
                                                                                __global const store_t* w,
                                                                                __global const store_t* b,
                                                                                __global store_t* y, int rows, int n,
                                                                                real eps, int centred) {
  __local real scratch[GP_WG];
  const int base = get_group_id(0) * n;
  real2 st = ln_stats(x, base, n, eps, centred, scratch);
  // one expression each, so that the compiler may contract the bias add as before
  for (int j = get_local_id(0); j < n; j += GP_WG)
    STORE(
        y, base + j,
        centred ? (LOAD(x, base + j) - st.x) * st.y * LOAD(w, j) + LOAD(b, j) : LOAD(x, base + j) * st.y * LOAD(w, j));
}

// dx = rstd (w g - mean(w g) - xhat mean(w g xhat)); also saves (mean, rstd) per row for the
// weight and bias gradients.
__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void layer_norm_bwd_x(
    __global const store_t* x, __global const store_t* w, __global const store_t* g, __global store_t* dx,
    __global real* stats, int rows, int n, real eps, int centred) {
  __local real scratch[GP_WG];
  const int row = get_group_id(0);
  const int base = row * n;
  real2 st = ln_stats(x, base, n, eps, centred, scratch);
  real a1 = R(0), a2 = R(0);
  for (int j = get_local_id(0); j < n; j += GP_WG) {
    real wg = LOAD(w, j) * LOAD(g, base + j);
    a1 += wg;
    a2 += wg * ((LOAD(x, base + j) - st.x) * st.y);  // w g times xhat: (w g)(x - mean) overflows first
  }
  real c1 = centred ? wg_sum(a1, scratch) / (real)n : R(0);
  real c2 = wg_sum(a2, scratch) / (real)n;
  for (int j = get_local_id(0); j < n; j += GP_WG) {
    real xhat = (LOAD(x, base + j) - st.x) * st.y;
    STORE(dx, base + j, st.y * (LOAD(w, j) * LOAD(g, base + j) - c1 - xhat * c2));
  }
  if (get_local_id(0) == 0) {
    stats[2 * row] = st.x;
    stats[2 * row + 1] = st.y;
  }
}

// dw[j] = sum_r g[r,j] xhat[r,j], db[j] = sum_r g[r,j]: one work-group per column.
__kernel __attribute__((reqd_work_group_size(GP_WG, 1, 1))) void layer_norm_bwd_wb(
    __global const store_t* x, __global const store_t* g, __global const real* stats, __global store_t* dw,
    __global store_t* db, int rows, int n) {
  __local real scratch[GP_WG];
  const int j = get_group_id(0);
  real aw = R(0), ab = R(0);
  for (int r = get_local_id(0); r < rows; r += GP_WG) {
    real gv = LOAD(g, r * n + j);
    aw += gv * (LOAD(x, r * n + j) - stats[2 * r]) * stats[2 * r + 1];
    ab += gv;
  }
  real sw = wg_sum(aw, scratch);
  real sb = wg_sum(ab, scratch);
  if (get_local_id(0) == 0) {
    STORE(dw, j, sw);
    STORE(db, j, sb);
  }
}

// bspline_basis in the knot coordinate u = (x + 1) * grid / 2 (knots at the integers; the
// recursion is derived in reference/bspline_basis.cpp). n[r] = B_{s+order-degree+r, degree} at
// fraction f of the span [s, s + 1): each level's terms are nonnegative.
#define BSPLINE_MAX_ORDER 5
inline void bspline_bases(real f, int degree, real* n) {
  n[0] = R(1);
  for (int d = 1; d <= degree; ++d) {
    real left = R(0);  // the term of n[r - 1], carried to the next r
    for (int r = 0; r < d; ++r) {
      const real nr = n[r];
      n[r] = r == 0 ? (R(1) - f) * nr / (real)d : (left + ((real)(r + 1) - f) * nr) / (real)d;
      left = (f + (real)(d - r - 1)) * nr;
    }
    n[d] = left / (real)d;
  }
}

// False outside [t_0, t_{grid + 2 order}), where every basis is zero.
inline bool bspline_span(real x, int order, int grid, int* s, real* f) {
  const real u = (x + R(1)) * ((real)grid * R(0.5));
  if (u < (real)(-order) || !(u < (real)(grid + order))) return false;
  const real fl = floor(u);
  *s = (int)fl;
  *f = u - fl;
  return true;
}

__kernel void bspline_fwd(__global const store_t* x, __global store_t* y, int count, int order, int grid) {
  const int v = get_global_id(0);
  if (v >= count) return;
  const int nb = grid + order;
  int s = 0;
  real f = R(0), n[BSPLINE_MAX_ORDER + 1];
  const bool inside = bspline_span(LOAD(x, v), order, grid, &s, &f);
  if (inside) bspline_bases(f, order, n);
  for (int m = 0; m < nb; ++m) STORE(y, v * nb + m, inside && m >= s && m <= s + order ? n[m - s] : R(0));
}

// dx = (grid / 2) sum_r q[r] (g_{s+1+r} - g_{s+r}), q the bases of degree order - 1, g zero
// outside the row.
inline real bspline_g(__global const store_t* g, int row, int nb, int m) {
  return m >= 0 && m < nb ? LOAD(g, row + m) : R(0);
}
__kernel void bspline_bwd(__global const store_t* x, __global const store_t* g, __global store_t* dx, int count,
                          int order, int grid) {
  const int v = get_global_id(0);
  if (v >= count) return;
  const int nb = grid + order, row = v * nb;
  int s = 0;
  real f = R(0), q[BSPLINE_MAX_ORDER + 1], sum = R(0);
  if (bspline_span(LOAD(x, v), order, grid, &s, &f)) {
    bspline_bases(f, order - 1, q);
    for (int r = 0; r < order; ++r) sum += q[r] * (bspline_g(g, row, nb, s + 1 + r) - bspline_g(g, row, nb, s + r));
  }
  STORE(dx, v, (real)grid * R(0.5) * sum);
}
