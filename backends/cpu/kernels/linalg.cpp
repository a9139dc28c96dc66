// Linear algebra: matmul, linear through Eigen maps over the row-major buffers; log_matmul_exp
// as loops with an online log-sum-exp per output element; tt_embedding and gru_cell in their own files.
#include <cmath>

#include "backends/cpu/kernels/eigen_maps.hpp"
#include "backends/cpu/kernels/kernel_args.hpp"
#include "backends/cpu/kernels/threaded.hpp"

namespace gp::cpu {

namespace {

// y[b] = a[b] * w[b] for every batch b (2-D matmul is batch 1).
template <typename T>
void matmul_forward(const ForwardArgs<T>& a) {
  MatmulDims d = matmul_dims(a.call);
  for (std::int64_t b = 0; b < d.batch; ++b) {
    ConstMat<T> lhs(a.x[0] + b * d.m * d.k, d.m, d.k);
    ConstMat<T> rhs(a.x[1] + b * d.k * d.n, d.k, d.n);
    product_by_rows(Mat<T>(a.y + b * d.m * d.n, d.m, d.n), lhs, rhs);
  }
}

// d lhs = G rhs^T, d rhs = lhs^T G.
template <typename T>
void matmul_backward(const BackwardArgs<T>& a) {
  MatmulDims d = matmul_dims(a.call);
  for (std::int64_t b = 0; b < d.batch; ++b) {
    ConstMat<T> lhs(a.x[0] + b * d.m * d.k, d.m, d.k);
    ConstMat<T> rhs(a.x[1] + b * d.k * d.n, d.k, d.n);
    ConstMat<T> g(a.dy + b * d.m * d.n, d.m, d.n);
    if (a.dx[0]) product_by_rows(Mat<T>(a.dx[0] + b * d.m * d.k, d.m, d.k), g, rhs.transpose());
    if (a.dx[1]) product_by_rows(Mat<T>(a.dx[1] + b * d.k * d.n, d.k, d.n), lhs.transpose(), g);
  }
}

// y = x W^T + bias, x [m, k], W [n, k], bias [n].
template <typename T>
void linear_forward(const ForwardArgs<T>& a) {
  MatmulDims d = matmul_dims(a.call);
  ConstMat<T> x(a.x[0], d.m, d.k), w(a.x[1], d.n, d.k);
  Mat<T> y(a.y, d.m, d.n);
  product_by_rows(y, x, w.transpose());
  y.rowwise() += ConstRow<T>(a.x[2], d.n);
}

// dx = G W, dW = G^T x, dbias = column sums of G.
template <typename T>
void linear_backward(const BackwardArgs<T>& a) {
  MatmulDims d = matmul_dims(a.call);
  ConstMat<T> x(a.x[0], d.m, d.k), w(a.x[1], d.n, d.k), g(a.dy, d.m, d.n);
  if (a.dx[0]) product_by_rows(Mat<T>(a.dx[0], d.m, d.k), g, w);
  if (a.dx[1]) product_by_rows(Mat<T>(a.dx[1], d.n, d.k), g.transpose(), x);
  if (a.dx[2]) Row<T>(a.dx[2], d.n) = g.colwise().sum();
}

// Log-sum-exp in one pass: the running maximum and rest = the sum, over every term seen but the
// maximum's, of exp(t - max). A new maximum rescales rest, the old maximum's term (1) joining
// it, so no term is exp'd unshifted; the maximum's term stays out of the sum so that log1p(rest)
// keeps the digits of a row dominated by one term.
template <typename T>
struct OnlineLogSumExp {
  T max, rest = 0;
  explicit OnlineLogSumExp(T first) : max(first) {}
  void add(T t) {
    if (t > max) {
      rest = (rest + 1) * std::exp(max - t);
      max = t;
    } else {
      rest += std::exp(t - max);
    }
  }
  T value() const { return max + std::log1p(rest); }
  // A term's weight exp(t - max) / sum in the value: its gradient, stable where exp(t - value)
  // of the value would carry the value's rounding, |value| u, into the exponent.
  T weight(T t) const { return std::exp(t - max) / (T(1) + rest); }
};

// C_ij's log-sum-exp over p, as the forward computes it.
template <typename T>
OnlineLogSumExp<T> log_sum_exp_at(const T* lhs, const T* rhs, const MatmulDims& d, std::int64_t i, std::int64_t j) {
  OnlineLogSumExp<T> lse(lhs[i * d.k] + rhs[j]);
  for (std::int64_t p = 1; p < d.k; ++p) lse.add(lhs[i * d.k + p] + rhs[p * d.n + j]);
  return lse;
}

// C_ij = log sum_p exp(A_ip + B_pj).
template <typename T>
void log_matmul_exp_forward(const ForwardArgs<T>& a) {
  const MatmulDims d = matmul_dims(a.call);
  for (std::int64_t i = 0; i < d.m; ++i)
    for (std::int64_t j = 0; j < d.n; ++j) a.y[i * d.n + j] = log_sum_exp_at(a.x[0], a.x[1], d, i, j).value();
}

// The weight of term p in C_ij, recomputed from A and B (not exp(A_ip + B_pj - C_ij) from the
// stored C: docs/error-model.md, "Backward formulations"), times g_ij goes to both dA_ip (summed
// over j) and dB_pj (summed over i).
template <typename T>
void log_matmul_exp_backward(const BackwardArgs<T>& a) {
  const MatmulDims d = matmul_dims(a.call);
  const T *lhs = a.x[0], *rhs = a.x[1];
  clear_gradient(a.dx[0], d.m * d.k);
  clear_gradient(a.dx[1], d.k * d.n);
  for (std::int64_t i = 0; i < d.m; ++i) {
    for (std::int64_t j = 0; j < d.n; ++j) {
      const OnlineLogSumExp<T> lse = log_sum_exp_at(lhs, rhs, d, i, j);
      const T g = a.dy[i * d.n + j];
      for (std::int64_t p = 0; p < d.k; ++p) {
        const T w = g * lse.weight(lhs[i * d.k + p] + rhs[p * d.n + j]);
        if (a.dx[0]) a.dx[0][i * d.k + p] += w;
        if (a.dx[1]) a.dx[1][p * d.n + j] += w;
      }
    }
  }
}

}  // namespace

template <typename T>
void linalg_forward(const ForwardArgs<T>& a) {
  switch (a.call.kind) {
    case OpKind::matmul:
      return matmul_forward(a);
    case OpKind::linear:
      return linear_forward(a);
    case OpKind::tt_embedding:
      return tt_embedding_forward(a);
    case OpKind::log_matmul_exp:
      return log_matmul_exp_forward(a);
    case OpKind::gru_cell:
      return gru_cell_forward(a);
    default:
      fail(a.call, "is not a linear-algebra op");
  }
}

template <typename T>
void linalg_backward(const BackwardArgs<T>& a) {
  switch (a.call.kind) {
    case OpKind::matmul:
      return matmul_backward(a);
    case OpKind::linear:
      return linear_backward(a);
    case OpKind::tt_embedding:
      return tt_embedding_backward(a);
    case OpKind::log_matmul_exp:
      return log_matmul_exp_backward(a);
    case OpKind::gru_cell:
      return gru_cell_backward(a);
    default:
      fail(a.call, "is not a linear-algebra op");
  }
}

GP_CPU_INSTANTIATE(linalg_forward, linalg_backward)

}  // namespace gp::cpu
