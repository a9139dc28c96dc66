// Reductions over one axis: sum, mean, max, logsumexp, variance. The output element of lane
// (o, i) is the reduction of that lane; keepdim changes the output shape but not its layout.
#include <cmath>

#include "backends/cpu/kernels/kernel_args.hpp"
#include "backends/cpu/kernels/lanes.hpp"

namespace gp::cpu {

namespace {

template <typename T>
T lane_sum(const Lane<const T*>& v) {
  return pairwise_sum<T>(0, v.n, [&](std::int64_t j) { return v[j]; });
}

template <typename T>
T variance_divisor(const OpCall& call, std::int64_t n) {
  std::int64_t d = n - call.attrs.correction;
  if (d <= 0)
    fail(call, "variance divisor n - correction = " + std::to_string(n) + " - " +
                   std::to_string(call.attrs.correction) + " is not positive");
  return static_cast<T>(d);
}

}  // namespace

template <typename T>
void reduction_forward(const ForwardArgs<T>& a) {
  const OpCall& call = a.call;
  AxisSplit s = split_at_axis(call.input_shapes[0], call.attrs.axis);
  T n = static_cast<T>(s.n);
  T divisor = call.kind == OpKind::variance ? variance_divisor<T>(call, s.n) : T(1);
  for_each_lane(s, [&](std::int64_t out, std::int64_t first) {
    Lane<const T*> v = lane_at(a.x[0], s, first);
    T& y = a.y[out];
    switch (call.kind) {
      case OpKind::sum:
        y = lane_sum(v);
        break;
      case OpKind::mean:
        y = lane_sum(v) / n;
        break;
      case OpKind::max:
        y = v[lane_argmax(v)];
        break;
      case OpKind::logsumexp:
        y = [&] {
          const LogSumExp<T> l = lane_log_sum_exp(v);
          return l.max + l.log_sum();
        }();
        break;
      case OpKind::variance: {  // two passes: the mean first, then squared deviations
        const T mu = lane_sum(v) / n;
        y = pairwise_sum<T>(0, v.n, [&](std::int64_t j) { return (v[j] - mu) * (v[j] - mu); }) / divisor;
        break;
      }
      default:
        fail(call, "is not a reduction");
    }
  });
}

template <typename T>
void reduction_backward(const BackwardArgs<T>& a) {
  const OpCall& call = a.call;
  if (!a.dx[0]) return;
  AxisSplit s = split_at_axis(call.input_shapes[0], call.attrs.axis);
  T n = static_cast<T>(s.n);
  T divisor = call.kind == OpKind::variance ? variance_divisor<T>(call, s.n) : T(1);
  if (call.kind == OpKind::max) clear_gradient(a.dx[0], call.input_shapes[0].numel());
  for_each_lane(s, [&](std::int64_t out, std::int64_t first) {
    Lane<const T*> v = lane_at(a.x[0], s, first);
    Lane<T*> d = lane_at(a.dx[0], s, first);
    T g = a.dy[out];
    switch (call.kind) {
      case OpKind::sum:
        for (std::int64_t j = 0; j < v.n; ++j) d[j] = g;
        break;
      case OpKind::mean:
        for (std::int64_t j = 0; j < v.n; ++j) d[j] = g / n;
        break;
      case OpKind::max:
        d[lane_argmax(v)] = g;
        break;  // the rest was cleared above
      case OpKind::logsumexp: {
        const LogSumExp<T> l = lane_log_sum_exp(v);
        for (std::int64_t j = 0; j < v.n; ++j) d[j] = g * l.weight(v[j]);
        break;
      }
      case OpKind::variance: {
        T mu = lane_sum(v) / n, scale = T(2) * g / divisor;
        for (std::int64_t j = 0; j < v.n; ++j) d[j] = scale * (v[j] - mu);
        break;
      }
      default:
        fail(call, "is not a reduction");
    }
  });
}

GP_CPU_INSTANTIATE(reduction_forward, reduction_backward)

}  // namespace gp::cpu
