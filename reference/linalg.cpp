// matmul (2-D or batched 3-D) and linear (x W^T + b), sizes from core matmul_dims (log_matmul_exp,
// tt_embedding and gru_cell have their own files). Every output and gradient element is a dot product
// (Sum::add_product; for linear's output the bias is one more term).
//   matmul  C[m,n] = A[m,k] B[k,n]:  dA = dC B^T (length n), dB = A^T dC (length m)
//   linear  Y[m,n] = X[m,k] W[n,k]^T + b[n]:  dX = dY W (length n), dW = dY^T X (length m),
//           db = column sums of dY (length m)
#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

// A dot product, stored into one element.
template <class R>
struct Dot {
  Sum<R> sum;
  void add(const R& a, const R& b) { sum.add_product(a, b); }
  void store(BasicRefTensor<R>& out, std::int64_t at_index) const { out.v[at(at_index)] = sum.result(); }
};

// Index helpers over row-major storage; each batch of a 3-D matmul is a contiguous block.
template <class R>
struct Mat {
  const std::vector<R>& v;
  std::int64_t rows, cols, offset;
  const R& operator()(std::int64_t r, std::int64_t c) const { return v[at(offset + r * cols + c)]; }
};

}  // namespace

template <class R>
BasicRefTensor<R> linalg_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  if (call.kind == OpKind::tt_embedding) return tt_embedding_forward(call, in);
  if (call.kind == OpKind::log_matmul_exp) return log_matmul_exp_forward(call, in);
  if (call.kind == OpKind::gru_cell) return gru_cell_forward(call, in);
  const MatmulDims d = matmul_dims(call);
  BasicRefTensor<R> out = zeros<R>(call.output_shape);
  if (out.numel() != d.batch * d.m * d.n) fail(call, "matmul sizes disagree with the output shape");
  const bool linear = call.kind == OpKind::linear;
  for (std::int64_t bt = 0; bt < d.batch; ++bt) {
    Mat<R> a{in[0].v, d.m, d.k, bt * d.m * d.k};
    Mat<R> b = linear ? Mat<R>{in[1].v, d.n, d.k, 0} : Mat<R>{in[1].v, d.k, d.n, bt * d.k * d.n};
    for (std::int64_t i = 0; i < d.m; ++i) {
      for (std::int64_t j = 0; j < d.n; ++j) {
        Dot<R> dot;
        for (std::int64_t p = 0; p < d.k; ++p) dot.add(a(i, p), linear ? b(j, p) : b(p, j));
        if (linear) dot.sum.add(in[2].v[at(j)]);
        dot.store(out, (bt * d.m + i) * d.n + j);
      }
    }
  }
  return out;
}

template <class R>
std::vector<BasicRefTensor<R>> linalg_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                          const BasicRefTensor<R>& dout) {
  if (call.kind == OpKind::tt_embedding) return tt_embedding_vjp(call, in, dout);
  if (call.kind == OpKind::log_matmul_exp) return log_matmul_exp_vjp(call, in, dout);
  if (call.kind == OpKind::gru_cell) return gru_cell_vjp(call, in, dout);
  const MatmulDims d = matmul_dims(call);
  const bool linear = call.kind == OpKind::linear;
  BasicRefTensor<R> ga = zeros<R>(in[0].shape), gb = zeros<R>(in[1].shape);
  for (std::int64_t bt = 0; bt < d.batch; ++bt) {
    Mat<R> a{in[0].v, d.m, d.k, bt * d.m * d.k};
    Mat<R> b = linear ? Mat<R>{in[1].v, d.n, d.k, 0} : Mat<R>{in[1].v, d.k, d.n, bt * d.k * d.n};
    Mat<R> g{dout.v, d.m, d.n, bt * d.m * d.n};
    // dA[i,p] = sum_j dC[i,j] * B(p,j)   (linear: W[j,p])
    for (std::int64_t i = 0; i < d.m; ++i) {
      for (std::int64_t p = 0; p < d.k; ++p) {
        Dot<R> dot;
        for (std::int64_t j = 0; j < d.n; ++j) dot.add(g(i, j), linear ? b(j, p) : b(p, j));
        dot.store(ga, a.offset + i * d.k + p);
      }
    }
    // dB[p,j] = sum_i A[i,p] dC[i,j]     (linear: dW[j,p] = sum_i dY[i,j] X[i,p])
    for (std::int64_t p = 0; p < d.k; ++p) {
      for (std::int64_t j = 0; j < d.n; ++j) {
        Dot<R> dot;
        for (std::int64_t i = 0; i < d.m; ++i) dot.add(a(i, p), g(i, j));
        dot.store(gb, linear ? j * d.k + p : b.offset + p * d.n + j);
      }
    }
  }
  std::vector<BasicRefTensor<R>> grads{std::move(ga), std::move(gb)};
  if (linear) {
    BasicRefTensor<R> gbias = zeros<R>(in[2].shape);
    for (std::int64_t j = 0; j < d.n; ++j) {
      Dot<R> dot;
      for (std::int64_t i = 0; i < d.m; ++i) dot.sum.add(dout.v[at(i * d.n + j)]);
      dot.store(gbias, j);
    }
    grads.push_back(std::move(gbias));
  }
  return grads;
}

GP_REF_INSTANTIATE(linalg)
}  // namespace gp::ref::detail
