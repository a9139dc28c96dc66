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

struct Accumulation {
  Real sum = 0, abs_sum = 0, term_scales = 0;
  std::int64_t n = 0;
  void add(Real t, Real s) { sum += t, abs_sum += mag(t), term_scales += s, ++n; }
  RefTensor result(bool mean) const {
    RefTensor out = zeros(Shape{});
    Real div = mean ? real(n) : 1;
    out.v[0] = sum / div;
    out.scale[0] = ((n > 1 ? real(n) * abs_sum : 0) + term_scales) / div;
    return out;
  }
};

Real sigmoid(Real x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }

struct CrossEntropyRow {
  std::size_t target;
  SoftmaxRow soft;
  std::vector<Real> x;
};

CrossEntropyRow ce_row(const OpCall& call, const std::vector<RefTensor>& in, std::int64_t b) {
  const std::int64_t classes = call.input_shapes[0][1];
  Real t = in[1].v[at(b)];
  if (t != std::floor(t) || t < 0 || t >= real(classes))
    fail(call, "target " + std::to_string(static_cast<double>(t)) + " of row " + std::to_string(b) +
                   " is not a class index in [0, " + std::to_string(classes) + ")");
  CrossEntropyRow r;
  r.target = static_cast<std::size_t>(t);
  r.x.assign(in[0].v.begin() + b * classes, in[0].v.begin() + (b + 1) * classes);
  r.soft = softmax_row(r.x);
  return r;
}

}  // namespace

RefTensor loss_forward(const OpCall& call, const std::vector<RefTensor>& in) {
  Accumulation acc;
  switch (call.kind) {
    case OpKind::mse_loss:
      for (std::size_t j = 0; j < in[0].v.size(); ++j) {
        Real d = in[0].v[j] - in[1].v[j];
        acc.add(d * d, 3 * d * d);
      }
      return acc.result(call.attrs.reduction == LossReduction::mean);
    case OpKind::cross_entropy:
      for (std::int64_t b = 0; b < call.input_shapes[0][0]; ++b) {
        CrossEntropyRow r = ce_row(call, in, b);
        Real lse = r.soft.max + r.soft.log_sum, xt = r.x[r.target], l = lse - xt;
        acc.add(l, r.soft.lse_scale + mag(xt - r.soft.max) + mag(l));
      }
      return acc.result(true);
    case OpKind::bce_with_logits:
      for (std::size_t j = 0; j < in[0].v.size(); ++j) {
        Real x = in[0].v[j], t = in[1].v[j], e = std::exp(-mag(x)), c = std::log1p(e);
        Real hinge = (x > 0 ? x : 0) - x * t, l = hinge + c;
        acc.add(l, (x > 0 ? x : 0) + 2 * mag(x * t) + c + e * (1 + mag(x)) + 1 + mag(hinge) + mag(l));
      }
      return acc.result(true);
    default:
      fail(call, "is not a loss");
  }
}

std::vector<RefTensor> loss_vjp(const OpCall& call, const std::vector<RefTensor>& in, const RefTensor& dout) {
  const Real dl = dout.v[0];
  switch (call.kind) {
    case OpKind::mse_loss: {
      const Real k = 2 * dl / (call.attrs.reduction == LossReduction::mean ? real(in[0].numel()) : 1);
      RefTensor ga = zeros(in[0].shape), gb = zeros(in[1].shape);
      for (std::size_t j = 0; j < ga.v.size(); ++j) {
        ga.v[j] = k * (in[0].v[j] - in[1].v[j]), gb.v[j] = -ga.v[j];
        ga.scale[j] = gb.scale[j] = 3 * mag(ga.v[j]);
      }
      return {std::move(ga), std::move(gb)};
    }
    case OpKind::cross_entropy: {
      const std::int64_t batch = call.input_shapes[0][0], classes = call.input_shapes[0][1];
      const Real k = dl / real(batch);
      RefTensor g = zeros(in[0].shape);
      for (std::int64_t b = 0; b < batch; ++b) {
        CrossEntropyRow r = ce_row(call, in, b);
        Real lse = r.soft.max + r.soft.log_sum;
        for (std::size_t c = 0; c < at(classes); ++c) {
          Real p = r.soft.p[c], hit = c == r.target ? 1 : 0;
          std::size_t i = at(b * classes) + c;
          g.v[i] = k * (p - hit);
          g.scale[i] = mag(k) * (p * (r.soft.rel[c] + 1 + r.soft.lse_scale + mag(r.x[c] - lse)) + mag(p - hit)) +
                       2 * mag(g.v[i]);
        }
      }
      return {std::move(g), no_grad(in[1].shape)};
    }
    case OpKind::bce_with_logits: {
      const Real k = dl / real(in[0].numel());
      RefTensor gx = zeros(in[0].shape), gt = zeros(in[1].shape);
      for (std::size_t j = 0; j < gx.v.size(); ++j) {
        Real x = in[0].v[j], t = in[1].v[j], s = sigmoid(x);
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

}  // namespace gp::ref::detail
