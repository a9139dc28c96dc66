// The IEEE special-value checks (harness/check/special_values.hpp, docs/special-values.md): the
// contract's own formulas pass their table, and a kernel wrong at one special value fails,
// naming it: the bugs the cases found in the Vulkan shaders and on PoCL, planted in a fake.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

#include "cases/special_values.hpp"
#include "harness/check/special_value_subject.hpp"
#include "harness/check/special_values.hpp"
#include "tests/support/fake_backend.hpp"
#include "tests/support/special_values_fake.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;
using testing::checks_of;
using testing::f32_special_case;
using testing::special_case;

// Element k of the inputs NaN, +inf, -inf, +0, -0.
constexpr std::int64_t kNaN = 0, kPlusInf = 1, kMinusInf = 2, kMinusZero = 4;

TEST(SpecialValues, TheContractsOwnFormulasPassTheirTable) {
  for (const Case& c : special_value_cases()) {
    const std::vector<CheckResult> r = checks_of(c);
    std::size_t gradients = 0;  // gumbel_softmax's noise has none
    for (std::size_t k = 0; k < c.given->inputs.size(); ++k)
      gradients += input_is_differentiable(c.decl.op, static_cast<int>(k)) ? 1 : 0;
    ASSERT_EQ(r.size(), 1 + gradients) << c.id;
    for (const CheckResult& x : r) EXPECT_EQ(x.verdict, Verdict::pass) << c.id << ": " << x.reason;
  }
}

