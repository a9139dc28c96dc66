// layer_norm over the last axis: x [..., N], weight w [N], bias b [N];
// y = (x - mu) / sqrt(var + eps) * w + b, var the population variance of the row.
// The error scale follows the stages of a two-pass kernel (reference/README.md):
//   mu = sum x / N                scale_mu  = sum|x|                        (mean rule)
//   d_j = x_j - mu                scale_d_j = |d_j| + scale_mu
//   v = sum d^2 / N + eps         scale_v   = (N + 2) sum d^2 / N + u32 N scale_mu^2 / N + v
//   r = 1 / sqrt(v)               relative  rel_r = scale_v / (2 v) + 2
//   xhat_j = d_j r                scale_xh  = |r| scale_d_j + |xhat_j| (rel_r + 1)
//   y_j = xhat_j w_j + b_j        scale_y   = |w_j| scale_xh + 2 |xhat_j w_j| + |b_j| + |y_j|
// Gradients: with gh = dy * w, A = mean(gh), B = mean(gh * xhat),
//   dx_j = r (gh_j - A - xhat_j B); dw = sum over rows dy * xhat; db = sum over rows dy,
// their scales propagate the stage scales above with |partial derivatives|.
#include <cmath>

#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

constexpr long double kU32 = 1.0L / (1 << 24);  // second-order guard, as for variance (reductions.cpp)

template <class R>
struct NormRow {
  R r = 0, rel_r = 0;
  std::vector<R> xhat, xhat_scale;
};

template <class R>
NormRow<R> normalise(const R* x, std::int64_t n_elems, double eps) {
  using std::sqrt;
  const R n = real<R>(n_elems);
  R sum(0), abs_sum(0);
  for (std::int64_t j = 0; j < n_elems; ++j) sum += x[j], abs_sum += mag(x[j]);
  const R mean = sum / n;
  R squares(0);
  for (std::int64_t j = 0; j < n_elems; ++j) squares += (x[j] - mean) * (x[j] - mean);
  const R v = squares / n + eps;
  const R v_scale = (n + 2) * squares / n + R(kU32) * abs_sum * abs_sum + v;

  NormRow<R> row;
  row.r = 1 / sqrt(v);
  row.rel_r = v_scale / (2 * v) + 2;
  row.xhat.resize(at(n_elems));
  row.xhat_scale.resize(at(n_elems));
  for (std::int64_t j = 0; j < n_elems; ++j) {
    R d = x[j] - mean;
    row.xhat[at(j)] = d * row.r;
    row.xhat_scale[at(j)] = mag(row.r) * (mag(d) + abs_sum) + mag(row.xhat[at(j)]) * (row.rel_r + 1);
  }
  return row;
}

std::int64_t row_length(const OpCall& call) {
  const Shape& s = call.input_shapes[0];
  return s[s.rank() - 1];
}

// Sum over rows of per-row terms landing on one weight/bias element: n * sum|t| + sum s for n > 1.
template <class R>
R accumulated_scale(std::int64_t rows, const R& abs_sum, const R& term_scales) {
  return rows > 1 ? real<R>(rows) * abs_sum + term_scales : term_scales;
}

}  // namespace

template <class R>
BasicRefTensor<R> layer_norm_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const std::int64_t n = row_length(call), rows = in[0].numel() / n;
  const auto &x = in[0].v, &w = in[1].v, &b = in[2].v;
  BasicRefTensor<R> y = zeros<R>(call.output_shape);
  for (std::int64_t row = 0; row < rows; ++row) {
    NormRow<R> nr = normalise(&x[at(row * n)], n, call.attrs.eps);
    for (std::int64_t j = 0; j < n; ++j) {
      std::size_t k = at(row * n + j), c = at(j);
      R xh = nr.xhat[c], yv = xh * w[c] + b[c];
      y.v[k] = yv;
      y.scale[k] = mag(w[c]) * nr.xhat_scale[c] + 2 * mag(xh * w[c]) + mag(b[c]) + mag(yv);
    }
  }
  return y;
}

template <class R>
std::vector<BasicRefTensor<R>> layer_norm_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                              const BasicRefTensor<R>& dout) {
  const std::int64_t n = row_length(call), rows = in[0].numel() / n;
  const auto &x = in[0].v, &w = in[1].v, &dy = dout.v;
  BasicRefTensor<R> dx = zeros<R>(in[0].shape), dw = zeros<R>(in[1].shape), db = zeros<R>(in[2].shape);
  std::vector<R> dw_abs(at(n), R(0)), dw_terms(at(n), R(0)), db_abs(at(n), R(0));
  for (std::int64_t row = 0; row < rows; ++row) {
    NormRow<R> nr = normalise(&x[at(row * n)], n, call.attrs.eps);
    const R* g = &dy[at(row * n)];
    R a(0), a_abs(0), b(0), b_abs(0), b_prop(0);
    for (std::int64_t j = 0; j < n; ++j) {
      R gh = g[j] * w[at(j)];
      a += gh, a_abs += mag(gh);
      b += gh * nr.xhat[at(j)], b_abs += mag(gh * nr.xhat[at(j)]), b_prop += mag(gh) * nr.xhat_scale[at(j)];
    }
    a /= real<R>(n), b /= real<R>(n);
    const R a_scale = 2 * a_abs, b_scale = 2 * b_abs + b_prop / real<R>(n);
    for (std::int64_t j = 0; j < n; ++j) {
      std::size_t k = at(row * n + j), c = at(j);
      R xh = nr.xhat[c], gh = g[j] * w[c];
      R inner = gh - a - xh * b;
      R inner_scale =
          mag(gh) + mag(a) + 2 * mag(xh * b) + a_scale + mag(xh) * b_scale + mag(b) * nr.xhat_scale[c] + mag(inner);
      dx.v[k] = nr.r * inner;
      dx.scale[k] = mag(nr.r) * inner_scale + mag(dx.v[k]) * (nr.rel_r + 1);
      R t = g[j] * xh;
      dw.v[c] += t, dw_abs[c] += mag(t), dw_terms[c] += mag(g[j]) * nr.xhat_scale[c] + mag(t);
      db.v[c] += g[j], db_abs[c] += mag(g[j]);
    }
  }
  for (std::size_t c = 0; c < at(n); ++c) {
    dw.scale[c] = accumulated_scale(rows, dw_abs[c], dw_terms[c]);
    db.scale[c] = accumulated_scale(rows, db_abs[c], db_abs[c]);
  }
  return {std::move(dx), std::move(dw), std::move(db)};
}

GP_REF_INSTANTIATE(layer_norm)
}  // namespace gp::ref::detail
