// Row-wise ops whose output has the input's shape: softmax and log_softmax over attrs.axis,
// layer_norm over the last axis with weight and bias (rms_norm: no centring, no bias),
// gumbel_softmax over the last axis with its noise as an input; and bspline_basis, a row of
// bases per value (reference/bspline_basis.cpp derives the span recursion used here).
#include <array>
#include <cmath>
#include <vector>

#include "backends/cpu/kernels/kernel_args.hpp"
#include "backends/cpu/kernels/lanes.hpp"

namespace gp::cpu {

namespace {

// Mean and 1/sqrt(var + eps) of one contiguous row (population variance, two passes); rms_norm
// takes the mean as 0, so var is the mean square.
template <typename T>
struct RowStats {
  T mean, rstd;
};

bool centred(const OpCall& call) { return call.kind == OpKind::layer_norm; }

template <typename T>
RowStats<T> row_stats(const T* x, std::int64_t n, T eps, bool centred) {
  const T sum = centred ? pairwise_sum<T>(0, n, [&](std::int64_t j) { return x[j]; }) : T(0);
  const T mean = sum / static_cast<T>(n);
  const T sq = pairwise_sum<T>(0, n, [&](std::int64_t j) { return (x[j] - mean) * (x[j] - mean); });
  return {mean, T(1) / std::sqrt(sq / static_cast<T>(n) + eps)};
}

template <typename T>
void layer_norm_forward(const ForwardArgs<T>& a) {
  const Shape& shape = a.call.input_shapes[0];
  std::int64_t n = shape[shape.rank() - 1], rows = shape.numel() / n;
  const T *w = a.x[1], *b = centred(a.call) ? a.x[2] : nullptr;
  T eps = static_cast<T>(a.call.attrs.eps);
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* x = a.x[0] + r * n;
    T* y = a.y + r * n;
    RowStats<T> st = row_stats(x, n, eps, b != nullptr);
    for (std::int64_t j = 0; j < n; ++j) {
      y[j] = (x[j] - st.mean) * st.rstd * w[j];
      if (b) y[j] += b[j];
    }
  }
}

// With xhat = (x - mean) rstd and h = g w (the gradient reaching xhat):
//   dx = rstd (h - mean(h) - xhat mean(h xhat)),  dw = sum over rows of g xhat,  db = sum of g.
template <typename T>
void layer_norm_backward(const BackwardArgs<T>& a) {
  const Shape& shape = a.call.input_shapes[0];
  std::int64_t n = shape[shape.rank() - 1], rows = shape.numel() / n;
  const T* w = a.x[1];
  T eps = static_cast<T>(a.call.attrs.eps);
  T *dw = a.dx[1], *db = centred(a.call) ? a.dx[2] : nullptr;
  clear_gradient(dw, n);
  clear_gradient(db, n);
  std::vector<T> xhat(static_cast<std::size_t>(n)), h(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* x = a.x[0] + r * n;
    const T* g = a.dy + r * n;
    RowStats<T> st = row_stats(x, n, eps, centred(a.call));
    T mean_h = 0, mean_hx = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      xhat[j] = (x[j] - st.mean) * st.rstd;
      h[j] = g[j] * w[j];
      mean_h += h[j];
      mean_hx += h[j] * xhat[j];
      if (dw) dw[j] += g[j] * xhat[j];
      if (db) db[j] += g[j];
    }
    mean_h = centred(a.call) ? mean_h / static_cast<T>(n) : T(0);
    mean_hx /= static_cast<T>(n);
    if (T* dx = a.dx[0] ? a.dx[0] + r * n : nullptr)
      for (std::int64_t j = 0; j < n; ++j) dx[j] = st.rstd * (h[j] - mean_h - xhat[j] * mean_hx);
  }
}

template <typename T>
void log_softmax_lane(const Lane<const T*>& x, const Lane<T*>& y) {
  const LogSumExp<T> l = lane_log_sum_exp(x);
  const T log_sum = l.log_sum();
  for (std::int64_t j = 0; j < x.n; ++j) y[j] = (x[j] - l.max) - log_sum;
}

