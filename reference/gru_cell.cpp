// gru_cell: one GRU time step in PyTorch's / cuDNN's formulation, gates stacked r, z, n in the
// rows of W_ih, W_hh, b_ih, b_hh (core's GruGeometry). Per batch row b and hidden unit j:
//   a_r = (b_ir + W_ir x) + (b_hr + W_hr h),  a_z likewise,  r = sigmoid(a_r),  z = sigmoid(a_z)
//   p_n = (b_in + W_in x) + r gh_n,  gh_n = b_hn + W_hn h,  n = tanh(p_n)
//   h' = sigmoid(-a_z) n + z h       (1 - z as sigmoid(-a_z): no subtraction near z = 1)
// Each bracket is one dot product with its bias as one more term (Sum: any order). The VJP, g = dh':
//   da_n = (g sigmoid(-a_z)) tanh'(p_n),  da_z = (g (h - n)) sigmoid'(a_z),  da_r = (da_n gh_n) sigmoid'(a_r)
//   gate gradients dgi = (da_r, da_z, da_n) and dgh = (da_r, da_z, da_n r) at the unit's rows
//   dx = dgi W_ih,  dh = g z + dgh W_hh,  dW_ih = dgi^T x,  dW_hh = dgh^T h,  db_ih, db_hh = sums of dgi, dgh
// over the batch. The derivatives come from the unary table (sech^2 and sigmoid' from exp(-|t|));
// a kernel may read them from the gates instead, 1 - n^2 and z sigmoid(-a_z) (either_form). The
// kernels evaluate these expressions in this association, recomputing a unit's gates wherever
// they need them.
#include "reference/internal.hpp"
#include "reference/unary_math.hpp"

namespace gp::ref::detail {

namespace {

template <class R>
R unary(OpKind op, const R& x) {
  return basic_unary_math<R>(op)->f(x, OpAttrs{});
}
template <class R>
R slope(OpKind op, const R& x) {
  return basic_unary_math<R>(op)->d1(x, OpAttrs{});
}

// The gates of hidden unit j of batch row b.
template <class R>
struct GruUnit {
  R a_r, a_z, gh_n, p_n;
  R r, r_minus, z, z_minus, n;  // r_minus = sigmoid(-a_r) = 1 - r, z_minus = 1 - z
};

template <class R>
class GruCell {
 public:
  GruCell(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) : g_(gru_geometry(call)), in_(in) {}
  const GruGeometry& geometry() const { return g_; }

  GruUnit<R> unit(std::int64_t b, std::int64_t j) const {
    GruUnit<R> u;
    u.a_r = affine(kX, b, kGruR, j) + affine(kH, b, kGruR, j);
    u.a_z = affine(kX, b, kGruZ, j) + affine(kH, b, kGruZ, j);
    u.gh_n = affine(kH, b, kGruN, j);
    u.r = unary(OpKind::sigmoid, u.a_r);
    u.r_minus = unary(OpKind::sigmoid, R(-u.a_r));
    u.z = unary(OpKind::sigmoid, u.a_z);
    u.z_minus = unary(OpKind::sigmoid, R(-u.a_z));
    u.p_n = affine(kX, b, kGruN, j) + u.r * u.gh_n;
    u.n = unary(OpKind::tanh, u.p_n);
    return u;
  }
  const R& h(std::int64_t b, std::int64_t j) const { return in_[kH].v[at(b * g_.hidden + j)]; }

