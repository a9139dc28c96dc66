// Losses with a scalar output: a Sum of per-element (per-row) terms, divided by n for a mean.
//   mse_loss         l_j = (a_j - b_j)^2;  grads +-2 dL (a_j - b_j) (/ n)
//   cross_entropy    l_b = (m - x_t) + log1p(rest) (SoftmaxRow), mean over rows
//                    grad dL / B (p - onehot); at a target that is its row's maximum,
//                    p_t - 1 = -rest / S (p_t - 1 cancels for a confident row); targets (i32 as
//                    integral values) get no gradient
//   bce_with_logits  l_j = max(x, 0) - x t + log1p(exp(-|x|)), mean
//                    grad x: dL / n (sigmoid(x) - t); grad t: -dL x / n
#include <cmath>

#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

using std::exp;
using std::floor;
using std::log1p;

template <class R>
BasicRefTensor<R> scalar(const Sum<R>& sum, const R& divisor) {
  BasicRefTensor<R> out = zeros<R>(Shape{});
  out.v[0] = sum.result() / divisor;
  return out;
}

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
  Sum<R> total;
  switch (call.kind) {
    case OpKind::mse_loss:
      for (std::size_t j = 0; j < in[0].v.size(); ++j) {
        R d = in[0].v[j] - in[1].v[j];
        total.add_product(d, d);
      }
      return scalar(total, call.attrs.reduction == LossReduction::mean ? real<R>(in[0].numel()) : R(1));
    case OpKind::cross_entropy:
      for (std::int64_t b = 0; b < call.input_shapes[0][0]; ++b) {
        CrossEntropyRow<R> r = ce_row(call, in, b);
        total.add((r.soft.max - r.x[r.target]) + r.soft.log_sum);
      }
      return scalar(total, real<R>(call.input_shapes[0][0]));
    case OpKind::bce_with_logits:
      for (std::size_t j = 0; j < in[0].v.size(); ++j) {
        R x = in[0].v[j], t = in[1].v[j];
        total.add(((x > 0 ? x : R(0)) - x * t) + log1p(exp(-mag(x))));
      }
      return scalar(total, real<R>(in[0].numel()));
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
        ga.v[j] = k * (in[0].v[j] - in[1].v[j]);
        gb.v[j] = -ga.v[j];
      }
      return {std::move(ga), std::move(gb)};
    }
    case OpKind::cross_entropy: {
      const std::int64_t batch = call.input_shapes[0][0], classes = call.input_shapes[0][1];
      const R k = dl / real<R>(batch);
      BasicRefTensor<R> g = zeros<R>(in[0].shape);
      for (std::int64_t b = 0; b < batch; ++b) {
        CrossEntropyRow<R> r = ce_row(call, in, b);
        for (std::size_t c = 0; c < at(classes); ++c) {
          R p = r.soft.p[c];
          if (c == r.target) p = c == r.soft.argmax ? -(r.soft.rest / r.soft.sum) : p - 1;
          g.v[at(b * classes) + c] = k * p;
        }
      }
      return {std::move(g), no_grad<R>(in[1].shape)};
    }
    case OpKind::bce_with_logits: {
      const R k = dl / real<R>(in[0].numel());
      BasicRefTensor<R> gx = zeros<R>(in[0].shape), gt = zeros<R>(in[1].shape);
      for (std::size_t j = 0; j < gx.v.size(); ++j) {
        R x = in[0].v[j], t = in[1].v[j];
        gx.v[j] = k * (sigmoid(x) - t);
        gt.v[j] = -k * x;
      }
      return {std::move(gx), std::move(gt)};
    }
    default:
      fail(call, "is not a loss");
  }
}

GP_REF_INSTANTIATE(loss)
}  // namespace gp::ref::detail
