// harness/tolerance: the derived bound K*u_c*scale + u_s*(V*|v| + S*scale) + A*weight + floor,
// checked term by term: which ops are exact, how API ULP budgets enter K, where absolute
// allowances apply, what 16-bit storage adds, and that a loosened case says why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cases/registry.hpp"
#include "harness/tolerance.hpp"

namespace gp {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kBackendKinds = {"cpu", "opencl", "vulkan"};

Case make_case(OpKind op, DType t, std::vector<Shape> shapes = {Shape{7}}, ToleranceKnobs knobs = {}) {
  Case c;
  c.decl.op = op;
  for (const Shape& s : shapes) c.decl.inputs.push_back({s, Domain::range(-1, 1)});
  c.decl.tolerance = std::move(knobs);
  c.dtype = t;
  c.id = make_case_id(c.decl, t);
  c.call = make_call(op, c.decl.attrs, t, shapes, c.id);
  return c;
}

TEST(Tolerance, LayoutOpsAreExactEverywhere) {
  int layout_cases = 0;
  for (const Case& c : all_cases()) {
    if (op_family(c.decl.op) != OpFamily::layout) continue;
    ++layout_cases;
    for (const auto& kind : kBackendKinds) {
      for (bool backward : {false, true}) {
        const Tolerance t = tolerance_for(c, kind, backward);
        EXPECT_TRUE(t.exact) << c.id << " on " << kind;
        EXPECT_EQ(t.bound(1e3, 5.0, 2.0), 0.0) << c.id;
        EXPECT_THAT(t.describe(), HasSubstr("exact")) << c.id;
      }
    }
  }
  EXPECT_GT(layout_cases, 0);
  // And nothing else is exact: a rounding op with a zero bound would fail on every ULP.
  EXPECT_FALSE(tolerance_for(make_case(OpKind::neg, DType::f32), "cpu", false).exact);
}

TEST(Tolerance, ExpOnOpenclHasTwoMoreThanOnCpu) {
  for (DType t : float_dtypes()) {
    for (bool backward : {false, true}) {
      const Case c = make_case(OpKind::exp, t);
      const double k_cpu = tolerance_for(c, "cpu", backward).k_compute;
      const double k_ocl = tolerance_for(c, "opencl", backward).k_compute;
      EXPECT_DOUBLE_EQ(k_ocl - k_cpu, 2 * 3 - 2 * 2) << dtype_name(t) << (backward ? " backward" : " forward");
    }
  }
  // The totals: chain allowance 4 (forward) or 6 (backward) plus 2 * the exp budget of 2 ULP.
  EXPECT_DOUBLE_EQ(tolerance_for(make_case(OpKind::exp, DType::f32), "cpu", false).k_compute, 4 + 2 * 2);
  EXPECT_DOUBLE_EQ(tolerance_for(make_case(OpKind::exp, DType::f32), "cpu", true).k_compute, 6 + 2 * 2);
  EXPECT_DOUBLE_EQ(tolerance_for(make_case(OpKind::exp, DType::f32), "opencl", true).k_compute, 6 + 2 * 3);
}

TEST(Tolerance, AccumulationsUseTheSmallerChainAllowance) {
  const Case sum = make_case(OpKind::sum, DType::f32, {Shape{16, 33}});
  EXPECT_DOUBLE_EQ(tolerance_for(sum, "cpu", false).k_compute, 2);
  EXPECT_DOUBLE_EQ(tolerance_for(sum, "cpu", true).k_compute, 4);
  const Case mean = make_case(OpKind::mean, DType::f32, {Shape{16, 33}});
  EXPECT_DOUBLE_EQ(tolerance_for(mean, "cpu", false).k_compute, 2 + 2 * 0.5);  // one correctly rounded divide
}

TEST(Tolerance, VulkanSinHasAnAbsoluteAllowanceInF32Only) {
  for (OpKind op : {OpKind::sin, OpKind::cos}) {
    for (bool backward : {false, true}) {
      const Tolerance f32 = tolerance_for(make_case(op, DType::f32), "vulkan", backward);
      const Tolerance f16 = tolerance_for(make_case(op, DType::f16), "vulkan", backward);
      const Tolerance f64 = tolerance_for(make_case(op, DType::f64), "vulkan", backward);
      EXPECT_EQ(f32.abs_allowance, 0x1p-11);
      EXPECT_EQ(f16.abs_allowance, 0x1p-11);  // computed in f32
      EXPECT_EQ(f64.abs_allowance, 0.0);
      EXPECT_EQ(tolerance_for(make_case(op, DType::f32), "opencl", backward).abs_allowance, 0.0);
      EXPECT_EQ(tolerance_for(make_case(op, DType::f32), "cpu", backward).abs_allowance, 0.0);
      // The allowance is scaled by the weight (the cotangent's size for gradients).
      EXPECT_DOUBLE_EQ(f32.bound(0, 0, 3.0) - f32.bound(0, 0, 1.0), 2 * 0x1p-11);
      EXPECT_THAT(f32.describe(), HasSubstr("abs"));
      EXPECT_THAT(f64.describe(), ::testing::Not(HasSubstr("abs")));
    }
  }
  EXPECT_EQ(tolerance_for(make_case(OpKind::exp, DType::f32), "vulkan", false).abs_allowance, 0.0);
}

TEST(Tolerance, SixteenBitStorageAddsTheStorageRounding) {
  struct Row {
    DType t;
    double u_s;
  };
  for (const Row& r : {Row{DType::f16, 0x1p-11}, Row{DType::bf16, 0x1p-8}}) {
    const Tolerance fwd = tolerance_for(make_case(OpKind::exp, r.t), "cpu", false);
    const Tolerance bwd = tolerance_for(make_case(OpKind::exp, r.t), "cpu", true);
    EXPECT_EQ(fwd.u_compute, 0x1p-24) << dtype_name(r.t);
    EXPECT_EQ(fwd.u_storage, r.u_s);
    EXPECT_EQ(fwd.k_storage_value, 1);
    EXPECT_EQ(fwd.k_storage, 0);
    EXPECT_EQ(bwd.k_storage, 2);
    // u_s * |v| on top of the rest, independent of the sign of v.
    EXPECT_DOUBLE_EQ(fwd.bound(2.0, -3.0) - fwd.bound(2.0, 0.0), 3 * r.u_s);
    EXPECT_DOUBLE_EQ(bwd.bound(2.0, 0.0) - fwd.bound(2.0, 0.0),
                     2 * 0x1p-24 * 2.0 + 2 * r.u_s * 2.0 + 2 * ulp_of(r.t, 0.0));  // K +2, S = 2, floor x2
    EXPECT_THAT(fwd.describe(), HasSubstr("u_s*(1*|v|"));
  }
  for (DType t : {DType::f32, DType::f64}) {
    const Tolerance same = tolerance_for(make_case(OpKind::exp, t), "cpu", true);
    EXPECT_EQ(same.k_storage_value, 0) << dtype_name(t);
    EXPECT_EQ(same.k_storage, 0) << dtype_name(t);
    EXPECT_EQ(same.bound(0.0, -3.0), same.floor) << dtype_name(t);
    EXPECT_EQ(same.u_compute, unit_roundoff(t));
  }
}

TEST(Tolerance, FloorIsTheStorageSubnormalSpacing) {
  EXPECT_EQ(tolerance_for(make_case(OpKind::exp, DType::f32), "cpu", false).floor, 2 * 0x1p-149);
  EXPECT_EQ(tolerance_for(make_case(OpKind::exp, DType::f32), "cpu", true).floor, 4 * 0x1p-149);
  EXPECT_EQ(tolerance_for(make_case(OpKind::exp, DType::f16), "cpu", false).floor, 2 * 0x1p-24);
}

// A device that may flush subnormal results (Vulkan without DenormPreserve) errs by up to the
// smallest normal number there; the floor also reaches gradients through the cotangent.
TEST(Tolerance, FloorOfAFlushingDeviceIsTheSmallestNormal) {
  EXPECT_EQ(tolerance_for(make_case(OpKind::exp, DType::f32), "vulkan", false, true).floor, 2 * 0x1p-126);
  EXPECT_EQ(tolerance_for(make_case(OpKind::exp, DType::f32), "vulkan", true, true).floor, 4 * 0x1p-126);
  EXPECT_EQ(tolerance_for(make_case(OpKind::exp, DType::f16), "vulkan", false, true).floor, 2 * 0x1p-14);
  const Tolerance t = tolerance_for(make_case(OpKind::neg, DType::f32), "cpu", true);
  EXPECT_EQ(t.bound(0.0, 0.0, 8.0), 8 * t.floor);
  EXPECT_EQ(t.bound(0.0, 0.0, 0.5), t.floor);
}

// Scales beyond double's range (exp near 709) still give the finite bound they imply.
TEST(Tolerance, BoundOfAScaleBeyondDoubleRangeIsFinite) {
  const Tolerance t = tolerance_for(make_case(OpKind::exp, DType::f64), "cpu", false);
  const long double scale = 1e310L;
  const double b = t.bound(scale, 1e307);
  EXPECT_TRUE(std::isfinite(b));
  EXPECT_NEAR(b / static_cast<double>(scale / 1e300L), t.k_compute * t.u_compute * 1e300, 1e286);
}

TEST(Tolerance, BoundFormulaOnAHandExample) {
  Tolerance t;
  t.k_compute = 5;
  t.u_compute = 0x1p-24;
  t.k_storage_value = 1;
  t.k_storage = 2;
  t.u_storage = 0x1p-11;
  t.abs_allowance = 1e-3;
  t.floor = 1e-7;
  // (5 * 2^-24 + 2 * 2^-11) * 10 + 1 * 2^-11 * |-4| + 1e-3 * 0.5 + 1e-7
  const double want = (5 * 0x1p-24 + 2 * 0x1p-11) * 10 + 4 * 0x1p-11 + 5e-4 + 1e-7;
  EXPECT_DOUBLE_EQ(t.bound(10.0, -4.0, 0.5), want);
  EXPECT_NEAR(t.bound(10.0, -4.0, 0.5), 0.01222183, 1e-8);
  EXPECT_DOUBLE_EQ(t.bound(0.0, 0.0), 1e-3 + 1e-7);  // default weight 1
  t.exact = true;
  EXPECT_EQ(t.bound(10.0, -4.0, 0.5), 0.0);
}

TEST(Tolerance, ExtraBudgetAddsToKAndShowsItsReason) {
  const ToleranceKnobs knobs{3.5, "erf of the tanh approximation drifts near 0"};
  const Case plain = make_case(OpKind::gelu, DType::f32);
  const Case loose = make_case(OpKind::gelu, DType::f32, {Shape{7}}, knobs);
  for (const auto& kind : kBackendKinds) {
    const Tolerance a = tolerance_for(plain, kind, false), b = tolerance_for(loose, kind, false);
    EXPECT_DOUBLE_EQ(b.k_compute - a.k_compute, 3.5) << kind;
    EXPECT_EQ(b.loosened, knobs.reason);
    EXPECT_THAT(b.describe(), HasSubstr("loosened: " + knobs.reason));
    EXPECT_THAT(a.describe(), ::testing::Not(HasSubstr("loosened")));
  }
  // Every registry case that loosens its tolerance must say why.
  for (const Case& c : all_cases()) {
    if (c.decl.tolerance.extra_budget > 0) {
      EXPECT_FALSE(c.decl.tolerance.reason.empty()) << c.id;
    }
  }
}

TEST(Tolerance, EveryRoundingCaseGetsAPositiveFiniteBound) {
  for (const Case& c : all_cases()) {
    if (op_family(c.decl.op) == OpFamily::layout) continue;
    for (const auto& kind : kBackendKinds) {
      const Tolerance t = tolerance_for(c, kind, true);
      ASSERT_GT(t.k_compute, 0) << c.id << " on " << kind;
      ASSERT_GT(t.bound(1.0, 1.0), 0) << c.id;
      ASSERT_TRUE(std::isfinite(t.bound(1.0, 1.0))) << c.id;
      ASSERT_FALSE(t.describe().empty());
    }
  }
}

TEST(Tolerance, BackendKindOfDeviceIds) {
  EXPECT_EQ(backend_kind("opencl:1"), "opencl");
  EXPECT_EQ(backend_kind("vulkan:0"), "vulkan");
  EXPECT_EQ(backend_kind("cpu"), "cpu");
}

TEST(Tolerance, ApiBudgetTables) {
  EXPECT_EQ(math_budget("opencl", MathFn::exp, DType::f32).ulps, 3);
  EXPECT_EQ(math_budget("opencl", MathFn::div, DType::f32).ulps, 2.5);
  EXPECT_EQ(math_budget("vulkan", MathFn::sincos, DType::f32).abs_error, 0x1p-11);
  EXPECT_EQ(math_budget("vulkan", MathFn::log, DType::f32).abs_error, 0x1p-21);
  EXPECT_EQ(math_budget("vulkan", MathFn::log, DType::f64).abs_error, 0.0);
  EXPECT_EQ(math_budget("cpu", MathFn::sqrt, DType::f64).ulps, 0.5);
  EXPECT_TRUE(op_math_functions(OpKind::add).empty());
  EXPECT_EQ(op_math_functions(OpKind::exp), std::vector<MathFn>{MathFn::exp});
}

}  // namespace
}  // namespace gp