template <typename T>
T gumbel_tau(const OpCall& call) {
  if (!(call.attrs.tau > 0)) fail(call, "tau must be positive, got " + std::to_string(call.attrs.tau));
  return static_cast<T>(call.attrs.tau);
}

// y = softmax((logits + noise) / tau) along the last axis.
template <typename T>
void gumbel_softmax_forward(const ForwardArgs<T>& a) {
  const T tau = gumbel_tau<T>(a.call);
  const AxisSplit s = split_at_axis(a.call.input_shapes[0], -1);
  for_each_lane(s, [&](std::int64_t, std::int64_t first) {
    Lane<const T*> l = lane_at(a.x[0], s, first), noise = lane_at(a.x[1], s, first);
    softmax_lane<T>(
        s.n, [&](std::int64_t j) { return (l[j] + noise[j]) / tau; }, lane_at(a.y, s, first));
  });
}

// The logits' gradient only: the softmax VJP scaled by 1/tau.
template <typename T>
void gumbel_softmax_backward(const BackwardArgs<T>& a) {
  if (!a.dx[0]) return;
  const T tau = gumbel_tau<T>(a.call);
  const AxisSplit s = split_at_axis(a.call.input_shapes[0], -1);
  for_each_lane(s, [&](std::int64_t, std::int64_t first) {
    softmax_vjp_lane(lane_at(a.y, s, first), lane_at(a.dy, s, first), lane_at(a.dx[0], s, first), T(1) / tau);
  });
}

// The knot span of x in the knot coordinate u (knots at the integers), and the bases of one
// degree that are nonzero there: n[r] = B_{s+order-degree+r, degree}(x), r = 0..degree.
template <typename T>
struct BsplineSpan {
  bool inside;
  std::int64_t s;
  T f;
};

template <typename T>
BsplineSpan<T> bspline_span(T x, const BsplineGeometry& g) {
  const T u = (x + T(1)) * static_cast<T>(g.half_grid());
  if (u < T(-g.order) || !(u < T(g.grid + g.order))) return {false, 0, T(0)};
  const T s = std::floor(u);
  return {true, static_cast<std::int64_t>(s), u - s};
}

template <typename T>
std::array<T, kBsplineMaxOrder + 1> bspline_bases(T f, int degree) {
  std::array<T, kBsplineMaxOrder + 1> n{T(1)};
  for (int d = 1; d <= degree; ++d) {
    T left = T(0);  // the term of n[r - 1], carried to the next r
    for (int r = 0; r < d; ++r) {
      const T nr = n[r];
      n[r] = r == 0 ? (T(1) - f) * nr / T(d) : (left + (T(r + 1) - f) * nr) / T(d);
      left = (f + T(d - r - 1)) * nr;
    }
    n[d] = left / T(d);
  }
  return n;
}

template <typename T>
void bspline_forward(const ForwardArgs<T>& a) {
  const BsplineGeometry g = bspline_geometry(a.call);
  const std::int64_t nb = g.bases(), values = a.call.input_shapes[0].numel();
  std::fill_n(a.y, values * nb, T(0));  // every element outside the span is zero
  for (std::int64_t v = 0; v < values; ++v) {
    const BsplineSpan<T> sp = bspline_span(a.x[0][v], g);
    if (!sp.inside) continue;
    const auto n = bspline_bases(sp.f, g.order);
    for (std::int64_t r = 0; r <= g.order; ++r)
      if (sp.s + r >= 0 && sp.s + r < nb) a.y[v * nb + sp.s + r] = n[static_cast<std::size_t>(r)];
  }
}

