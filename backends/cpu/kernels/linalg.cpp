// Linear algebra (matmul, linear) through Eigen maps over the row-major buffers; tt_embedding in
// tt_embedding.cpp.
#include "backends/cpu/kernels/eigen_maps.hpp"
#include "backends/cpu/kernels/kernel_args.hpp"

namespace gp::cpu {

namespace {

// y[b] = a[b] * w[b] for every batch b (2-D matmul is batch 1).
template <typename T>
void matmul_forward(const ForwardArgs<T>& a) {
  MatmulDims d = matmul_dims(a.call);
  for (std::int64_t b = 0; b < d.batch; ++b) {
    ConstMat<T> lhs(a.x[0] + b * d.m * d.k, d.m, d.k);
    ConstMat<T> rhs(a.x[1] + b * d.k * d.n, d.k, d.n);
    Mat<T>(a.y + b * d.m * d.n, d.m, d.n).noalias() = lhs * rhs;
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
    if (a.dx[0]) Mat<T>(a.dx[0] + b * d.m * d.k, d.m, d.k).noalias() = g * rhs.transpose();
    if (a.dx[1]) Mat<T>(a.dx[1] + b * d.k * d.n, d.k, d.n).noalias() = lhs.transpose() * g;
  }
}

// y = x W^T + bias, x [m, k], W [n, k], bias [n].
template <typename T>
void linear_forward(const ForwardArgs<T>& a) {
  MatmulDims d = matmul_dims(a.call);
  ConstMat<T> x(a.x[0], d.m, d.k), w(a.x[1], d.n, d.k);
  Mat<T> y(a.y, d.m, d.n);
  y.noalias() = x * w.transpose();
  y.rowwise() += ConstRow<T>(a.x[2], d.n);
}

// dx = G W, dW = G^T x, dbias = column sums of G.
template <typename T>
void linear_backward(const BackwardArgs<T>& a) {
  MatmulDims d = matmul_dims(a.call);
  ConstMat<T> x(a.x[0], d.m, d.k), w(a.x[1], d.n, d.k), g(a.dy, d.m, d.n);
  if (a.dx[0]) Mat<T>(a.dx[0], d.m, d.k).noalias() = g * w;
  if (a.dx[1]) Mat<T>(a.dx[1], d.n, d.k).noalias() = g.transpose() * x;
  if (a.dx[2]) Row<T>(a.dx[2], d.n) = g.colwise().sum();
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
    default:
      fail(a.call, "is not a linear-algebra op");
  }
}

GP_CPU_INSTANTIATE(linalg_forward, linalg_backward)

}  // namespace gp::cpu
