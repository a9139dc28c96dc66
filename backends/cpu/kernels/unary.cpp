// The unary family (the straight-through ops with their surrogate gradients among them). Every op is one line of
// GP_CPU_ELEMENTWISE_LIST (forward f(x), backward given x, the forward result y and the incoming gradient g); the
// functor structs, the table and the two loops are generated from it.
#include <cmath>

#include "backends/cpu/kernels/kernel_args.hpp"
#include "backends/cpu/kernels/stable_math.hpp"
#include "backends/cpu/kernels/threaded.hpp"

namespace gp::cpu {

namespace {

template <typename T>
struct UnaryParams {
  T p, alpha;
  GeluApprox gelu;
};

template <typename T>
T sign(T x) {
  return static_cast<T>((x > 0) - (x < 0));
}

// d/dx x*s(x) = s(x) (1 + x (1 - s(x))), with 1 - s(x) = s(-x).
template <typename T>
T silu_slope(T x) {
  return sigmoid(x) * (T(1) + x * sigmoid(-x));
}

template <typename T>
constexpr T kSqrtHalf = T(0.70710678118654752440084436210484903928);
template <typename T>
constexpr T kInvSqrt2Pi = T(0.39894228040143267793994605993438186848);
template <typename T>
constexpr T kSqrt2OverPi = T(0.79788456080286535587989211986876373695);
template <typename T>
constexpr T kGeluCubic = T(0.044715);

// gelu(erf): x Phi(x) with Phi(x) = erfc(-x/sqrt2)/2, which keeps its accuracy for x << 0
// where 1 + erf(x/sqrt2) would cancel.
// gelu(tanh): 0.5 x (1 + tanh u) = x sigmoid(2u), u = sqrt(2/pi)(x + 0.044715 x^3); the
// sigmoid form avoids the same cancellation.
template <typename T>
T gelu_value(T x, GeluApprox approx) {
  if (approx == GeluApprox::erf) return x * T(0.5) * std::erfc(-x * kSqrtHalf<T>);
  T u = kSqrt2OverPi<T> * (x + kGeluCubic<T> * x * x * x);
  return x * sigmoid(T(2) * u);
}

template <typename T>
T gelu_slope(T x, GeluApprox approx) {
  if (approx == GeluApprox::erf) {
    T cdf = T(0.5) * std::erfc(-x * kSqrtHalf<T>);
    T pdf = kInvSqrt2Pi<T> * std::exp(T(-0.5) * x * x);
    return cdf + x * pdf;
  }
  T u = kSqrt2OverPi<T> * (x + kGeluCubic<T> * x * x * x);
  T du = kSqrt2OverPi<T> * (T(1) + T(3) * kGeluCubic<T> * x * x);
  T s = sigmoid(T(2) * u), sm = sigmoid(T(-2) * u);
  // d/dx [x s(2u)] = s(2u) + x * 2 s(2u) s(-2u) * du
  return s + x * T(2) * s * sm * du;
}

// X(name, forward in x, backward in x, y, g). `a` holds the attributes (p, alpha, gelu).
// Every backward computes from x, never from the stored y (docs/error-model.md, "Backward
// formulations"): a 16-bit y is rounded once more, and tanh's 1 - y^2 loses all digits once
// tanh x rounds to 1, so tanh' is 1/cosh^2 x.
#define GP_CPU_ELEMENTWISE_LIST(X)                                                   \
  X(neg, -x, -g)                                                                     \
  X(square, x* x, T(2) * x * g)                                                      \
  X(reciprocal, T(1) / x, -g / (x * x))                                              \
  X(abs, std::abs(x), sign(x) * g)                                                   \
  X(exp, std::exp(x), g* std::exp(x))                                                \
  X(expm1, std::expm1(x), g* std::exp(x))                                            \
  X(log, std::log(x), g / x)                                                         \
  X(log1p, std::log1p(x), g / (T(1) + x))                                            \
  X(sqrt, std::sqrt(x), g / (T(2) * std::sqrt(x)))                                   \
  X(rsqrt, T(1) / std::sqrt(x), T(-0.5) * g / std::sqrt(x) / x)                      \
  X(pow_scalar, std::pow(x, a.p), g* a.p* std::pow(x, a.p - T(1)))                   \
  X(sin, std::sin(x), g* std::cos(x))                                                \
  X(cos, std::cos(x), -g* std::sin(x))                                               \
  X(tanh, std::tanh(x), g / (std::cosh(x) * std::cosh(x)))                           \
  X(sigmoid, sigmoid(x), g* sigmoid(x) * sigmoid(-x))                                \
  X(softplus, softplus(x), g* sigmoid(x))                                            \
  X(silu, x* sigmoid(x), g* silu_slope(x))                                           \
  X(relu, x > 0 ? x : T(0), x > 0 ? g : T(0))                                        \
  X(leaky_relu, x > 0 ? x : a.alpha * x, x > 0 ? g : a.alpha * g)                    \
  X(elu, x > 0 ? x : a.alpha * std::expm1(x), x > 0 ? g : g * a.alpha * std::exp(x)) \
  X(gelu, gelu_value(x, a.gelu), g* gelu_slope(x, a.gelu))                           \
  X(hardswish,                                                                       \
    x <= T(-3)  ? T(0)                                                               \
    : x >= T(3) ? x                                                                  \
                : x * (x + T(3)) / T(6),                                             \
    x <= T(-3)  ? T(0)                                                               \
    : x >= T(3) ? g                                                                  \
                : g * (T(2) * x + T(3)) / T(6))                                      \
  X(ste_round, std::nearbyint(x), g)                                                 \
  X(ste_hardtanh_gate, x > 0 ? T(1) : T(0), std::abs(x) < T(1) ? g : T(0))

#define GP_CPU_FUNCTOR(name, forward, backward)           \
  struct name##_op {                                      \
    template <typename T>                                 \
    static T f(T x, const UnaryParams<T>& a) {            \
      return forward;                                     \
    }                                                     \
    template <typename T>                                 \
    static T df(T x, T y, T g, const UnaryParams<T>& a) { \
      return backward;                                    \
    }                                                     \
  };
GP_CPU_ELEMENTWISE_LIST(GP_CPU_FUNCTOR)
#undef GP_CPU_FUNCTOR

// The one forward loop and the one backward loop, instantiated per functor; long ones on every
// core (threaded.hpp).
template <typename Op, typename T>
void forward_loop(const T* x, T* y, std::int64_t n, const UnaryParams<T>& a) {
  for_element_ranges(n, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) y[i] = Op::f(x[i], a);
  });
}

