// Math budgets a device declares (a plugin's ABI version 4): they replace the base profile's
// budget for their function and dtype only, the profile's source names each promise, and a
// promise looser than the base is told apart from a tighter one.
#include <gtest/gtest.h>

#include "core/math_profile.hpp"

namespace gp {
namespace {

const MathProfile& declared(std::vector<DeclaredBudget> budgets) {
  return with_declared_budgets(correctly_rounded_profile(), std::move(budgets));
}

TEST(DeclaredBudgets, ReplaceTheBaseBudgetForTheirFunctionAndDtypeOnly) {
  const MathProfile& p = declared({{MathFn::exp, DType::f32, {4, 1e-30}, "a promise"}});
  const FnBudget exp_f32 = p.budget(MathFn::exp, DType::f32, 1, 2.718281828459045L, 0);
  EXPECT_EQ(exp_f32.ulps, 4);
  EXPECT_EQ(exp_f32.abs, 1e-30);
  EXPECT_EQ(p.budget(MathFn::exp, DType::f64, 1, 2.718281828459045L, 0).ulps, 0.5);
  EXPECT_EQ(p.budget(MathFn::log, DType::f32, 2, 0.6931471805599453L, 0).ulps, 0.5);
}

TEST(DeclaredBudgets, TheSourceNamesEachPromiseAndTheSameDeclarationIsOneProfile) {
  const std::vector<DeclaredBudget> budgets = {{MathFn::tanh, DType::f64, {2, 0}, "its manual"},
                                               {MathFn::exp, DType::f32, {1, 0}, "SLEEF u10"}};
  const MathProfile& p = declared(budgets);
  EXPECT_NE(p.source().find("declared by the device: exp f32 1 ULP (SLEEF u10) tanh f64 2 ULP (its manual)"),
            std::string::npos)
      << p.source();
  EXPECT_EQ(&p, &declared({budgets[1], budgets[0]}));  // the bounds' memos key on the address
  EXPECT_EQ(&declared({}), &correctly_rounded_profile());
}

TEST(DeclaredBudgets, OnlyAPromiseAllowingMoreThanTheBaseIsLooser) {
  const MathProfile& base = correctly_rounded_profile();
  EXPECT_FALSE(looser_than({MathFn::exp, DType::f32, {0.5, 0}, "as tight"}, base));
  EXPECT_FALSE(looser_than({MathFn::sin, DType::f64, {0.25, 0}, "tighter"}, base));
  EXPECT_TRUE(looser_than({MathFn::exp, DType::f32, {0.75, 0}, "looser"}, base));
  EXPECT_TRUE(looser_than({MathFn::erfc, DType::f64, {0.5, 1e-20}, "an absolute allowance on top"}, base));
}

TEST(DeclaredBudgets, FunctionNamesParseAsTheyPrint) {
  for (int i = 0; i < kMathFnCount; ++i)
    EXPECT_EQ(parse_math_fn(math_fn_name(static_cast<MathFn>(i))), static_cast<MathFn>(i));
  EXPECT_FALSE(parse_math_fn("expp").has_value());
  EXPECT_EQ(describe({MathFn::pow, DType::f64, {1.5, 2e-7}, "x"}), "pow f64 1.5 ULP + 2e-07");
}

}  // namespace
}  // namespace gp
