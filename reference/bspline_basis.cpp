// bspline_basis: the B-spline bases of degree k = order on core's uniform grid (BsplineGeometry),
// computed in the knot coordinate u = (x + 1) * (grid / 2), where the knots are the integers
// -k .. grid + k. Writing knot spacing h as 1 there keeps the knots exact (-1 + (j - k) h is not
// exact for grid 5) and turns every span width t_{m+d} - t_m into the integer d.
//
// x lies in the span [s, s + 1) of u (s = floor(u); f = u - s, exact). The bases of degree d that
// are nonzero there are N_d[r] = B_{s+k-d+r, d}(x), r = 0..d, and Cox-de Boor's recursion reads
//   N_0[0] = 1,  N_d[r] = ((f + d - r) N_{d-1}[r-1] + (r + 1 - f) N_{d-1}[r]) / d
// (a term whose N_{d-1} index falls outside 0..d-1 is absent): sums of nonnegative terms, so the
// bound of no value grows with a cancellation. Output element m = s + r of the value's row is
// N_k[r] where 0 <= m < grid + k; x outside [t_0, t_{grid+2k}) has an all-zero row.
//
// Gradient: dB_{m,k}/dx = (grid / 2) (B_{m,k-1} - B_{m+1,k-1}); summed by parts against dout,
//   dx = (grid / 2) sum_r Q[r] (dout_{s+1+r} - dout_{s+r}),   Q = N_{k-1}, r = 0..k-1,
// with dout_m = 0 outside 0..grid+k-1. The differences are of exact inputs, where the
// unsummed form takes differences of two rounded bases, which cancel at every basis maximum.
#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

template <class R>
struct Span {
  bool inside = false;  // t_0 <= x < t_{grid + 2k}
  std::int64_t s = 0;   // u in [s, s + 1)
  R f = R(0);           // u - s
};

// u = (x + 1) * grid / 2. Under the reference's own bounds (no device profile: those its
// finite-difference check takes for evaluations at x +- t delta) both roundings are charged even
// where they are exact at x: a storage value plus 1 fits long double, a shifted x does not, and
// the absolute error u |u| of the knot coordinate reaches a basis amplified by up to
// order |u| / f, far beyond the few units of the value that check adds for such roundings.
template <class R>
R knot_coordinate(const R& x, const BsplineGeometry& g) {
  if constexpr (kTracked<R>) {
    if (!tracking_context().profile) {
      ErrorBound e;
      propagate(e, x.e, 1);
      const Tracked sum = rounded(x.v + 1, e, false);
      ErrorBound eu;
      propagate(eu, sum.e, g.half_grid());
      return rounded(sum.v * g.half_grid(), eu, false);
    }
  }
  return (x + R(1)) * R(g.half_grid());
}

template <class R>
Span<R> span_of(const R& x, const BsplineGeometry& g) {
  using std::floor;
  const R u = knot_coordinate(x, g);
  Span<R> sp;
  sp.inside = !(u < R(-g.order)) && u < R(g.grid + g.order);
  if (!sp.inside) return sp;
  const R s = floor(u);
  sp.s = static_cast<std::int64_t>(static_cast<long double>(s));
  sp.f = u - s;
  return sp;
}

// N_degree[0..degree] of the span at fraction f.
template <class R>
std::vector<R> span_bases(const R& f, int degree) {
  std::vector<R> n{R(1)};
  for (int d = 1; d <= degree; ++d) {
    std::vector<R> next(at(d + 1));
    for (int r = 0; r <= d; ++r) {
      const bool left = r >= 1, right = r <= d - 1;
      const R lt = left ? (f + R(d - r)) * n[at(r - 1)] : R(0);
      const R rt = right ? (R(r + 1) - f) * n[at(r)] : R(0);
      next[at(r)] = (left && right ? lt + rt : left ? lt : rt) / R(d);
    }
    n = std::move(next);
  }
  return n;
}

}  // namespace

template <class R>
BasicRefTensor<R> bspline_basis_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const BsplineGeometry g = bspline_geometry(call);
  const std::int64_t nb = g.bases();
  BasicRefTensor<R> out = zeros<R>(call.output_shape);
  for (std::int64_t v = 0; v < in[0].numel(); ++v) {
    const Span<R> sp = span_of(in[0].v[at(v)], g);
    if (!sp.inside) continue;
    const std::vector<R> n = span_bases(sp.f, g.order);
    for (std::int64_t r = 0; r <= g.order; ++r) {
      const std::int64_t m = sp.s + r;
      if (m >= 0 && m < nb) out.v[at(v * nb + m)] = n[at(r)];
    }
  }
  return out;
}

template <class R>
std::vector<BasicRefTensor<R>> bspline_basis_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                                 const BasicRefTensor<R>& dout) {
  const BsplineGeometry g = bspline_geometry(call);
  const std::int64_t nb = g.bases();
  BasicRefTensor<R> dx = zeros<R>(in[0].shape);
  for (std::int64_t v = 0; v < in[0].numel(); ++v) {
    const Span<R> sp = span_of(in[0].v[at(v)], g);
    if (!sp.inside) continue;
    const std::vector<R> q = span_bases(sp.f, g.order - 1);
    auto d = [&](std::int64_t m) { return m >= 0 && m < nb ? dout.v[at(v * nb + m)] : R(0); };
    Sum<R> sum;
    for (std::int64_t r = 0; r < g.order; ++r) sum.add_product(q[at(r)], d(sp.s + 1 + r) - d(sp.s + r));
    dx.v[at(v)] = R(g.half_grid()) * sum.result();
  }
  return {std::move(dx)};
}

GP_REF_INSTANTIATE(bspline_basis)
}  // namespace gp::ref::detail
