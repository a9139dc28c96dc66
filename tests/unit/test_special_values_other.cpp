// The IEEE special-value checks of the ops with cases of their own (harness/check/special_pointwise.hpp,
// special_composite.hpp; docs/special-values.md): pow by C Annex F and its stated formulations,
// bspline_basis and the losses element by element, cross_entropy, log_matmul_exp, the optimizer
// steps, the GRU cell and tt_embedding by the contract, its limit and NaN only beside a special
// value. A kernel wrong at one of them fails, naming it (the Vulkan shader's pow among them).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cases/special_values.hpp"
#include "harness/check/special_values.hpp"
#include "tests/support/special_values_fake.hpp"

namespace gp {
namespace {

using testing::checks_of;
using testing::f32_special_case;
using testing::special_case;

// pow, bspline_basis and the losses, element by element: C Annex F's pow (x^0 = 1, 1^y = 1 and
// pow(-2, inf) = inf, which the Vulkan shader's e^(y ln x) gave as NaN), NaN where an operand is
// NaN besides the contract's value, an infinite pole's sign free at a zero base, a B-spline row of
// zeros outside the grid, a loss's gradient NaN where x - y is inf - inf.
TEST(SpecialValues, PointwiseOpsHoldAnnexFAndTheirStatedForms) {
  constexpr std::int64_t k = 7, nan = 0, plus_inf = 1, plus_zero = 3, one = 5, minus_two = 6;
  const Case& pow = special_case("pow(specials,shape=49|49,dtype=f32)");
  const double nan_value = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::vector<CheckResult> r = checks_of(pow, [=](HostTensor& y) { y.set(plus_inf * k + plus_zero, nan_value); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at (+inf, +0) NaN where {finite} is expected"), std::string::npos) << r[0].reason;
  r = checks_of(pow, [=](HostTensor& y) { y.set(minus_two * k + plus_inf, nan_value); });
  EXPECT_EQ(r[0].verdict, Verdict::fail) << "pow(-2, inf) is +inf";
  for (const double v : {1.0, nan_value})  // pow(1, NaN): Annex F's 1, or e^(NaN ln 1)
    EXPECT_EQ(checks_of(pow, [=](HostTensor& y) { y.set(one * k + nan, v); })[0].verdict, Verdict::pass) << v;
  for (const double v : {inf, -inf})  // d/da a^-2 at +0: -2 a^-3, a pole
    EXPECT_EQ(checks_of(pow, {}, [=](HostTensor& g) { g.set(plus_zero * k + minus_two, v); })[1].verdict, Verdict::pass)
        << v;
  EXPECT_EQ(checks_of(pow, {}, [=](HostTensor& g) { g.set(plus_inf * k + plus_zero, nan_value); })[1].verdict,
            Verdict::fail)
      << "d/da a^0 is 0 at a = +inf";

  const Case& spline = f32_special_case(OpKind::bspline_basis);
  const std::int64_t bases = spline.call.output_shape[1];
  for (const double v : {0.0, nan_value})
    EXPECT_EQ(checks_of(spline, [=](HostTensor& y) { y.set(nan * bases, v); })[0].verdict, Verdict::pass) << v;
  r = checks_of(spline, [=](HostTensor& y) { y.set(plus_inf * bases + 1, 1.0); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at +inf, basis 1 1 where {0} is expected"), std::string::npos) << r[0].reason;

  const Case& mse = f32_special_case(OpKind::mse_loss);
  EXPECT_EQ(checks_of(mse, [](HostTensor& y) { y.set(0, 0.0); })[0].verdict, Verdict::fail) << "a NaN pair";
  EXPECT_EQ(checks_of(mse, {}, [](HostTensor& g) { g.set(plus_inf * k + plus_inf, 0.0); })[1].verdict, Verdict::fail)
      << "inf - inf";
  const Case& bce = f32_special_case(OpKind::bce_with_logits);
  constexpr std::int64_t probabilities = 5, probability_one = 3;
  r = checks_of(bce, {}, [=](HostTensor& g) { g.set(plus_inf * probabilities + probability_one, nan_value); });
  EXPECT_EQ(r[1].verdict, Verdict::fail);
  EXPECT_NE(r[1].reason.find("at (+inf, 1) NaN where {0} is expected"), std::string::npos) << r[1].reason;
}

// cross_entropy, log_matmul_exp and the optimizer steps: NaN only where the element reads a NaN or
// an infinity, the contract's NaN or its limit where it meets an indeterminate form, and a
// forward-only step's unread input left alone.
TEST(SpecialValues, CompositeOpsTakeTheContractOrItsLimitAndNaNOnlyBesideASpecial) {
  constexpr std::int64_t n = 8;
  const double nan_value = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const Case& ce = f32_special_case(OpKind::cross_entropy);
  EXPECT_EQ(checks_of(ce, {}, [=](HostTensor& g) { g.set(0 * n + 2, nan_value); })[1].verdict, Verdict::fail)
      << "row 0 is finite";
  EXPECT_EQ(checks_of(ce, {}, [=](HostTensor& g) { g.set(1 * n + 2, nan_value); })[1].verdict, Verdict::pass)
      << "row 1 holds +inf: x - max meets inf - inf";
  EXPECT_EQ(checks_of(ce, {}, [=](HostTensor& g) { g.set(3 * n + 2, 0.0); })[1].verdict, Verdict::fail)
      << "row 3 holds a NaN";
  const Case& lme = f32_special_case(OpKind::log_matmul_exp);
  // (1, 2): a term +inf + +inf, the sum +inf; (0, 5): every term -inf, the contract's
  // max-subtracted sum NaN (-inf - -inf), its limit -inf.
  for (const double v : {nan_value, inf})
    EXPECT_EQ(checks_of(lme, [=](HostTensor& y) { y.set(1 * n + 2, v); })[0].verdict, Verdict::pass) << v;
  EXPECT_EQ(checks_of(lme, [=](HostTensor& y) { y.set(1 * n + 2, 1e30); })[0].verdict, Verdict::fail);
  for (const double v : {nan_value, -inf})
    EXPECT_EQ(checks_of(lme, [=](HostTensor& y) { y.set(0 * n + 5, v); })[0].verdict, Verdict::pass) << v;
  EXPECT_EQ(checks_of(lme, [=](HostTensor& y) { y.set(0 * n + 5, -1e30); })[0].verdict, Verdict::fail);
  std::vector<CheckResult> r = checks_of(lme, [=](HostTensor& y) { y.set(0 * n + 4, nan_value); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at row 0, column 4 NaN where {finite} is expected"), std::string::npos) << r[0].reason;
  // sgd without momentum reads no buffer: a NaN buffer leaves the new parameter finite.
  const Case& sgd = f32_special_case(OpKind::sgd_step);
  ASSERT_EQ(sgd.call.attrs.momentum, 0);
  constexpr std::int64_t values = 7, buffer = 2, gradient = 1;
  r = checks_of(sgd, [=](HostTensor& y) { y.set(buffer * values + 0, nan_value); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at new parameter at buffer NaN NaN where {finite} is expected"), std::string::npos)
      << r[0].reason;
  EXPECT_EQ(checks_of(sgd, [=](HostTensor& y) { y.set(gradient * values + 0, 0.5); })[0].verdict, Verdict::fail)
      << "a NaN gradient's step";
  // The GRU cell at h = +inf (row 8): h' = z h + ... is +inf (or NaN), never finite; at h = +0 finite.
  const Case& gru = f32_special_case(OpKind::gru_cell);
  EXPECT_EQ(checks_of(gru, [](HostTensor& y) { y.set(values + 1, 1.0); })[0].verdict, Verdict::fail);
  EXPECT_EQ(checks_of(gru, [=](HostTensor& y) { y.set(values + 3, nan_value); })[0].verdict, Verdict::fail);
  // tt_embedding's id 3 reads core 1 at +0: every element finite, NaN fails (the first input, the
  // ids, takes no gradient: the cores' gradient checks follow it).
  const Case& tt = f32_special_case(OpKind::tt_embedding);
  const std::int64_t dim = tt.call.output_shape[1];
  r = checks_of(tt, [=](HostTensor& y) { y.set(3 * dim, nan_value); });
  EXPECT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at core 1 at +0, column 0 NaN where {finite} is expected"), std::string::npos)
      << r[0].reason;
}

}  // namespace
}  // namespace gp
