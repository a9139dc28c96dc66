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
#include <array>
#include <cmath>
#include <limits>

#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

template <class R>
struct Span {
  bool inside = false;  // t_0 <= x < t_{grid + 2k}
  std::int64_t s = 0;   // u in [s, s + 1)
  R f = R(0);           // u - s
  // Tracked only: how far past the knot s (left) and the knot s + 1 (right) a kernel's u may lie,
  // its worst-case error less the distance to that knot; 0 where the knot is out of reach.
  long double past_left = 0, past_right = 0;
  // Tracked only: the spans a kernel's u may fall in (clamped far outside the grid); more than
  // the two next to a knot when the error reaches a whole span.
  std::int64_t first_span = 0, last_span = 0;
  bool any_span() const { return last_span - first_span >= 2; }
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
  const R s = floor(u);
  if constexpr (kTracked<R>) {
    long double reach = kFormulation * (u.e.det + u.e.acc);
    // Past the compute arithmetic's range u's bound is infinite, but the kernel's u is then an
    // infinity of u's sign, far outside the grid, or within u's two roundings of u.
    const long double input_reach = kFormulation * (x.e.det + x.e.acc) * g.half_grid();
    if (!(reach < std::numeric_limits<long double>::infinity()) && input_reach < std::fabs(u.v))
      reach = input_reach + kFormulation * 2 * rounding_unit().u * std::fabs(u.v);
    const long double f = u.v - s.v;
    sp.past_left = std::fmax(reach - f, 0.0L);
    sp.past_right = std::fmax(reach - (1 - f), 0.0L);
    auto span_at = [](long double w) {
      return static_cast<std::int64_t>(std::fmax(std::fmin(std::floor(w), 1e9L), -1e9L));
    };
    sp.first_span = span_at(u.v - reach);
    sp.last_span = span_at(u.v + reach);
    if (!sp.inside) sp.s = span_at(u.v);
  }
  if (!sp.inside) return sp;
  sp.s = static_cast<std::int64_t>(static_cast<long double>(s));
  sp.f = u - s;
  return sp;
}

// A kernel's knot coordinate u' differs from u by up to its error bound, and where that reaches
// past a knot a correct kernel evaluates the neighbouring span (or, past t_0 or the last knot,
// none). Two adjacent pieces of a degree-k B-spline agree to order k - 1 at their knot, so at a
// distance d past it they differ by the jump of the k-th derivative times d^k / k!; with the knots
// at the integers that jump is binom(k + 1, j) at the j-th knot of a basis' support (the k-th
// derivative is (-1)^j binom(k, j) on its j-th span), at most kKnotJump[k]. The bases' u-derivative
// of degree k - 1 jumps as much in its (k - 1)-th derivative, times d^(k - 1) / (k - 1)!. Found by
// hunt: f32 and f64 bases next to a knot given as tiny nonzero values where the reference's span
// has an exact 0 with no bound. The bases touched are those of both spans, m = s - 1 .. s + k + 1.
// The terms enter det, which the bound counts kFormulation times: room for the kernel's own
// roundings of those values. Where the error reaches a whole span, no bound of the row holds:
// it is outside the model's range (docs/error-model.md, Range).
constexpr std::array<long double, kBsplineMaxOrder + 1> kKnotJump = {1, 2, 3, 6, 10, 20};

bool touched(const Span<Tracked>& sp, const BsplineGeometry& g, std::int64_t m) {
  return sp.any_span() ? m >= sp.first_span && m <= sp.last_span + g.order : m >= sp.s - 1 && m <= sp.s + g.order + 1;
}
long double knot_term(const Span<Tracked>& sp, int power) {
  if (sp.any_span()) return std::numeric_limits<long double>::infinity();
  long double t = 0, factorial = 1;
  for (int i = 2; i <= power; ++i) factorial *= i;
  for (long double d : {sp.past_left, sp.past_right})
    if (d > 0) t = std::fmax(t, std::pow(d, power) / factorial);
  return t;
}
template <class R>
void add_knot_reach(const Span<R>& sp, const BsplineGeometry& g, std::int64_t row, BasicRefTensor<R>& out) {
  if constexpr (kTracked<R>) {
    const long double extra = kKnotJump[at(g.order)] * knot_term(sp, g.order);
    if (!(extra > 0)) return;
    for (std::int64_t m = 0; m < g.bases(); ++m)
      if (touched(sp, g, m)) out.v[at(row + m)].e.det += extra;
  }
}
template <class R>
void add_knot_reach_to_gradient(const Span<R>& sp, const BsplineGeometry& g, const R* dout, R& dx) {
  if constexpr (kTracked<R>) {
    const long double slope = g.half_grid() * kKnotJump[at(g.order)] * knot_term(sp, g.order - 1);
    if (!(slope > 0)) return;
    long double weight = 0;
    for (std::int64_t m = 0; m < g.bases(); ++m)
      if (touched(sp, g, m)) weight += std::fabs(dout[m].v);
    dx.e.det += slope * weight;
  }
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
    if (sp.inside) {
      const std::vector<R> n = span_bases(sp.f, g.order);
      for (std::int64_t r = 0; r <= g.order; ++r) {
        const std::int64_t m = sp.s + r;
        if (m >= 0 && m < nb) out.v[at(v * nb + m)] = n[at(r)];
      }
    }
    add_knot_reach(sp, g, v * nb, out);
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
    if (sp.inside) {
      const std::vector<R> q = span_bases(sp.f, g.order - 1);
      auto d = [&](std::int64_t m) { return m >= 0 && m < nb ? dout.v[at(v * nb + m)] : R(0); };
      Sum<R> sum;
      for (std::int64_t r = 0; r < g.order; ++r) sum.add_product(q[at(r)], d(sp.s + 1 + r) - d(sp.s + r));
      dx.v[at(v)] = R(g.half_grid()) * sum.result();
    }
    add_knot_reach_to_gradient(sp, g, &dout.v[at(v * nb)], dx.v[at(v)]);
  }
  return {std::move(dx)};
}

GP_REF_INSTANTIATE(bspline_basis)
}  // namespace gp::ref::detail
