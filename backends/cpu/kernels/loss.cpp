// Losses (scalar output): mse_loss, cross_entropy, bce_with_logits.
#include <cmath>

#include "backends/cpu/kernels/kernel_args.hpp"
#include "backends/cpu/kernels/lanes.hpp"
#include "backends/cpu/kernels/stable_math.hpp"

namespace gp::cpu {

namespace {

template <typename T>
T mse_scale(const OpCall& call, std::int64_t n) {  // d loss / d sum of squares
  return call.attrs.reduction == LossReduction::mean ? T(1) / static_cast<T>(n) : T(1);
}

// Targets index the classes; anything else is bad data, reported with the case id.
void check_labels(const OpCall& call, const std::int32_t* labels, std::int64_t batch, std::int64_t classes) {
  for (std::int64_t b = 0; b < batch; ++b)
    if (labels[b] < 0 || labels[b] >= classes)
      fail(call, "target " + std::to_string(labels[b]) + " at row " + std::to_string(b) + " is outside [0, " +
                     std::to_string(classes) + ")");
}

// -log_softmax(row)[t] = (max - row[t]) + log S.
template <typename T>
T row_cross_entropy(const T* row, std::int64_t classes, std::int32_t target) {
  const LogSumExp<T> l = lane_log_sum_exp(Lane<const T*>{row, classes, 1});
  return (l.max - row[target]) + l.log_sum();
}

}  // namespace

template <typename T>
void loss_forward(const ForwardArgs<T>& a) {
  const OpCall& call = a.call;
  const Shape& shape = call.input_shapes[0];
  const std::int64_t n = shape.numel();
  switch (call.kind) {
    case OpKind::mse_loss: {
      T sum = 0;
      for (std::int64_t i = 0; i < n; ++i) sum += (a.x[0][i] - a.x[1][i]) * (a.x[0][i] - a.x[1][i]);
      a.y[0] = sum * mse_scale<T>(call, n);
      return;
    }
    case OpKind::cross_entropy: {
      std::int64_t batch = shape[0], classes = shape[1];
      check_labels(call, a.labels, batch, classes);
      T sum = 0;
      for (std::int64_t b = 0; b < batch; ++b) sum += row_cross_entropy(a.x[0] + b * classes, classes, a.labels[b]);
      a.y[0] = sum / static_cast<T>(batch);
      return;
    }
    case OpKind::bce_with_logits: {
      T sum = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        T x = a.x[0][i], t = a.x[1][i];
        sum += std::max(x, T(0)) - x * t + std::log1p(std::exp(-std::abs(x)));
      }
      a.y[0] = sum / static_cast<T>(n);
      return;
    }
    default:
      fail(call, "is not a loss");
  }
}

template <typename T>
void loss_backward(const BackwardArgs<T>& a) {
  const OpCall& call = a.call;
  const Shape& shape = call.input_shapes[0];
  const std::int64_t n = shape.numel();
  T *d0 = a.dx[0], *d1 = a.dx.size() > 1 ? a.dx[1] : nullptr;
  switch (call.kind) {
    case OpKind::mse_loss: {
      T scale = T(2) * a.dy[0] * mse_scale<T>(call, n);
      for (std::int64_t i = 0; i < n; ++i) {
        T d = scale * (a.x[0][i] - a.x[1][i]);
        if (d0) d0[i] = d;
        if (d1) d1[i] = -d;
      }
      return;
    }
    case OpKind::cross_entropy: {  // logits only: (softmax(row) - onehot(target)) g / B
      if (!d0) return;
      std::int64_t batch = shape[0], classes = shape[1];
      check_labels(call, a.labels, batch, classes);
      T scale = a.dy[0] / static_cast<T>(batch);
      for (std::int64_t b = 0; b < batch; ++b) {
        const T* row = a.x[0] + b * classes;
        Lane<T*> d{d0 + b * classes, classes, 1};
        softmax_lane<T>(
            classes, [&](std::int64_t j) { return row[j]; }, d);
        // p_t - 1 cancels when the target is a dominant maximum: -rest / (1 + rest) does not.
        const LogSumExp<T> l = lane_log_sum_exp(Lane<const T*>{row, classes, 1});
        const std::int64_t t = a.labels[b];
        d[t] = t == l.arg ? -l.rest / (T(1) + l.rest) : d[t] - T(1);
        for (std::int64_t j = 0; j < classes; ++j) d[j] *= scale;
      }
      return;
    }
    case OpKind::bce_with_logits: {  // x: (sigmoid(x) - t) g / n, t: -x g / n
      T scale = a.dy[0] / static_cast<T>(n);
      for (std::int64_t i = 0; i < n; ++i) {
        T x = a.x[0][i], t = a.x[1][i];
        if (d0) d0[i] = scale * (sigmoid(x) - t);
        if (d1) d1[i] = -scale * x;
      }
      return;
    }
    default:
      fail(call, "is not a loss");
  }
}

GP_CPU_INSTANTIATE(loss_forward, loss_backward)

}  // namespace gp::cpu
