// Losses with a scalar output. Each loss is a sum of per-element (per-row) terms l_j with their
// own scales s_j; the total has the accumulation scale n * sum|l_j| + sum s_j (n > 1), divided by n
// for a mean, as every other accumulation in the reference.
//   mse_loss         l_j = (a_j - b_j)^2, s_j = 3 l_j;  grads +-2 d_j dL (/n): 3|g|
//   cross_entropy    l_b = logsumexp(x_b) - x_b[t_b], s_b = lse_scale + |x_t - m| + |l_b|
//                    grad dL/B (p - onehot): |dL|/B (p_c (rel_c + 1 + lse_scale + |x_c - lse|) +
//                    |p_c - onehot_c|) + 2|g|; targets (i32 as integral values) get no gradient
//   bce_with_logits  l_j = max(x,0) - x t + log1p(e), e = exp(-|x|),
//                    s_j = max(x,0) + 2|x t| + log1p(e) + e (1 + |x|) + 1 + |max(x,0) - x t| + |l_j|
//                    (the 1: a kernel evaluating ln(1 + e) literally has absolute error u there)
//                    grad x: dL/n (sigmoid(x) - t): |dL|/n (s + |x s (1-s)| + |s - t|) + 2|g|
//                    grad t: -dL x / n: 2|g|
#include <cmath>

#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

using std::exp;
using std::floor;
using std::log1p;

template <class R>
struct Accumulation {
  R sum = 0, abs_sum = 0, term_scales = 0;
  std::int64_t n = 0;
  void add(const R& t, const R& s) { sum += t, abs_sum += mag(t), term_scales += s, ++n; }
  BasicRefTensor<R> result(bool mean) const {
    BasicRefTensor<R> out = zeros<R>(Shape{});
    R div = mean ? real<R>(n) : R(1);
    out.v[0] = sum / div;
    out.scale[0] = ((n > 1 ? real<R>(n) * abs_sum : R(0)) + term_scales) / div;
    return out;
  }
};

template <class R>
R sigmoid(const R& x) {
  return x >= 0 ? R(1 / (1 + exp(-x))) : R(exp(x) / (1 + exp(x)));
}

template <class R>
struct CrossEntropyRow {
  std::size_t target;
  SoftmaxRow<R> soft;
  std::vector<R> x;
};

template <class R>
CrossEntropyRow<R> ce_row(const OpCall& call, const std::vector<BasicRefTensor<R>>& in, std::int64_t b) {
  const std::int64_t classes = call.input_shapes[0][1];
  R t = in[1].v[at(b)];
  if (t != floor(t) || t < 0 || t >= real<R>(classes))
    fail(call, "target " + std::to_string(static_cast<double>(static_cast<long double>(t))) + " of row " +
                   std::to_string(b) + " is not a class index in [0, " + std::to_string(classes) + ")");
  CrossEntropyRow<R> r;
  r.target = static_cast<std::size_t>(static_cast<long double>(t));
  r.x.assign(in[0].v.begin() + b * classes, in[0].v.begin() + (b + 1) * classes);
  r.soft = softmax_row(r.x);
  return r;
}

}  // namespace

template <class R>
BasicRefTensor<R> loss_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  Accumulation<R> acc;
  switch (call.kind) {
    case OpKind::mse_loss:
      for (std::size_t j = 0; j < in[0].v.size(); ++j) {
        R d = in[0].v[j] - in[1].v[j];
        acc.add(d * d, 3 * d * d);
      }
      return acc.result(call.attrs.reduction == LossReduction::mean);
    case OpKind::cross_entropy:
      for (std::int64_t b = 0; b < call.input_shapes[0][0]; ++b) {
        CrossEntropyRow<R> r = ce_row(call, in, b);
        R lse = r.soft.max + r.soft.log_sum, xt = r.x[r.target], l = lse - xt;
        acc.add(l, r.soft.lse_scale + mag(xt - r.soft.max) + mag(l));
      }
      return acc.result(true);
    case OpKind::bce_with_logits:
      for (std::size_t j = 0; j < in[0].v.size(); ++j) {
        R x = in[0].v[j], t = in[1].v[j], e = exp(-mag(x)), c = log1p(e);
        R hinge = (x > 0 ? x : R(0)) - x * t, l = hinge + c;
        acc.add(l, (x > 0 ? x : R(0)) + 2 * mag(x * t) + c + e * (1 + mag(x)) + 1 + mag(hinge) + mag(l));
      }
      return acc.result(true);
    default:
      fail(call, "is not a loss");
  }
}

template <class R>
std::vector<BasicRefTensor<R>> loss_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                        const BasicRefTensor<R>& dout) {
  const R dl = dout.v[0];
  switch (call.kind) {
    case OpKind::mse_loss: {
      const R k = 2 * dl / (call.attrs.reduction == LossReduction::mean ? real<R>(in[0].numel()) : R(1));
      BasicRefTensor<R> ga = zeros<R>(in[0].shape), gb = zeros<R>(in[1].shape);
      for (std::size_t j = 0; j < ga.v.size(); ++j) {
        ga.v[j] = k * (in[0].v[j] - in[1].v[j]), gb.v[j] = -ga.v[j];
        ga.scale[j] = gb.scale[j] = 3 * mag(ga.v[j]);
      }
      return {std::move(ga), std::move(gb)};
    }
    case OpKind::cross_entropy: {
      const std::int64_t batch = call.input_shapes[0][0], classes = call.input_shapes[0][1];
      const R k = dl / real<R>(batch);
      BasicRefTensor<R> g = zeros<R>(in[0].shape);
      for (std::int64_t b = 0; b < batch; ++b) {
        CrossEntropyRow<R> r = ce_row(call, in, b);
        R lse = r.soft.max + r.soft.log_sum;
        for (std::size_t c = 0; c < at(classes); ++c) {
          R p = r.soft.p[c], hit = R(c == r.target ? 1 : 0);
          std::size_t i = at(b * classes) + c;
          g.v[i] = k * (p - hit);
          g.scale[i] = mag(k) * (p * (r.soft.rel[c] + 1 + r.soft.lse_scale + mag(r.x[c] - lse)) + mag(p - hit)) +
                       2 * mag(g.v[i]);
        }
      }
      return {std::move(g), no_grad<R>(in[1].shape)};
    }
    case OpKind::bce_with_logits: {
      const R k = dl / real<R>(in[0].numel());
      BasicRefTensor<R> gx = zeros<R>(in[0].shape), gt = zeros<R>(in[1].shape);
      for (std::size_t j = 0; j < gx.v.size(); ++j) {
        R x = in[0].v[j], t = in[1].v[j], s = sigmoid(x);
        gx.v[j] = k * (s - t);
        gx.scale[j] = mag(k) * (s + mag(x) * s * (1 - s) + mag(s - t)) + 2 * mag(gx.v[j]);
        gt.v[j] = -k * x;
        gt.scale[j] = 2 * mag(gt.v[j]);
      }
      return {std::move(gx), std::move(gt)};
    }
    default:
      fail(call, "is not a loss");
  }
}

GP_REF_INSTANTIATE(loss)
}  // namespace gp::ref::detail
