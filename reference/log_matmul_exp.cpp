// log_matmul_exp: the matrix product of the (max, +) semiring smoothed, C[m,n] from A[m,k] and
// B[k,n] with C_ij = log sum_p exp(A_ip + B_pj). Each output element is the log-sum-exp of the
// row t_p = A_ip + B_pj, written the stable way (softmax_row: maximum subtracted, the maximum's
// term exactly 1, log1p of the others), so that entries whose exp overflows and rows dominated
// by one term keep their digits and Tracked bounds a stable kernel, not exp of the raw sums.
//   dA_ip = sum_j g_ij P_ijp,  dB_pj = sum_i g_ij P_ijp,  P_ijp = exp(t_p - C_ij) = softmax(t)_p
// P is the normalised term of the row, or exp(A_ip + B_pj - C_ij) from the stored C as a kernel
// that receives the forward output computes it (either_form: the error of either).
#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

template <class R>
struct LogMatmulRow {
  std::vector<R> t;  // t_p = A_ip + B_pj, rounded once as a kernel forms it
  SoftmaxRow<R> lse;
  R value() const { return lse.max + lse.log_sum; }
};

template <class R>
LogMatmulRow<R> row_of(const std::vector<BasicRefTensor<R>>& in, const MatmulDims& d, std::int64_t i, std::int64_t j) {
  LogMatmulRow<R> r;
  r.t.reserve(at(d.k));
  for (std::int64_t p = 0; p < d.k; ++p) r.t.push_back(in[0].v[at(i * d.k + p)] + in[1].v[at(p * d.n + j)]);
  r.lse = softmax_row(r.t);
  return r;
}

MatmulDims checked_dims(const OpCall& call) {
  const MatmulDims d = matmul_dims(call);
  if (d.batch != 1 || call.output_shape.numel() != d.m * d.n) fail(call, "sizes disagree with the output shape");
  return d;
}

}  // namespace

template <class R>
BasicRefTensor<R> log_matmul_exp_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const MatmulDims d = checked_dims(call);
  BasicRefTensor<R> out = zeros<R>(call.output_shape);
  for (std::int64_t i = 0; i < d.m; ++i)
    for (std::int64_t j = 0; j < d.n; ++j) out.v[at(i * d.n + j)] = row_of(in, d, i, j).value();
  return out;
}

template <class R>
std::vector<BasicRefTensor<R>> log_matmul_exp_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                                  const BasicRefTensor<R>& dout) {
  using std::exp;
  const MatmulDims d = checked_dims(call);
  std::vector<Sum<R>> da(at(d.m * d.k)), db(at(d.k * d.n));
  for (std::int64_t i = 0; i < d.m; ++i) {
    for (std::int64_t j = 0; j < d.n; ++j) {
      const LogMatmulRow<R> r = row_of(in, d, i, j);
      const R g = dout.v[at(i * d.n + j)];
      for (std::int64_t p = 0; p < d.k; ++p) {
        R weight = r.lse.p[at(p)];
        if constexpr (kTracked<R>)
          if (backward_reads_output()) weight = either_form(weight, exp(r.t[at(p)] - stored(r.value())));
        da[at(i * d.k + p)].add_product(g, weight);
        db[at(p * d.n + j)].add_product(g, weight);
      }
    }
  }
  BasicRefTensor<R> ga = zeros<R>(in[0].shape), gb = zeros<R>(in[1].shape);
  for (std::size_t e = 0; e < da.size(); ++e) ga.v[e] = da[e].result();
  for (std::size_t e = 0; e < db.size(); ++e) gb.v[e] = db[e].result();
  return {std::move(ga), std::move(gb)};
}

GP_REF_INSTANTIATE(log_matmul_exp)
}  // namespace gp::ref::detail
