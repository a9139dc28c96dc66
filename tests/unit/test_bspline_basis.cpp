// bspline_basis's reference against the contract's own formulas (core/README.md): Cox-de Boor
// over the explicit knot vector, and the derivative as the difference of the two lower-degree
// bases. The reference computes neither way (it works on the nonzero bases of one knot span in
// the knot coordinate), and the oracle only checks its rounding, not its formula: this is
// where the formula is checked. Also the shape rule and the attributes it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/math_profile.hpp"
#include "reference/reference.hpp"

namespace gp::ref {
namespace {

// B_{m,d}(x) on knots t_j = -1 + (j - k) 2 / G, straight from the recursion.
Real textbook(Real x, int m, int d, int k, int grid) {
  auto t = [&](int j) { return Real(-1) + Real(j - k) * Real(2) / Real(grid); };
  if (d == 0) return t(m) <= x && x < t(m + 1) ? Real(1) : Real(0);
  return (x - t(m)) / (t(m + d) - t(m)) * textbook(x, m, d - 1, k, grid) +
         (t(m + d + 1) - x) / (t(m + d + 1) - t(m + 1)) * textbook(x, m + 1, d - 1, k, grid);
}

Real textbook_slope(Real x, int m, int k, int grid) {
  auto t = [&](int j) { return Real(-1) + Real(j - k) * Real(2) / Real(grid); };
  return Real(k) / (t(m + k) - t(m)) * textbook(x, m, k - 1, k, grid) -
         Real(k) / (t(m + k + 1) - t(m + 1)) * textbook(x, m + 1, k - 1, k, grid);
}

OpCall call_for(int order, int grid, std::int64_t n) {
  OpAttrs a;
  a.order = order;
  a.grid = grid;
  return make_call(OpKind::bspline_basis, a, DType::f64, {Shape{n}});
}

// Inside the grid, in the extended spans at either end (partial bases), and outside every knot.
const std::vector<Real> kPoints = {-1.9, -1.55, -1.2, -0.999, -0.73, -0.31, 0.0, 0.123, 0.5, 0.87, 0.999, 1.3, 1.77};

TEST(BsplineBasis, ValuesAndSlopesAreTheContractsRecursion) {
  for (int grid : {5, 8}) {
    for (int k = kBsplineMinOrder; k <= kBsplineMaxOrder; ++k) {
      const auto n = static_cast<std::int64_t>(kPoints.size());
      const OpCall call = call_for(k, grid, n);
      RefTensor x;
      x.shape = Shape{n};
      x.v = kPoints;
      const RefTensor y = forward(call, {x});
      const int nb = grid + k;
      ASSERT_EQ(y.shape, (Shape{n, nb}));
      for (int m = 0; m < nb; ++m) {
        RefTensor dout;  // the unit cotangent of basis m: the VJP is that basis's slope
        dout.shape = y.shape;
        dout.v.assign(y.v.size(), Real(0));
        for (std::int64_t v = 0; v < n; ++v) dout.v[static_cast<std::size_t>(v * nb + m)] = 1;
        const RefTensor dx = vjp(call, {x}, y, dout)[0];
        for (std::int64_t v = 0; v < n; ++v) {
          const Real xv = kPoints[static_cast<std::size_t>(v)];
          const std::string where = "grid " + std::to_string(grid) + " order " + std::to_string(k) + " basis " +
                                    std::to_string(m) + " at x = " + std::to_string(static_cast<double>(xv));
          EXPECT_NEAR(double(y.v[static_cast<std::size_t>(v * nb + m)]), double(textbook(xv, m, k, k, grid)), 1e-15)
              << where;
          EXPECT_NEAR(double(dx.v[static_cast<std::size_t>(v)]), double(textbook_slope(xv, m, k, grid)), 1e-14)
              << where;
        }
      }
    }
  }
}

// A kernel's knot coordinate u = (x + 1) grid / 2, rounded twice, may fall on the other side of a
// knot the exact u lies next to, and the kernel then evaluates the neighbouring span: its bases
// and slope there stay within the bound of every element, the reference's exact zeros outside its
// own span included (found by hunt, where such a zero had no bound). x = -0x1.99999ap-3 has u
// 7.5e-9 below the knot 2; a correct f32 kernel's u lies within two roundings, 2.4e-7, of it.
TEST(BsplineBasis, AKernelOnTheOtherSideOfAKnotStaysWithinTheBound) {
  constexpr int grid = 5;
  const Real x0 = -0x1.99999ap-3L, knot = 2;
  for (int k = kBsplineMinOrder; k <= kBsplineMaxOrder; ++k) {
    OpAttrs a;
    a.order = k;
    a.grid = grid;
    const OpCall call = make_call(OpKind::bspline_basis, a, DType::f32, {Shape{1}});
    RefTensor x, dout;
    x.shape = Shape{1};
    x.v = {x0};
    dout.shape = call.output_shape;
    // Linear over the bases of the reference's span, where the slope does not depend on f, and far
    // from it at the basis the next span adds: only that span's slope differs.
    for (int m = 0; m < grid + k; ++m) dout.v.push_back(m == k + 2 ? 100 : m);
    const Bounded bounded = bounded_evaluate(call, {x}, dout, &correctly_rounded_profile());
    auto bound = [](const ErrorBound& e) { return kFormulation * (e.det - e.spec) + e.spec + e.acc; };
    for (const Real past : {1e-8L, 1e-7L, 2e-7L}) {
      RefTensor there = x;
      there.v = {(knot + past) / (grid / Real(2)) - 1};  // the kernel's u, exactly: the next span
      const RefTensor y = forward(call, {there});
      const RefTensor dx = vjp(call, {there}, y, dout)[0];
      const std::string where =
          "order " + std::to_string(k) + ", u past the knot by " + (std::ostringstream() << double(past)).str();
      for (std::size_t m = 0; m < y.v.size(); ++m)
        EXPECT_LE(std::fabs(y.v[m] - bounded.output.v[m]), bound(bounded.output.err[m])) << where << ", basis " << m;
      EXPECT_LE(std::fabs(dx.v[0] - bounded.grads[0].v[0]), bound(bounded.grads[0].err[0])) << where << ", slope";
    }
  }
}

TEST(BsplineBasis, ShapeRuleAndRefusedAttributes) {
  OpAttrs a;
  EXPECT_EQ(make_call(OpKind::bspline_basis, a, DType::f32, {Shape{7, 3}}).output_shape, (Shape{7, 3, 8}));
  EXPECT_EQ(attrs_to_string(OpKind::bspline_basis, a), "order=3,grid=5");
  EXPECT_THROW(make_call(OpKind::bspline_basis, a, DType::f32, {Shape{2, 2, 2, 2}}), Error);  // rank 5 out
  for (int bad_order : {1, 6}) {
    a.order = bad_order;
    EXPECT_THROW(make_call(OpKind::bspline_basis, a, DType::f32, {Shape{4}}), Error) << bad_order;
  }
  a.order = 3;
  a.grid = 0;
  EXPECT_THROW(make_call(OpKind::bspline_basis, a, DType::f32, {Shape{4}}), Error);
}

}  // namespace
}  // namespace gp::ref