template <typename Op, typename T>
void backward_loop(const T* x, const T* y, const T* g, T* dx, std::int64_t n, const UnaryParams<T>& a) {
  for_element_ranges(n, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) dx[i] = Op::df(x[i], y[i], g[i], a);
  });
}

template <typename T>
struct ElementwiseKernel {
  void (*forward)(const T*, T*, std::int64_t, const UnaryParams<T>&) = nullptr;
  void (*backward)(const T*, const T*, const T*, T*, std::int64_t, const UnaryParams<T>&) = nullptr;
};

template <typename T>
ElementwiseKernel<T> kernel_for(const OpCall& call) {
  switch (call.kind) {
#define GP_CPU_TABLE_ROW(name, forward, backward) \
  case OpKind::name:                              \
    return {&forward_loop<name##_op, T>, &backward_loop<name##_op, T>};
    GP_CPU_ELEMENTWISE_LIST(GP_CPU_TABLE_ROW)
#undef GP_CPU_TABLE_ROW
    default:
      fail(call, "is not an elementwise op");
  }
}

template <typename T>
UnaryParams<T> params_of(const OpCall& call) {
  return {static_cast<T>(call.attrs.p), static_cast<T>(call.attrs.alpha), call.attrs.gelu};
}

}  // namespace

template <typename T>
void unary_forward(const ForwardArgs<T>& a) {
  kernel_for<T>(a.call).forward(a.x[0], a.y, a.call.output_shape.numel(), params_of<T>(a.call));
}

template <typename T>
void unary_backward(const BackwardArgs<T>& a) {
  if (!a.dx[0]) return;
  kernel_for<T>(a.call).backward(a.x[0], a.y, a.dy, a.dx[0], a.call.output_shape.numel(), params_of<T>(a.call));
}

GP_CPU_INSTANTIATE(unary_forward, unary_backward)

}  // namespace gp::cpu