TEST(SpecialValues, AWrongSpecialValueFailsNamingTheInput) {
  // Vulkan's f64 exp clamped -inf to -745: the smallest subnormal instead of +0.
  const Case& exp64 = special_case("exp(specials,shape=5,dtype=f64)");
  std::vector<CheckResult> r = checks_of(exp64, [](HostTensor& y) { y.set(kMinusInf, 0x1p-1074); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at -inf 4.94065646e-324 where {+0} is expected"), std::string::npos) << r[0].reason;
  EXPECT_EQ(r[1].verdict, Verdict::pass);
  // Vulkan's sin: a number for NaN and +-inf (its reduction clamped them), +0 for -0.
  const Case& sin32 = special_case("sin(specials,shape=5,dtype=f32)");
  r = checks_of(sin32, [](HostTensor& y) { y.set(kPlusInf, -0.841470957); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at +inf"), std::string::npos) << r[0].reason;
  r = checks_of(sin32, [](HostTensor& y) { y.set(kMinusZero, 0.0); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at -0 +0 where {-0} is expected"), std::string::npos) << r[0].reason;
  // PoCL's f32 tanh at +inf.
  r = checks_of(special_case("tanh(specials,shape=5,dtype=f32)"), [](HostTensor& y) { y.set(kPlusInf, 1 - 0x1p-24); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  // A backward: exp's derivative at NaN given as +inf (oneDNN's).
  r = checks_of(special_case("exp(specials,shape=5,dtype=f32)"), {},
                [](HostTensor& g) { g.set(kNaN, std::numeric_limits<double>::infinity()); });
  EXPECT_EQ(r[0].verdict, Verdict::pass);
  EXPECT_EQ(r[1].verdict, Verdict::fail);
}

// Where the formula meets an indeterminate form (silu's -inf * 0), NaN and the limit both pass;
// anything else fails. At NaN, a piecewise op may give any constant piece's value (PyTorch's relu
// backward gives the cotangent there), nothing else.
TEST(SpecialValues, IndeterminateFormsAndNaNAdmitTheirStatedSetsOnly) {
  const Case& silu = special_case("silu(specials,shape=5,dtype=f32)");
  for (const double v : {std::numeric_limits<double>::quiet_NaN(), 0.0, -0.0})
    EXPECT_EQ(checks_of(silu, [v](HostTensor& y) { y.set(kMinusInf, v); })[0].verdict, Verdict::pass) << v;
  EXPECT_EQ(
      checks_of(silu, [](HostTensor& y) { y.set(kMinusInf, -std::numeric_limits<double>::infinity()); })[0].verdict,
      Verdict::fail);
  const Case& relu = special_case("relu(specials,shape=5,dtype=f32)");
  for (const double g : {0.0, 1.0, std::numeric_limits<double>::quiet_NaN()})
    EXPECT_EQ(checks_of(relu, {}, [g](HostTensor& d) { d.set(kNaN, g); })[1].verdict, Verdict::pass) << g;
  EXPECT_EQ(checks_of(relu, {}, [](HostTensor& d) { d.set(kNaN, 0.5); })[1].verdict, Verdict::fail);
}

// A binary op's pairs: IEEE arithmetic exactly (inf * 0 is NaN, 1 / -0 is -inf), maximum's NaN
// either propagated or passed over (fmax), its tie's gradient any share.
TEST(SpecialValues, BinaryOpsHoldIeeeArithmeticAndTheSelectionConventions) {
  constexpr std::int64_t k = 7, nan = 0, plus_inf = 1, plus_zero = 3, minus_zero = 4, one = 5;
  const Case& mul = special_case("mul(specials,shape=49|49,dtype=f32)");
  std::vector<CheckResult> r = checks_of(mul, [](HostTensor& y) { y.set(plus_inf * k + plus_zero, 0.0); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at (+inf, +0) +0 where {NaN} is expected"), std::string::npos) << r[0].reason;
  const Case& div = special_case("div(specials,shape=49|49,dtype=f64)");
  r = checks_of(div, [](HostTensor& y) { y.set(one * k + minus_zero, std::numeric_limits<double>::infinity()); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at (1, -0) inf where {-inf} is expected"), std::string::npos) << r[0].reason;
  const Case& maximum = special_case("maximum(specials,shape=49|49,dtype=f32)");
  for (const double v : {std::numeric_limits<double>::quiet_NaN(), 1.0})
    EXPECT_EQ(checks_of(maximum, [v](HostTensor& y) { y.set(nan * k + one, v); })[0].verdict, Verdict::pass) << v;
  EXPECT_EQ(checks_of(maximum, [](HostTensor& y) { y.set(nan * k + one, 0.0); })[0].verdict, Verdict::fail);
  for (const double share : {0.0, 0.5, 1.0})
    EXPECT_EQ(checks_of(maximum, {}, [share](HostTensor& g) { g.set(plus_zero * k + minus_zero, share); })[1].verdict,
              Verdict::pass)
        << share;
  EXPECT_EQ(checks_of(maximum, {}, [](HostTensor& g) { g.set(plus_zero * k + minus_zero, 0.25); })[1].verdict,
            Verdict::fail);
}

// A layout op moves values exactly: one that moves them through arithmetic (x + 0, which turns -0
// into +0) fails where a -0 moved.
TEST(SpecialValues, ALayoutOpMustMoveEveryBitOfASpecialValue) {
  const Case& transpose = f32_special_case(OpKind::transpose);
  EXPECT_EQ(checks_of(transpose)[0].verdict, Verdict::pass);
  const std::vector<CheckResult> r = checks_of(transpose, [](HostTensor& y) {
    for (std::int64_t i = 0; i < y.numel(); ++i)
      if (y.get(i) == 0) y.set(i, y.get(i) + 0.0);
  });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("+0 where {-0} is expected"), std::string::npos) << r[0].reason;
  EXPECT_NE(r[0].reason.find(" more element(s)"), std::string::npos) << r[0].reason;  // 1,170 of them
}

// sum, mean and max along rows of special values: a compensated sum's NaN for a row with one
// infinity (inf - inf in its correction) and oneDNN's -FLT_MAX for a row of -inf (its maximum
// starts from the lowest finite value) fail; max's gradient at a tie takes any share.
TEST(SpecialValues, ReductionsHoldTheirRowsExactly) {
  const Case& sum = f32_special_case(OpKind::sum);
  EXPECT_EQ(checks_of(sum)[0].verdict, Verdict::pass);
  std::vector<CheckResult> r =
      checks_of(sum, [](HostTensor& y) { y.set(1, std::numeric_limits<double>::quiet_NaN()); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at row 1 NaN where {+inf} is expected"), std::string::npos) << r[0].reason;
  const Case& max = f32_special_case(OpKind::max);
  r = checks_of(max, [](HostTensor& y) { y.set(5, -std::numeric_limits<float>::max()); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at row 5 -3.40282347e+38 where {-inf} is expected"), std::string::npos) << r[0].reason;
  // Row 0 ties its maximum 1 at columns 0, 4, 5 and 7: each may take all, a quarter or none.
  for (const double share : {0.0, 0.25, 1.0})
    EXPECT_EQ(checks_of(max, {}, [share](HostTensor& g) { g.set(4, share); })[1].verdict, Verdict::pass) << share;
  EXPECT_EQ(checks_of(max, {}, [](HostTensor& g) { g.set(4, 0.5); })[1].verdict, Verdict::fail);
  EXPECT_EQ(checks_of(max, {}, [](HostTensor& g) { g.set(1, 0.25); })[1].verdict, Verdict::fail);  // not a maximum
}

// Rows 1 (+inf first), 3 (NaN first) and 5 (only -inf) of kSpecialRows, column j of an 8x8 case.
std::int64_t at(std::int64_t row, std::int64_t column) { return row * 8 + column; }

TEST(SpecialValues, OpsAlongRowsPropagateNaNAndTakeTheFormulaOrItsLimitBesideAnInfinity) {
  const Case& softmax = f32_special_case(OpKind::softmax);
  // A NaN passed over: the row's other elements the softmax of the rest (lavapipe's shader, whose
  // maximum and "equal to the maximum" test both let the NaN through).
  std::vector<CheckResult> r = checks_of(softmax, [](HostTensor& y) {
    for (std::int64_t j = 1; j < 8; ++j) y.set(at(3, j), 0.125);
  });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at row 3, column 1 0.125 where {NaN} is expected"), std::string::npos) << r[0].reason;
  // Beside a +inf, the max-subtracted formula's NaN and the limit (1 at the infinity, 0 beside it).
  for (const double v : {std::numeric_limits<double>::quiet_NaN(), 1.0})
    EXPECT_EQ(checks_of(softmax, [v](HostTensor& y) { y.set(at(1, 0), v); })[0].verdict, Verdict::pass) << v;
  EXPECT_EQ(checks_of(softmax, [](HostTensor& y) { y.set(at(1, 1), 0.5); })[0].verdict, Verdict::fail);
  // A row of -inf: NaN or 1/8 each.
  EXPECT_EQ(checks_of(softmax, [](HostTensor& y) { y.set(at(5, 2), 0.125); })[0].verdict, Verdict::pass);
  EXPECT_EQ(checks_of(softmax, [](HostTensor& y) { y.set(at(5, 2), 0); })[0].verdict, Verdict::fail);
  // log_softmax's backward at the +inf: NaN or 1 - 8; oneDNN's -inf fails.
  const Case& log_softmax = f32_special_case(OpKind::log_softmax);
  EXPECT_EQ(checks_of(log_softmax, {}, [](HostTensor& g) { g.set(at(1, 0), -7); })[1].verdict, Verdict::pass);
  r = checks_of(log_softmax, {}, [](HostTensor& g) { g.set(at(1, 0), -std::numeric_limits<double>::infinity()); });
  EXPECT_EQ(r[1].verdict, Verdict::fail);
  EXPECT_NE(r[1].reason.find("at row 1, column 0 -inf where {NaN, -7} is expected"), std::string::npos) << r[1].reason;
  // logsumexp beside a +inf: +inf or NaN, never a finite value; variance beside one: NaN or +inf.
  const Case& logsumexp = f32_special_case(OpKind::logsumexp);
  EXPECT_EQ(checks_of(logsumexp, [](HostTensor& y) { y.set(1, 1e30); })[0].verdict, Verdict::fail);
  const Case& variance = f32_special_case(OpKind::variance);
  EXPECT_EQ(checks_of(variance, [](HostTensor& y) { y.set(1, 3); })[0].verdict, Verdict::fail);
}

TEST(SpecialValues, NormsPropagateARowsNaNAndDivideByAnInfiniteRoot) {
  // A NaN row normalised as if its NaN were not there fails, forward and backward.
  const Case& layer_norm = f32_special_case(OpKind::layer_norm);
  EXPECT_EQ(checks_of(layer_norm, [](HostTensor& y) { y.set(at(3, 2), 0.5); })[0].verdict, Verdict::fail);
  EXPECT_EQ(checks_of(layer_norm, {}, [](HostTensor& g) { g.set(at(7, 2), 0.5); })[1].verdict, Verdict::fail);
  // Beside an infinity: NaN or a finite limit, never an infinity.
  EXPECT_EQ(checks_of(layer_norm, [](HostTensor& y) { y.set(at(1, 0), 2.6); })[0].verdict, Verdict::pass);
  const std::vector<CheckResult> r =
      checks_of(layer_norm, [](HostTensor& y) { y.set(at(1, 0), std::numeric_limits<double>::infinity()); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at row 1, column 0 inf where {NaN, finite} is expected"), std::string::npos)
      << r[0].reason;
  // rms_norm: a finite entry beside +inf is x / inf = 0 exactly.
  const Case& rms_norm = f32_special_case(OpKind::rms_norm);
  EXPECT_EQ(checks_of(rms_norm, [](HostTensor& y) { y.set(at(1, 1), 1e-30); })[0].verdict, Verdict::fail);
  EXPECT_EQ(checks_of(rms_norm, [](HostTensor& y) { y.set(at(1, 1), -0.0); })[0].verdict, Verdict::pass);
}

TEST(SpecialValues, AProductPropagatesWhatItsTermsGive) {
  const Case& matmul = f32_special_case(OpKind::matmul);
  // Row 1 (+inf first) times row 4 (only -0): inf * -0 is NaN; a kernel that skips the products of
  // a zero operand, as the reference BLAS does, gives 0.
  std::vector<CheckResult> r = checks_of(matmul, [](HostTensor& y) { y.set(at(1, 4), 0); });
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at row 1, column 4 +0 where {NaN} is expected"), std::string::npos) << r[0].reason;
  // Row 0 with itself: 1 + 4 + 0 + 0 + 1 + 1 + 4 + 1 = 12 in any order; one rounding off fails.
  EXPECT_EQ(checks_of(matmul, [](HostTensor& y) { y.set(at(0, 0), std::nextafter(12.0f, 13.0f)); })[0].verdict,
            Verdict::fail);
}

TEST(SpecialValues, AnElementNeverWrittenFails) {
  const Case& c = special_case("neg(specials,shape=5,dtype=f32)");
  FakeBackend backend;
  NiceMock<MockQueue> queue;
  ON_CALL(queue, forward)
      .WillByDefault(Invoke([](const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
        const HostTensor poison = host(out);  // the poisoned buffer as the kernel found it
        exact_forward(call, in, out);
        std::memcpy(host(out).data(), poison.data(), dtype_size(poison.dtype()));
      }));
  const std::vector<CheckResult> r = check_special_values(c, DeviceContext{"fake", &backend, &queue}, 1);
  EXPECT_EQ(r[0].verdict, Verdict::fail);
  EXPECT_NE(r[0].reason.find("at NaN never written"), std::string::npos) << r[0].reason;
}

}  // namespace
}  // namespace gp
