// bspline_basis for rowwise.comp: a row of bases per value, nothing to reduce, so one invocation
// per value (pc.outer values, rows of pc.n = grid + order) and no barrier. In the knot coordinate
// u = (x + 1) * grid / 2 the knots are the integers; the recursion over the order + 1 bases of
// one knot span is derived in reference/bspline_basis.cpp.
#define BSPLINE_MAX_ORDER 5

// bs_n[r] = B_{s+order-degree+r, degree} at fraction f of the span [s, s + 1): each level's
// terms are nonnegative.
C bs_n[BSPLINE_MAX_ORDER + 1];
void bspline_bases(C f, int degree) {
  bs_n[0] = K(1.0);
  for (int d = 1; d <= degree; ++d) {
    C left = K(0.0);  // the term of bs_n[r - 1], carried to the next r
    for (int r = 0; r < d; ++r) {
      C nr = bs_n[r];
      bs_n[r] = r == 0 ? (K(1.0) - f) * nr / C(d) : (left + (C(r + 1) - f) * nr) / C(d);
      left = (f + C(d - r - 1)) * nr;
    }
    bs_n[d] = left / C(d);
  }
}

C bspline_half_grid() { return C(pc.grid) * K(0.5); }

// False outside [t_0, t_{grid + 2 order}), where every basis is zero.
bool bspline_span(C x, out int s, out C f) {
  s = 0;
  f = K(0.0);
  C u = (x + K(1.0)) * bspline_half_grid();
  if (u < -C(pc.order) || !(u < C(pc.grid + pc.order))) return false;
  C fl = floor(u);
  s = int(fl);
  f = u - fl;
  return true;
}

// The output gradient of basis m of the row starting at `row`: zero outside the row.
C bspline_g(uint row, int m) { return m >= 0 && m < int(pc.n) ? TO_C(g_[row + uint(m)]) : K(0.0); }

// Forward: the row of bases; backward: dx = (grid / 2) sum_r q[r] (g_{s+1+r} - g_{s+r}), q the
// bases of degree order - 1.
void bspline_basis() {
  uint v = group_linear() * WG + gl_LocalInvocationID.x;
  if (v >= pc.outer) return;
  int order = int(pc.order), s;
  uint row = v * pc.n;
  C f;
  bool inside = bspline_span(TO_C(x_[v]), s, f);
  if (!BWD) {
    if (inside) bspline_bases(f, order);
    for (int m = 0; m < int(pc.n); ++m)
      y_[row + uint(m)] = FROM_C(inside && m >= s && m <= s + order ? bs_n[clamp(m - s, 0, order)] : K(0.0));
    return;
  }
  C sum = K(0.0);
  if (inside) {
    bspline_bases(f, order - 1);
    for (int r = 0; r < order; ++r) sum += bs_n[r] * (bspline_g(row, s + 1 + r) - bspline_g(row, s + r));
  }
  dx_[v] = FROM_C(bspline_half_grid() * sum);
}
