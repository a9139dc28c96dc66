// layer_norm over the last axis: x [..., N], weight w [N], bias b [N];
// y = (x - mu) / sqrt(var + eps) * w + b, var the population variance of the row, in the stages
// of a two-pass kernel:
//   mu = sum x / N,  d_j = x_j - mu,  v = sum d^2 / N + eps (centered_squares),  r = 1 / sqrt(v),
//   xhat_j = d_j r,  y_j = xhat_j w_j + b_j.
// Gradients: with gh = dy * w, A = mean(gh), B = mean(gh * xhat),
//   dx_j = r (gh_j - A - xhat_j B); dw = sum over rows dy * xhat; db = sum over rows dy.
// rms_norm is the same without the centring and the bias: mu = 0, A = 0, y_j = xhat_j w_j.
#include <cmath>

#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

template <class R>
struct NormRow {
  R r;
  std::vector<R> xhat;
};

template <class R>
NormRow<R> normalise(const R* x, std::int64_t n_elems, double eps, bool centred) {
  using std::sqrt;
  const R n = real<R>(n_elems);
  const std::vector<R> row(x, x + n_elems);
  Sum<R> sum;
  if (centred)
    for (const R& xi : row) sum.add(xi);
  const CenteredSquares<R> c = centered_squares(row, centred ? sum.result() / n : R(0));
  NormRow<R> out;
  out.r = 1 / sqrt(c.sum / n + R(eps));
  for (const R& d : c.d) out.xhat.push_back(d * out.r);
  return out;
}

bool centred(const OpCall& call) { return call.kind == OpKind::layer_norm; }

std::int64_t row_length(const OpCall& call) {
  const Shape& s = call.input_shapes[0];
  return s[s.rank() - 1];
}

}  // namespace

template <class R>
BasicRefTensor<R> layer_norm_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const std::int64_t n = row_length(call), rows = in[0].numel() / n;
  const auto &x = in[0].v, &w = in[1].v;
  BasicRefTensor<R> y = zeros<R>(call.output_shape);
  for (std::int64_t row = 0; row < rows; ++row) {
    NormRow<R> nr = normalise(&x[at(row * n)], n, call.attrs.eps, centred(call));
    for (std::int64_t j = 0; j < n; ++j) {
      R v = nr.xhat[at(j)] * w[at(j)];
      if (centred(call)) v = v + in[2].v[at(j)];
      y.v[at(row * n + j)] = v;
    }
  }
  return y;
}

template <class R>
std::vector<BasicRefTensor<R>> layer_norm_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                              const BasicRefTensor<R>& dout) {
  const std::int64_t n = row_length(call), rows = in[0].numel() / n;
  const auto &x = in[0].v, &w = in[1].v, &dy = dout.v;
  BasicRefTensor<R> dx = zeros<R>(in[0].shape), dw = zeros<R>(in[1].shape);
  std::vector<Sum<R>> dw_sum(at(n)), db_sum(at(n));
  for (std::int64_t row = 0; row < rows; ++row) {
    NormRow<R> nr = normalise(&x[at(row * n)], n, call.attrs.eps, centred(call));
    const R* g = &dy[at(row * n)];
    std::vector<R> gh(at(n));
    Sum<R> a_sum, b_sum;
    for (std::int64_t j = 0; j < n; ++j) {
      gh[at(j)] = g[j] * w[at(j)];
      a_sum.add(gh[at(j)]);
      b_sum.add_product(gh[at(j)], nr.xhat[at(j)]);
    }
    const R b = b_sum.result() / real<R>(n);
    for (std::int64_t j = 0; j < n; ++j) {
      const std::size_t c = at(j);
      R centre = gh[c];
      if (centred(call)) centre = centre - a_sum.result() / real<R>(n);
      dx.v[at(row * n + j)] = nr.r * (centre - nr.xhat[c] * b);
      dw_sum[c].add_product(g[j], nr.xhat[c]);
      db_sum[c].add(g[j]);
    }
  }
  for (std::size_t c = 0; c < at(n); ++c) dw.v[c] = dw_sum[c].result();
  if (!centred(call)) return {std::move(dx), std::move(dw)};
  BasicRefTensor<R> db = zeros<R>(in[2].shape);
  for (std::size_t c = 0; c < at(n); ++c) db.v[c] = db_sum[c].result();
  return {std::move(dx), std::move(dw), std::move(db)};
}

GP_REF_INSTANTIATE(layer_norm)
}  // namespace gp::ref::detail
