// matmul (2-D or batched 3-D) and linear (x W^T + b), sizes from core matmul_dims (log_matmul_exp,
// tt_embedding and gru_cell have their own files). Every output and gradient element is a dot product
// (Sum::add_product; for linear's output the bias is one more term).
//   matmul  C[m,n] = A[m,k] B[k,n]:  dA = dC B^T (length n), dB = A^T dC (length m)
//   linear  Y[m,n] = X[m,k] W[n,k]^T + b[n]:  dX = dY W (length n), dW = dY^T X (length m),
//           db = column sums of dY (length m)
#include <algorithm>
#include <array>
#include <type_traits>
#include <utility>

#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

// Dot products of one length, kLanes at a time. Each lane's terms come in the order they would
// alone (p = 0, 1, ... k-1), so every sum is the one a single running sum gives, bit for bit;
// the lanes' independent chains overlap and read the operands' rows in order, where one chain at
// a time waits on each addition and walks a column. In long double (the probes through a model)
// that was two fifths of a model's reference time.
template <class R, class Term, class Store>
void lane_dots(std::int64_t count, std::int64_t length, const Term& term, const Store& store) {
  constexpr std::int64_t kLanes = 8;
  std::int64_t first = 0;
  if constexpr (std::is_same_v<R, long double>) {
    // Four running sums in x87 registers: as Sum<long double> objects they went through memory
    // (an 80-bit store per term). Each is s += a * b from +0, as Sum<long double> adds, and
    // handed over through add(), which adds it to +0 exactly (a running sum from +0 is never -0).
    for (; first + 4 <= count; first += 4) {
      long double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (std::int64_t t = 0; t < length; ++t) {
        const auto [x0, y0] = term(first, t);
        const auto [x1, y1] = term(first + 1, t);
        const auto [x2, y2] = term(first + 2, t);
        const auto [x3, y3] = term(first + 3, t);
        s0 += x0 * y0;
        s1 += x1 * y1;
        s2 += x2 * y2;
        s3 += x3 * y3;
      }
      for (const auto& [lane, s] : {std::pair{0, s0}, std::pair{1, s1}, std::pair{2, s2}, std::pair{3, s3}}) {
        Sum<R> sum;
        sum.add(s);
        store(first + lane, sum);
      }
    }
  }
  for (; first < count; first += kLanes) {
    const std::int64_t lanes = std::min(kLanes, count - first);
    std::array<Sum<R>, kLanes> sums{};
    for (std::int64_t t = 0; t < length; ++t)
      for (std::int64_t l = 0; l < lanes; ++l) {
        const auto [x, y] = term(first + l, t);
        sums[at(l)].add_product(x, y);
      }
    for (std::int64_t l = 0; l < lanes; ++l) store(first + l, sums[at(l)]);
  }
}

// Index helpers over row-major storage; each batch of a 3-D matmul is a contiguous block.
template <class R>
struct Mat {
  const std::vector<R>& v;
  std::int64_t rows, cols, offset;
  const R& operator()(std::int64_t r, std::int64_t c) const { return v[at(offset + r * cols + c)]; }
};

template <class R>
using Terms = std::pair<const R&, const R&>;

// The matmul unit serves matmul and linear (reference/dispatch.cpp routes them here).
bool is_linear(const OpCall& call) { return call.kind == OpKind::linear; }

}  // namespace

template <class R>
BasicRefTensor<R> linalg_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const MatmulDims d = matmul_dims(call);
  BasicRefTensor<R> out = zeros<R>(call.output_shape);
  if (out.numel() != d.batch * d.m * d.n) fail(call, "matmul sizes disagree with the output shape");
  const bool linear = is_linear(call);
  for (std::int64_t bt = 0; bt < d.batch; ++bt) {
    Mat<R> a{in[0].v, d.m, d.k, bt * d.m * d.k};
    Mat<R> b = linear ? Mat<R>{in[1].v, d.n, d.k, 0} : Mat<R>{in[1].v, d.k, d.n, bt * d.k * d.n};
    for (std::int64_t i = 0; i < d.m; ++i) {
      // C[i,j] = sum_p A[i,p] B[p,j]   (linear: W[j,p], then the bias)
      lane_dots<R>(
          d.n, d.k,
          [&](std::int64_t j, std::int64_t p) {
            return Terms<R>{a(i, p), linear ? b(j, p) : b(p, j)};
          },
          [&](std::int64_t j, Sum<R>& dot) {
            if (linear) dot.add(in[2].v[at(j)]);
            out.v[at((bt * d.m + i) * d.n + j)] = dot.result();
          });
    }
  }
  return out;
}

template <class R>
std::vector<BasicRefTensor<R>> linalg_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                          const BasicRefTensor<R>& dout) {
  const MatmulDims d = matmul_dims(call);
  const bool linear = is_linear(call);
  BasicRefTensor<R> ga = zeros<R>(in[0].shape), gb = zeros<R>(in[1].shape);
  for (std::int64_t bt = 0; bt < d.batch; ++bt) {
    Mat<R> a{in[0].v, d.m, d.k, bt * d.m * d.k};
    Mat<R> b = linear ? Mat<R>{in[1].v, d.n, d.k, 0} : Mat<R>{in[1].v, d.k, d.n, bt * d.k * d.n};
    Mat<R> g{dout.v, d.m, d.n, bt * d.m * d.n};
    // dA[i,p] = sum_j dC[i,j] * B(p,j)   (linear: W[j,p])
    for (std::int64_t i = 0; i < d.m; ++i)
      lane_dots<R>(
          d.k, d.n,
          [&](std::int64_t p, std::int64_t j) {
            return Terms<R>{g(i, j), linear ? b(j, p) : b(p, j)};
          },
          [&](std::int64_t p, Sum<R>& dot) { ga.v[at(a.offset + i * d.k + p)] = dot.result(); });
    // dB[p,j] = sum_i A[i,p] dC[i,j]     (linear: dW[j,p] = sum_i dY[i,j] X[i,p])
    for (std::int64_t p = 0; p < d.k; ++p)
      lane_dots<R>(
          d.n, d.m,
          [&](std::int64_t j, std::int64_t i) {
            return Terms<R>{a(i, p), g(i, j)};
          },
          [&](std::int64_t j, Sum<R>& dot) { gb.v[at(linear ? j * d.k + p : b.offset + p * d.n + j)] = dot.result(); });
  }
  std::vector<BasicRefTensor<R>> grads{std::move(ga), std::move(gb)};
  if (linear) {
    BasicRefTensor<R> gbias = zeros<R>(in[2].shape);
    for (std::int64_t j = 0; j < d.n; ++j) {
      Sum<R> dot;
      for (std::int64_t i = 0; i < d.m; ++i) dot.add(dout.v[at(i * d.n + j)]);
      gbias.v[at(j)] = dot.result();
    }
    grads.push_back(std::move(gbias));
  }
  return grads;
}

GP_REF_INSTANTIATE(linalg)
}  // namespace gp::ref::detail
