// Binary elementwise ops with NumPy broadcasting. Like the unary family, each op is one line
// of a list (forward z, and the gradients for x and y given x, y, z and g); one loop walks the
// broadcast geometry of core's broadcast_plan for every op.
#include <algorithm>
#include <cmath>

#include "backends/cpu/kernels/kernel_args.hpp"
#include "backends/cpu/kernels/threaded.hpp"

namespace gp::cpu {

namespace {

// X(name, z = f(x, y), dL/dx, dL/dy) with g = dL/dz. maximum/minimum never tie (domain). The
// gradients compute from x and y, not from the stored z, which a 16-bit dtype has rounded once
// more (docs/error-model.md, "Backward formulations"), and form the partial derivative before
// multiplying by g, as the reference does: g y overflows for y near -1.7e38 where y x^(y-1) is 0.
#define GP_CPU_BINARY_LIST(X)                                                             \
  X(add, x + y, g, g)                                                                     \
  X(sub, x - y, g, -g)                                                                    \
  X(mul, x* y, g* y, g* x)                                                                \
  X(div, x / y, g / y, g * (-(x / y) / y))                                                \
  X(pow, std::pow(x, y), g*(y * std::pow(x, y - T(1))), g*(std::pow(x, y) * std::log(x))) \
  X(maximum, x > y ? x : y, x > y ? g : T(0), x > y ? T(0) : g)                           \
  X(minimum, x < y ? x : y, x < y ? g : T(0), x < y ? T(0) : g)

#define GP_CPU_FUNCTOR(name, forward, grad_x, grad_y) \
  struct name##_op {                                  \
    template <typename T>                             \
    static T f(T x, T y) {                            \
      return forward;                                 \
    }                                                 \
    template <typename T>                             \
    static T dx(T x, T y, T z, T g) {                 \
      return grad_x;                                  \
    }                                                 \
    template <typename T>                             \
    static T dy(T x, T y, T z, T g) {                 \
      return grad_y;                                  \
    }                                                 \
  };
GP_CPU_BINARY_LIST(GP_CPU_FUNCTOR)
#undef GP_CPU_FUNCTOR

// Calls visit(out_index, a_index, b_index) for the output elements [begin, end) in row-major
// order. The plan pads every shape to kMaxRank dims; broadcast dims have stride 0 in their operand.
template <typename Visit>
void for_each_broadcast(const BroadcastPlan& p, std::int64_t begin, std::int64_t end, Visit&& visit) {
  static_assert(kMaxRank == 4, "the index below is written for rank 4");
  if (begin >= end) return;
  const auto* d = p.out_dims;
  const auto* as = p.a_stride;
  const auto* bs = p.b_stride;
  std::int64_t i[4], rest = begin;
  for (int k = 3; k >= 0; --k) {
    i[k] = rest % d[k];
    rest /= d[k];
  }
  for (std::int64_t o = begin; o < end;) {
    const std::int64_t ab = i[0] * as[0] + i[1] * as[1] + i[2] * as[2];
    const std::int64_t bb = i[0] * bs[0] + i[1] * bs[1] + i[2] * bs[2];
    const std::int64_t run = std::min(d[3] - i[3], end - o);
    for (std::int64_t t = i[3]; t < i[3] + run; ++t) visit(o++, ab + t * as[3], bb + t * bs[3]);
    i[3] = 0;
    for (int k = 2; k >= 0 && ++i[k] == d[k]; --k) i[k] = 0;
  }
}

// Each output element alone: long calls on every core (threaded.hpp).
template <typename Op, typename T>
void forward_loop(const ForwardArgs<T>& a) {
  const T* x = a.x[0];
  const T* y = a.x[1];
  T* z = a.y;
  auto plan = broadcast_plan(a.call.input_shapes[0], a.call.input_shapes[1]);
  for_element_ranges(a.call.output_shape.numel(), [&](std::int64_t begin, std::int64_t end) {
    for_each_broadcast(plan, begin, end,
                       [&](std::int64_t o, std::int64_t i, std::int64_t j) { z[o] = Op::f(x[i], y[j]); });
  });
}

// Gradients of broadcast operands accumulate over the broadcast dims, from zero, which is
// exactly the sum the contract asks for, in output order on the calling thread; where neither
// operand is broadcast each gradient element takes one term, so a long call splits.
template <typename Op, typename T>
void backward_loop(const BackwardArgs<T>& a) {
  const T* x = a.x[0];
  const T* y = a.x[1];
  T* dx = a.dx[0];
  T* dy = a.dx[1];
  auto plan = broadcast_plan(a.call.input_shapes[0], a.call.input_shapes[1]);
  clear_gradient(dx, a.call.input_shapes[0].numel());
  clear_gradient(dy, a.call.input_shapes[1].numel());
  auto terms = [&](std::int64_t begin, std::int64_t end) {
    for_each_broadcast(plan, begin, end, [&](std::int64_t o, std::int64_t i, std::int64_t j) {
      T z = a.y[o], g = a.dy[o];
      if (dx) dx[i] += Op::dx(x[i], y[j], z, g);
      if (dy) dy[j] += Op::dy(x[i], y[j], z, g);
    });
  };
  const std::int64_t n = a.call.output_shape.numel();
  if (a.call.input_shapes[0].numel() == n && a.call.input_shapes[1].numel() == n)
    for_element_ranges(n, terms);
  else
    terms(0, n);
}

}  // namespace

template <typename T>
void binary_forward(const ForwardArgs<T>& a) {
  switch (a.call.kind) {
#define GP_CPU_CASE(name, ...) \
  case OpKind::name:           \
    return forward_loop<name##_op>(a);
    GP_CPU_BINARY_LIST(GP_CPU_CASE)
#undef GP_CPU_CASE
    default:
      fail(a.call, "is not a binary op");
  }
}

template <typename T>
void binary_backward(const BackwardArgs<T>& a) {
  switch (a.call.kind) {
#define GP_CPU_CASE(name, ...) \
  case OpKind::name:           \
    return backward_loop<name##_op>(a);
    GP_CPU_BINARY_LIST(GP_CPU_CASE)
#undef GP_CPU_CASE
    default:
      fail(a.call, "is not a binary op");
  }
}

GP_CPU_INSTANTIATE(binary_forward, binary_backward)

}  // namespace gp::cpu