 private:
  static constexpr int kX = 0, kH = 1;  // inputs; the weights and biases of each follow at +2, +4
  // b + W v for row (gate, j) of input v's weights.
  R affine(int v, std::int64_t b, int gate, std::int64_t j) const {
    const std::int64_t len = v == kX ? g_.input : g_.hidden, row = g_.row(gate, j);
    Sum<R> s;
    s.add(in_[v + 4].v[at(row)]);
    for (std::int64_t k = 0; k < len; ++k) s.add_product(in_[v + 2].v[at(row * len + k)], in_[v].v[at(b * len + k)]);
    return s.result();
  }
  GruGeometry g_;
  const std::vector<BasicRefTensor<R>>& in_;
};

// A unit's gate gradients at its three rows of the input and the hidden weights, and its z.
template <class R>
struct GateGrads {
  R gi[kGruGates], gh[kGruGates], z;
};

template <class R>
GateGrads<R> gate_grads(const GruCell<R>& cell, std::int64_t b, std::int64_t j, const R& g) {
  const GruUnit<R> u = cell.unit(b, j);
  R tanh_slope = slope(OpKind::tanh, u.p_n), z_slope = slope(OpKind::sigmoid, u.a_z);
  R r_slope = slope(OpKind::sigmoid, u.a_r);
  if constexpr (kTracked<R>)
    if (backward_reads_output()) {
      tanh_slope = either_form(tanh_slope, R(1 - u.n * u.n));
      z_slope = either_form(z_slope, R(u.z * u.z_minus));
      r_slope = either_form(r_slope, R(u.r * u.r_minus));
    }
  GateGrads<R> d;
  const R da_n = (g * u.z_minus) * tanh_slope, da_z = (g * (cell.h(b, j) - u.n)) * z_slope;
  const R da_r = (da_n * u.gh_n) * r_slope;
  d.gi[kGruR] = d.gh[kGruR] = da_r;
  d.gi[kGruZ] = d.gh[kGruZ] = da_z;
  d.gi[kGruN] = da_n;
  d.gh[kGruN] = da_n * u.r;
  d.z = u.z;
  return d;
}

}  // namespace

template <class R>
BasicRefTensor<R> gru_cell_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const GruCell<R> cell(call, in);
  const GruGeometry& g = cell.geometry();
  BasicRefTensor<R> out = zeros<R>(call.output_shape);
  for (std::int64_t b = 0; b < g.batch; ++b) {
    for (std::int64_t j = 0; j < g.hidden; ++j) {
      const GruUnit<R> u = cell.unit(b, j);
      out.v[at(b * g.hidden + j)] = u.z_minus * u.n + u.z * cell.h(b, j);
    }
  }
  return out;
}

template <class R>
std::vector<BasicRefTensor<R>> gru_cell_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                            const BasicRefTensor<R>& dout) {
  const GruCell<R> cell(call, in);
  const GruGeometry& g = cell.geometry();
  const std::int64_t B = g.batch, I = g.input, H = g.hidden, rows = kGruGates * H;
  std::vector<Sum<R>> dx(at(B * I)), dh(at(B * H)), dw_ih(at(rows * I)), dw_hh(at(rows * H)), db_ih(at(rows)),
      db_hh(at(rows));
  const std::vector<R>&x = in[0].v, &h = in[1].v, &w_ih = in[2].v, &w_hh = in[3].v;
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t j = 0; j < H; ++j) {
      const R& gj = dout.v[at(b * H + j)];
      const GateGrads<R> d = gate_grads(cell, b, j, gj);
      dh[at(b * H + j)].add_product(gj, d.z);
      for (int gate = 0; gate < kGruGates; ++gate) {
        const std::int64_t row = g.row(gate, j);
        for (std::int64_t k = 0; k < I; ++k) {
          dx[at(b * I + k)].add_product(w_ih[at(row * I + k)], d.gi[gate]);
          dw_ih[at(row * I + k)].add_product(d.gi[gate], x[at(b * I + k)]);
        }
        for (std::int64_t k = 0; k < H; ++k) {
          dh[at(b * H + k)].add_product(w_hh[at(row * H + k)], d.gh[gate]);
          dw_hh[at(row * H + k)].add_product(d.gh[gate], h[at(b * H + k)]);
        }
        db_ih[at(row)].add(d.gi[gate]);
        db_hh[at(row)].add(d.gh[gate]);
      }
    }
  }
  return {results(in[0].shape, dx),    results(in[1].shape, dh),    results(in[2].shape, dw_ih),
          results(in[3].shape, dw_hh), results(in[4].shape, db_ih), results(in[5].shape, db_hh)};
}

GP_REF_INSTANTIATE(gru_cell)
}  // namespace gp::ref::detail