// dx = (grid / 2) sum_r q[r] (dy_{s+1+r} - dy_{s+r}) over the degree order - 1 bases q.
template <typename T>
void bspline_backward(const BackwardArgs<T>& a) {
  T* dx = a.dx[0];
  if (!dx) return;
  const BsplineGeometry g = bspline_geometry(a.call);
  const std::int64_t nb = g.bases(), values = a.call.input_shapes[0].numel();
  for (std::int64_t v = 0; v < values; ++v) {
    const BsplineSpan<T> sp = bspline_span(a.x[0][v], g);
    dx[v] = T(0);
    if (!sp.inside) continue;
    const auto q = bspline_bases(sp.f, g.order - 1);
    auto dy = [&](std::int64_t m) { return m >= 0 && m < nb ? a.dy[v * nb + m] : T(0); };
    T sum = 0;
    for (std::int64_t r = 0; r < g.order; ++r)
      sum += q[static_cast<std::size_t>(r)] * (dy(sp.s + 1 + r) - dy(sp.s + r));
    dx[v] = static_cast<T>(g.half_grid()) * sum;
  }
}

}  // namespace

// The row-wise ops with kernels of their own; softmax and log_softmax run a lane each below.
template <typename T>
struct OwnKernels {
  void (*forward)(const ForwardArgs<T>&);
  void (*backward)(const BackwardArgs<T>&);
};

template <typename T>
const OwnKernels<T>* own_kernels(OpKind k) {
  static constexpr OwnKernels<T> norm{layer_norm_forward<T>, layer_norm_backward<T>},
      gumbel{gumbel_softmax_forward<T>, gumbel_softmax_backward<T>}, bspline{bspline_forward<T>, bspline_backward<T>};
  switch (k) {
    case OpKind::layer_norm:
    case OpKind::rms_norm:
      return &norm;
    case OpKind::gumbel_softmax:
      return &gumbel;
    case OpKind::bspline_basis:
      return &bspline;
    default:
      return nullptr;
  }
}

template <typename T>
void rowwise_forward(const ForwardArgs<T>& a) {
  if (const OwnKernels<T>* own = own_kernels<T>(a.call.kind)) return own->forward(a);
  AxisSplit s = split_at_axis(a.call.input_shapes[0], a.call.attrs.axis);
  for_each_lane(s, [&](std::int64_t, std::int64_t first) {
    Lane<const T*> x = lane_at(a.x[0], s, first);
    Lane<T*> y = lane_at(a.y, s, first);
    switch (a.call.kind) {
      case OpKind::softmax:
        softmax_lane<T>(
            s.n, [&](std::int64_t j) { return x[j]; }, y);
        break;
      case OpKind::log_softmax:
        log_softmax_lane(x, y);
        break;
      default:
        fail(a.call, "is not a row-wise op");
    }
  });
}

template <typename T>
void rowwise_backward(const BackwardArgs<T>& a) {
  if (const OwnKernels<T>* own = own_kernels<T>(a.call.kind)) return own->backward(a);
  if (!a.dx[0]) return;
  AxisSplit s = split_at_axis(a.call.input_shapes[0], a.call.attrs.axis);
  for_each_lane(s, [&](std::int64_t, std::int64_t first) {
    Lane<const T*> y = lane_at(a.y, s, first);
    Lane<const T*> g = lane_at(a.dy, s, first);
    Lane<T*> dx = lane_at(a.dx[0], s, first);
    switch (a.call.kind) {
      case OpKind::softmax:
        softmax_vjp_lane(y, g, dx, T(1));
        break;
      case OpKind::log_softmax: {  // dx = g - softmax(x) sum(g), softmax(x) from x, not as e^y
        const Lane<const T*> x = lane_at(a.x[0], s, first);
        const LogSumExp<T> l = lane_log_sum_exp(x);
        const T gsum = pairwise_sum<T>(0, s.n, [&](std::int64_t j) { return g[j]; });
        for (std::int64_t j = 0; j < s.n; ++j) dx[j] = g[j] - l.weight(x[j]) * gsum;
        break;
      }
      default:
        fail(a.call, "is not a row-wise op");
    }
  });
}

GP_CPU_INSTANTIATE(rowwise_forward, rowwise_backward)

}  // namespace gp::cpu
