// Optimizer steps (sgd_step, adamw_step): one pass over the flattened parameter, writing row 0
// (the new parameter) and the state rows of the output. The scalars are core's
// optimizer_scalars, converted once to the compute type T. Forward only: nothing to
// differentiate, so the backward entry point accepts only calls that ask for no gradient.
#include <cmath>

#include "backends/cpu/kernels/kernel_args.hpp"

namespace gp::cpu {

namespace {

template <typename T>
void sgd(const ForwardArgs<T>& a, const OptimizerScalars& s, std::int64_t n) {
  const T lr = T(s.lr), wd = T(s.weight_decay), mu = T(s.momentum), keep = T(s.one_minus_dampening);
  const T *param = a.x[0], *grad = a.x[1], *buf = a.x[2];
  T *param_out = a.y, *buf_out = a.y + n;
  for (std::int64_t i = 0; i < n; ++i) {
    T d = grad[i];
    if (s.weight_decay != 0) d += wd * param[i];
    T b = buf[i];
    if (s.momentum != 0) {
      b = s.first ? d : mu * buf[i] + keep * d;
      d = s.nesterov ? d + mu * b : b;
    }
    buf_out[i] = b;
    param_out[i] = param[i] - lr * d;
  }
}

// 1 - beta^t, stably, in T.
template <typename T>
T one_minus_power(double one_minus_beta, double t) {
  return -std::expm1(T(t) * std::log1p(-T(one_minus_beta)));
}

template <typename T>
void adamw(const ForwardArgs<T>& a, const OptimizerScalars& s, std::int64_t n) {
  const T lr = T(s.lr), decay = T(s.decay), eps = T(s.eps);
  const T b1 = T(s.beta1), k1 = T(s.one_minus_beta1), b2 = T(s.beta2), k2 = T(s.one_minus_beta2);
  const T c1 = one_minus_power<T>(s.one_minus_beta1, s.t), c2 = one_minus_power<T>(s.one_minus_beta2, s.t);
  const T *param = a.x[0], *grad = a.x[1], *m = a.x[2], *v = a.x[3];
  T *param_out = a.y, *m_out = a.y + n, *v_out = a.y + 2 * n;
  for (std::int64_t i = 0; i < n; ++i) {
    const T g = grad[i];
    const T m1 = b1 * m[i] + k1 * g;
    const T v1 = b2 * v[i] + k2 * (g * g);
    const T denom = std::sqrt(v1 / c2) + eps;
    m_out[i] = m1;
    v_out[i] = v1;
    param_out[i] = decay * param[i] - lr * (m1 / c1) / denom;
  }
}

}  // namespace

template <typename T>
void optimizer_forward(const ForwardArgs<T>& a) {
  const OptimizerScalars s = optimizer_scalars(a.call);
  const std::int64_t n = a.call.input_shapes[0].numel();
  if (a.call.kind == OpKind::sgd_step) return sgd(a, s, n);
  if (a.call.kind == OpKind::adamw_step) return adamw(a, s, n);
  fail(a.call, "is not an optimizer step");
}

template <typename T>
void optimizer_backward(const BackwardArgs<T>& a) {
  for (T* dx : a.dx)
    if (dx) fail(a.call, "is forward only: no input has a gradient");
}

GP_CPU_INSTANTIATE(optimizer_forward, optimizer_backward)

}  // namespace gp::cpu
