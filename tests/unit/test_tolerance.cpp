// harness/tolerance and the device math profiles behind it: which ops are exact, what a 16-bit
// store and a flushing device add, that a loosened case says why, and the budgets each compiled-in
// backend states (spot checks against the specifications they cite).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backends/registry.hpp"
#include "cases/registry.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/tolerance.hpp"

namespace gp {
namespace {

using ::testing::HasSubstr;

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

const MathProfile* profile_of(const std::string& backend) {
  for (const auto& p : backend_providers())
    if (p.name == backend) return p.math;
  return nullptr;
}

TEST(Tolerance, LayoutOpsAreExactEverywhere) {
  int layout_cases = 0;
  for (const Case& c : all_cases()) {
    if (op_family(c.decl.op) != OpFamily::layout) continue;
    ++layout_cases;
    const Tolerance t = tolerance_for(c, correctly_rounded_profile());
    EXPECT_TRUE(t.exact) << c.id;
    EXPECT_EQ(t.bound(ref::ErrorBound{1, 1, 1, 1}, 5.0), 0.0) << c.id;
    EXPECT_THAT(t.describe(), HasSubstr("exact")) << c.id;
  }
  EXPECT_GT(layout_cases, 0);
  // And nothing else is exact: a rounding op with a zero bound would fail on every ULP.
  EXPECT_FALSE(tolerance_for(make_case(OpKind::neg, DType::f32), correctly_rounded_profile()).exact);
}

TEST(Tolerance, SixteenBitStorageRoundsOnlyTheStoredResult) {
  for (DType t : {DType::f16, DType::bf16}) {
    const Tolerance tol = tolerance_for(make_case(OpKind::exp, t), correctly_rounded_profile());
    EXPECT_TRUE(tol.rounds_to_storage);
    EXPECT_DOUBLE_EQ(tol.bound(ref::ErrorBound{}, 1.0), ulp_of(t, 1.0) / 2) << dtype_name(t);
    EXPECT_THAT(tol.describe(), HasSubstr(std::string(dtype_name(t)) + " store"));
  }
  for (DType t : {DType::f32, DType::f64})
    EXPECT_FALSE(tolerance_for(make_case(OpKind::exp, t), correctly_rounded_profile()).rounds_to_storage);
}

TEST(Tolerance, FlushingDeviceMayZeroASubnormalResult) {
  const Case c = make_case(OpKind::exp, DType::f32);
  const Tolerance keeps = tolerance_for(c, correctly_rounded_profile(), false);
  const Tolerance flushes = tolerance_for(c, correctly_rounded_profile(), true);
  EXPECT_EQ(keeps.bound(ref::ErrorBound{}, 0x1p-130), 0.0);
  EXPECT_EQ(flushes.bound(ref::ErrorBound{}, 0x1p-130), 0x1p-130);
  EXPECT_EQ(flushes.bound(ref::ErrorBound{}, 1.0), 0.0);  // normal results keep their bound
  EXPECT_THAT(flushes.describe(), HasSubstr("flush"));
}

TEST(Tolerance, LoosenedCaseSaysWhy) {
  const Case plain = make_case(OpKind::exp, DType::f32);
  const Case loose = make_case(OpKind::exp, DType::f32, {Shape{7}}, {2.0, "a reason"});
  const Tolerance a = tolerance_for(plain, correctly_rounded_profile());
  const Tolerance b = tolerance_for(loose, correctly_rounded_profile());
  EXPECT_DOUBLE_EQ(b.bound(ref::ErrorBound{}, 1.0) - a.bound(ref::ErrorBound{}, 1.0), 2 * ulp_of(DType::f32, 1.0));
  EXPECT_THAT(b.describe(), HasSubstr("loosened: a reason"));
  for (const Case& c : all_cases())
    if (c.decl.tolerance.extra_ulps > 0) {
      EXPECT_FALSE(c.decl.tolerance.reason.empty()) << c.id;
    }
}

TEST(MathProfiles, EveryProviderStatesOne) {
  for (const auto& p : backend_providers()) {
    if (p.load) continue;  // a plugin's devices each declare a profile of the others
    ASSERT_NE(p.math, nullptr) << p.name;
    EXPECT_FALSE(p.math->source().empty()) << p.name;
    for (int f = 0; f < kMathFnCount; ++f)
      for (DType c : {DType::f32, DType::f64}) {
        const FnBudget b = p.math->budget(static_cast<MathFn>(f), c, 0.75L, 0.5L, 2.0L);
        // at least correct rounding: in ULPs, or as an absolute error (Vulkan f32 sin and cos)
        EXPECT_TRUE(b.ulps >= 0.5 || b.abs > 0) << p.name << " " << math_fn_name(static_cast<MathFn>(f));
        EXPECT_GE(b.abs, 0.0) << p.name;
      }
  }
}

TEST(MathProfiles, BudgetsFollowTheirSources) {
  const MathProfile* cpu = profile_of("cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->budget(MathFn::div, DType::f32, 1, 1, 0).ulps, 0.5);  // IEEE
  EXPECT_EQ(cpu->budget(MathFn::tanh, DType::f64, 1, 1, 0).ulps, 3);   // documented 2, measured 2.07
  if (const MathProfile* cl = profile_of("opencl")) {                  // OpenCL C ULP tables
    EXPECT_EQ(cl->budget(MathFn::exp, DType::f32, 1, 1, 0).ulps, 3);
    EXPECT_EQ(cl->budget(MathFn::div, DType::f32, 1, 1, 0).ulps, 2.5);
    EXPECT_EQ(cl->budget(MathFn::div, DType::f64, 1, 1, 0).ulps, 0.5);
    EXPECT_EQ(cl->budget(MathFn::erfc, DType::f32, 1, 1, 0).ulps, 16);
  }
  if (const MathProfile* vk = profile_of("vulkan")) {  // Vulkan's precision table for the built-ins
    // exp is the shaders' own (math.glsl), not the built-in's 3 + 2|x| ULP;
    EXPECT_EQ(vk->budget(MathFn::exp, DType::f32, -4, std::exp(-4.0L), 0).ulps, 3);
    EXPECT_EQ(vk->budget(MathFn::exp, DType::f32, 80, std::exp(80.0L), 0).ulps, 3);
    // so is log (4 ULP, relative near 1 too), not the built-in's absolute 2^-21 on [0.5, 2]
    EXPECT_EQ(vk->budget(MathFn::log, DType::f32, 1.5, std::log(1.5L), 0).ulps, 4);
    EXPECT_EQ(vk->budget(MathFn::log, DType::f32, 1.5, std::log(1.5L), 0).abs, 0);
    // and sin and cos (6 ULP, relative at their zeros too), not the built-ins' absolute 2^-11
    const long double near_zero = 3.1415927L;  // the float nearest pi
    EXPECT_EQ(vk->budget(MathFn::sin, DType::f32, near_zero, std::sin(near_zero), 0).ulps, 6);
    EXPECT_EQ(vk->budget(MathFn::sin, DType::f32, near_zero, std::sin(near_zero), 0).abs, 0);
    EXPECT_EQ(vk->budget(MathFn::cos, DType::f32, 20, std::cos(20.0L), 0).abs, 0);
  }
}

// A plugin that declares no profile is held to correct rounding (docs/plugins.md): no error a
// built-in profile allows may pass under it. A correctly rounded library function was charged as
// a rounding of the standard model, u |y| counted kFormulation times, up to 2 ULP: f64 sin's
// 2-ULP errors passed undeclared and failed under the cpu profile's 1 ULP. Every element of the
// first f32 and f64 case of every op, output and gradients.
TEST(MathProfiles, TheUndeclaredProfileIsTheStrictest) {
  const MathProfile& undeclared = correctly_rounded_profile();
  std::set<std::pair<OpKind, DType>> seen;
  int compared = 0;
  for (const Case& c : all_cases()) {
    if ((c.dtype != DType::f32 && c.dtype != DType::f64) || !seen.insert({c.decl.op, c.dtype}).second) continue;
    const ReferenceData data = prepare_reference(c, 1);
    const ref::Bounded& strict = data.bounded(&undeclared);
    const Tolerance strict_tol = tolerance_for(c, undeclared, false);
    for (const auto& p : backend_providers()) {
      const MathProfile* math = p.load ? p.loaded_math : p.math;  // a kernel directory's too
      if (!math) continue;
      const ref::Bounded& other = data.bounded(math);
      const Tolerance tol = tolerance_for(c, *math, false);
      auto holds = [&](const ref::RefTensor& a, const ref::RefTensor& b, const std::string& what) {
        for (std::size_t i = 0; i < a.err.size() && i < b.err.size(); ++i) {
          const double v = static_cast<double>(a.v[i]);
          ASSERT_LE(strict_tol.bound(a.err[i], v), tol.bound(b.err[i], v))
              << c.id << " " << what << " element " << i << ": undeclared against " << p.name;
          ++compared;
        }
      };
      holds(strict.output, other.output, "output");
      for (std::size_t k = 0; k < strict.grads.size(); ++k)
        holds(strict.grads[k], other.grads[k], "gradient " + std::to_string(k));
    }
  }
  EXPECT_GT(compared, 10000);
}

}  // namespace
}  // namespace gp
