// Other readings of a unary op's input (harness/check/other_readings.hpp). Exactly on a kink a
// backward may give either one-sided derivative: PyTorch's hardswish convention (-0.5 at x = -3,
// 1.5 at x = 3) and relu's right derivative at 0 PASS beside the catalog's contract, while any
// other value there FAILs, and a case with no element on a kink is judged as before. On a device
// that declares it may flush subnormals, a subnormal input may be read as zero (NVIDIA's Vulkan
// driver: relu's and abs's derivatives at 0, log's -inf); on one that does not, that is a FAIL.
// Where a straight-through op steps (ste_round's ties, the hardtanh gate's 0, -1 and 1) and on a
// B-spline knot, the forward and the backward may take either one-sided value, and only those.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/check/checker.hpp"
#include "support/fake_backend.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;

// A backward of `slope(x)` times the cotangent, rounded to the dtype.
using Slope = std::function<double(double)>;

HostTensor vector_of(DType dtype, const std::vector<double>& values) {
  HostTensor t(dtype, Shape{static_cast<std::int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i) t.set(static_cast<std::int64_t>(i), values[i]);
  return t;
}

// The catalog case `base_id` at input x and cotangent dy.
Case case_at(const std::string& base_id, const std::vector<double>& x, const std::vector<double>& dy) {
  const Case* base = find_case(base_id);
  if (!base) throw Error("missing case " + base_id);
  GivenValues given;
  given.inputs.push_back(vector_of(base->dtype, x));
  given.cotangent = vector_of(base->dtype, dy);
  return case_with_values(*base, std::move(given));
}

CheckResult backward_check(const std::string& base_id, const std::vector<double>& x, const std::vector<double>& dy,
                           const Slope& slope) {
  const Case c = case_at(base_id, x, dy);
  FakeBackend backend;
  NiceMock<MockQueue> queue;
  if (slope)
    ON_CALL(queue, backward)
        .WillByDefault(
            Invoke([&](const OpCall& call, auto in, const DeviceBuffer&, const DeviceBuffer& dout, auto grads) {
              const HostTensor& xs = host(*in[0]);
              for (std::int64_t i = 0; i < xs.numel(); ++i)
                host(*grads[0]).set(i, round_to(call.dtype, host(dout).get(i) * slope(xs.get(i))));
            }));
  const ReferenceData data = prepare_reference(c, 1);
  for (CheckResult& r : check_on_backend(c, {"fake", &backend, &queue}, data, {1}))
    if (r.direction == Direction::backward) return r;
  throw Error("no backward check");
}

// The case `base_id` at inputs x (and cotangent dy) on a fake device that computes exactly but
// reads every f32 subnormal input as a zero of its sign, declaring (or not) that it may flush.
std::vector<CheckResult> flushing_checks(const std::string& base_id, const std::vector<double>& x,
                                         const std::vector<double>& dy, bool declared,
                                         const Slope& slope_at_flushed = {}) {
  const Case c = case_at(base_id, x, dy);
  FakeBackend backend;
  backend.set_may_flush_subnormals(declared);
  NiceMock<MockQueue> queue;
  auto flushed = [](std::span<const DeviceBuffer* const> in) {
    std::vector<ref::RefTensor> v = testing::widen_inputs(in);
    for (auto& t : v)
      for (auto& e : t.v)
        if (std::fabs(e) < FLT_MIN) e = std::copysign(0.0L, e);
    return v;
  };
  ON_CALL(queue, forward).WillByDefault(Invoke([&](const OpCall& call, auto in, DeviceBuffer& out) {
    testing::store(ref::forward(call, flushed(in)), host(out));
  }));
  ON_CALL(queue, backward)
      .WillByDefault(
          Invoke([&](const OpCall& call, auto in, const DeviceBuffer&, const DeviceBuffer& dout, auto grads) {
            const std::vector<ref::RefTensor> xs = flushed(in);
            testing::store(ref::vjp(call, xs, ref::forward(call, xs), ref::RefTensor::from_host(host(dout)))[0],
                           host(*grads[0]));
            if (!slope_at_flushed) return;
            const HostTensor& given_x = host(*in[0]);
            for (std::int64_t i = 0; i < given_x.numel(); ++i)
              if (xs[0].v[static_cast<std::size_t>(i)] != given_x.get(i))
                host(*grads[0]).set(i, host(dout).get(i) * slope_at_flushed(given_x.get(i)));
          }));
  const ReferenceData data = prepare_reference(c, 1);
  return check_on_backend(c, {"fake", &backend, &queue}, data, {1});
}

CheckResult direction_of(const std::vector<CheckResult>& checks, Direction d) {
  for (const CheckResult& r : checks)
    if (r.direction == d) return r;
  throw Error("no such check");
}

const std::vector<double> kSubnormalX = {1e-40, 1, -1e-40, 2, 3e-39, -0.5, 0.25};
const std::vector<double> kOnes = {1, 1, 1, 1, 1, 1, 1};

TEST(OtherReadings, AFlushingDeviceMayReadASubnormalInputAsZero) {
  for (const char* id :
       {"relu(shape=7,dtype=f32)", "abs(shape=7,dtype=f32)", "leaky_relu(alpha=0.2,shape=7,dtype=f32)"}) {
    const CheckResult declared = direction_of(flushing_checks(id, kSubnormalX, kOnes, true), Direction::backward);
    EXPECT_EQ(declared.verdict, Verdict::pass) << id << ": " << declared.reason;
    EXPECT_NE(declared.reason.find("3 subnormal input(s) the device may read as zero"), std::string::npos)
        << id << ": " << declared.reason;
    const CheckResult undeclared = direction_of(flushing_checks(id, kSubnormalX, kOnes, false), Direction::backward);
    EXPECT_EQ(undeclared.verdict, Verdict::fail) << id << ": " << undeclared.reason;
  }
  // log of a flushed positive subnormal is log(+0) = -inf.
  const std::vector<double> positive = {1e-40, 1, 2e-39, 2, 3e-39, 0.5, 0.25};
  const CheckResult log_declared =
      direction_of(flushing_checks("log(shape=7,dtype=f32)", positive, kOnes, true), Direction::forward);
  EXPECT_EQ(log_declared.verdict, Verdict::pass) << log_declared.reason;
  const CheckResult log_undeclared =
      direction_of(flushing_checks("log(shape=7,dtype=f32)", positive, kOnes, false), Direction::forward);
  EXPECT_EQ(log_undeclared.verdict, Verdict::fail) << log_undeclared.reason;
}

TEST(OtherReadings, AWrongValueAtASubnormalInputStillFails) {
  // Half the cotangent where relu's input is subnormal: neither the value at x nor at 0.
  const CheckResult half =
      direction_of(flushing_checks("relu(shape=7,dtype=f32)", kSubnormalX, kOnes, true, [](double) { return 0.5; }),
                   Direction::backward);
  EXPECT_EQ(half.verdict, Verdict::fail) << half.reason;
}

const std::vector<double> kHardswishX = {-3, 3, -3, 3, 1.5, -4, 0.25};
const std::vector<double> kHardswishDy = {1, 1, -0.75, 2.5, 1, 1, 1};

// PyTorch 1.13's hardswish_backward: x < -3 ? 0 : x <= 3 ? x / 3 + 0.5 : 1.
double pytorch_hardswish_slope(double x) { return x < -3 ? 0 : x <= 3 ? x / 3 + 0.5 : 1; }

TEST(KinkSlopes, EitherOneSidedDerivativePasses) {
  const CheckResult contract = backward_check("hardswish(shape=7,dtype=f32)", kHardswishX, kHardswishDy, {});
  EXPECT_EQ(contract.verdict, Verdict::pass) << contract.reason;
  EXPECT_NE(contract.reason.find("4 element(s) exactly on a kink"), std::string::npos) << contract.reason;
  EXPECT_NE(contract.reason.find("0 took the one"), std::string::npos) << contract.reason;

  const CheckResult pytorch =
      backward_check("hardswish(shape=7,dtype=f32)", kHardswishX, kHardswishDy, pytorch_hardswish_slope);
  EXPECT_EQ(pytorch.verdict, Verdict::pass) << pytorch.reason;
  EXPECT_NE(pytorch.reason.find("4 took the one the catalog's contract does not"), std::string::npos) << pytorch.reason;

  const CheckResult relu_right = backward_check("relu(shape=7,dtype=f64)", {0, 1, -1, 0, 2, -0.5, 0},
                                                {1, 1, 1, -2, 1, 1, 0.5}, [](double x) { return x >= 0 ? 1 : 0; });
  EXPECT_EQ(relu_right.verdict, Verdict::pass) << relu_right.reason;
}

TEST(KinkSlopes, AnyOtherValueOnAKinkFails) {
  const CheckResult halfway = backward_check("hardswish(shape=7,dtype=f32)", kHardswishX, kHardswishDy, [](double x) {
    return x == -3 ? 0.25 : pytorch_hardswish_slope(x);  // neither 0 nor -0.5
  });
  EXPECT_EQ(halfway.verdict, Verdict::fail) << halfway.reason;
  const CheckResult relu_half =
      backward_check("relu(shape=7,dtype=f64)", {0, 1, -1, 0, 2, -0.5, 0}, {1, 1, 1, -2, 1, 1, 0.5}, [](double x) {
        return x > 0 ? 1 : x == 0 ? 0.5 : 0;
      });
  EXPECT_EQ(relu_half.verdict, Verdict::fail) << relu_half.reason;
}

TEST(KinkSlopes, OffTheKinksTheContractAloneJudges) {
  // Away from the kinks PyTorch's slope is the contract's; the reason says nothing of kinks.
  const CheckResult off = backward_check("hardswish(shape=7,dtype=f32)", {-3.5, 2.5, -1.5, 4, 1.5, -4, 0.25},
                                         kHardswishDy, pytorch_hardswish_slope);
  EXPECT_EQ(off.verdict, Verdict::pass) << off.reason;
  EXPECT_EQ(off.reason.find("kink"), std::string::npos) << off.reason;
}

// The checks of case `base_id` at x (its cotangent drawn) on a fake device computing the contract
// at the inputs `read(x)`, with `value(x)` in place of forward element i where set: a kernel's
// other reading of its input, or a wrong value.
using Reading = std::function<long double(long double)>;
std::vector<CheckResult> checks_reading(const std::string& base_id, const std::vector<double>& x, const Reading& read,
                                        const Slope& value = {}, const std::vector<double>& second = {}) {
  const Case* base = find_case(base_id);
  if (!base) throw Error("missing case " + base_id);
  GivenValues given;
  given.inputs.push_back(vector_of(base->dtype, x));
  if (!second.empty()) given.inputs.push_back(vector_of(base->dtype, second));
  const Case c = case_with_values(*base, std::move(given));
  FakeBackend backend;
  NiceMock<MockQueue> queue;
  auto read_inputs = [&](const OpCall& call, auto in) {
    std::vector<ref::RefTensor> v = testing::widen_inputs(call, in);
    for (auto& e : v[0].v) e = read(e);
    return v;
  };
  ON_CALL(queue, forward).WillByDefault(Invoke([&](const OpCall& call, auto in, DeviceBuffer& out) {
    testing::store(ref::forward(call, read_inputs(call, in)), host(out));
    if (!value) return;
    const HostTensor& xs = host(*in[0]);
    for (std::int64_t i = 0; i < xs.numel(); ++i) host(out).set(i, round_to(call.dtype, value(xs.get(i))));
  }));
  ON_CALL(queue, backward)
      .WillByDefault(
          Invoke([&](const OpCall& call, auto in, const DeviceBuffer&, const DeviceBuffer& dout, auto grads) {
            const std::vector<ref::RefTensor> xs = read_inputs(call, in);
            const std::vector<ref::RefTensor> g =
                ref::vjp(call, xs, ref::forward(call, xs), ref::RefTensor::from_host(host(dout)));
            for (std::size_t k = 0; k < g.size(); ++k) testing::store(g[k], host(*grads[k]));
          }));
  const ReferenceData data = prepare_reference(c, 1);
  return check_on_backend(c, {"fake", &backend, &queue}, data, {1});
}

long double below(long double x) { return std::nextafter(x, -HUGE_VALL); }
long double above(long double x) { return std::nextafter(x, HUGE_VALL); }

TEST(StepsAndKnots, ATieMayRoundEitherWay) {
  // C's round takes ties away from zero; the contract rounds them to even.
  const std::vector<double> ties = {2.5, -2.5, 0.5, -1.5, 1.25, 3.5, -0.75};  // five ties
  const auto away = [](long double x) { return x - std::floor(x) == 0.5L ? (x > 0 ? above(x) : below(x)) : x; };
  const CheckResult c_round =
      direction_of(checks_reading("ste_round(shape=7,dtype=f32)", ties, away), Direction::forward);
  EXPECT_EQ(c_round.verdict, Verdict::pass) << c_round.reason;
  EXPECT_NE(c_round.reason.find("5 element(s) exactly on a kink, a step or a knot"), std::string::npos)
      << c_round.reason;
  // A tie given as itself, neither neighbour.
  const CheckResult kept = direction_of(checks_reading(
                                            "ste_round(shape=7,dtype=f32)", ties, [](long double x) { return x; },
                                            [](double x) { return x - std::floor(x) == 0.5 ? x : std::nearbyint(x); }),
                                        Direction::forward);
  EXPECT_EQ(kept.verdict, Verdict::fail) << kept.reason;
}

TEST(StepsAndKnots, AGateMayTakeEitherSideOfItsSteps) {
  const std::vector<double> x = {0, -0.0, 1, -1, 0.5, -1.5, 2};
  // x >= 0 for the forward, |x| <= 1 for the surrogate: the other side of 0 and of +-1.
  const auto inclusive = [](long double v) {
    if (v == 0) return above(0.0L);
    return std::fabs(v) == 1 ? v - std::copysign(0x1p-40L, v) : v;
  };
  const std::vector<CheckResult> checks = checks_reading("ste_hardtanh_gate(shape=7,dtype=f64)", x, inclusive);
  const CheckResult forward = direction_of(checks, Direction::forward);
  EXPECT_EQ(forward.verdict, Verdict::pass) << forward.reason;
  EXPECT_NE(forward.reason.find("4 element(s) exactly on a kink, a step or a knot"), std::string::npos)
      << forward.reason;
  const CheckResult surrogate = direction_of(checks, Direction::surrogate);
  EXPECT_EQ(surrogate.verdict, Verdict::pass) << surrogate.reason;
  EXPECT_NE(surrogate.reason.find("2 element(s) exactly on the surrogate's step, judged against either side; 2 took"),
            std::string::npos)
      << surrogate.reason;
  const CheckResult half = direction_of(checks_reading(
                                            "ste_hardtanh_gate(shape=7,dtype=f64)", x, [](long double v) { return v; },
                                            [](double v) { return v == 0  ? 0.5
                                                                  : v > 0 ? 1
                                                                          : 0; }),
                                        Direction::forward);
  EXPECT_EQ(half.verdict, Verdict::fail) << half.reason;
}

TEST(StepsAndKnots, AKnotMayBeEvaluatedInEitherSpan) {
  // Grid 8, order 3: the knots -1 + j / 4 are exact; the kernel takes the span to the left.
  const std::vector<double> x = {-1, -0.5, 0, 0.25, 0.3, 1, -0.9};
  const CheckResult left = direction_of(
      checks_reading("bspline_basis(order=3,grid=8,shape=16x8,dtype=f32)", x,
                     [](long double v) { return v == std::ldexp(std::round(std::ldexp(v, 2)), -2) ? below(v) : v; }),
      Direction::forward);
  EXPECT_EQ(left.verdict, Verdict::pass) << left.reason;
  EXPECT_NE(left.reason.find("5 element(s) exactly on a kink, a step or a knot"), std::string::npos) << left.reason;
}

TEST(StepsAndKnots, ATieOfMaximumsInputsMaySelectEither) {
  const std::vector<double> a = {1.5, -2, 3, 0.25, -1, 4, 1.5}, b = {1.5, -2, 1, 0.25, 2, 4, -3};  // four ties
  for (const char* id : {"maximum(shape=7|7,dtype=f32)", "minimum(shape=7|7,dtype=f64)"}) {
    // a >= b selects a at a tie (the first input a hair above), a > b selects b.
    for (const Reading& read : {Reading(above), Reading(below)}) {
      const std::vector<CheckResult> checks = checks_reading(id, a, read, {}, b);
      for (const CheckResult& r : checks) {
        if (r.direction != Direction::backward) continue;
        const int k = r.input;
        EXPECT_EQ(r.verdict, Verdict::pass) << id << " input " << k << ": " << r.reason;
        EXPECT_NE(r.reason.find("4 tie(s) of the two inputs, judged against either input selected; 4 took"),
                  std::string::npos)
            << id << ": " << r.reason;
      }
    }
  }
}

TEST(StepsAndKnots, ACotangentGivenToBothTiedInputsFails) {
  const std::vector<double> a = {1.5, -2, 3, 0.25, -1, 4, 1.5}, b = {1.5, -2, 1, 0.25, 2, 4, -3};
  const Case c = [&] {
    GivenValues given;
    given.inputs = {vector_of(DType::f32, a), vector_of(DType::f32, b)};
    return case_with_values(*find_case("maximum(shape=7|7,dtype=f32)"), std::move(given));
  }();
  FakeBackend backend;
  NiceMock<MockQueue> queue;
  ON_CALL(queue, backward)
      .WillByDefault(Invoke([&](const OpCall&, auto in, const DeviceBuffer&, const DeviceBuffer& dout, auto grads) {
        for (std::int64_t i = 0; i < host(dout).numel(); ++i) {
          const double x = host(*in[0]).get(i), y = host(*in[1]).get(i), g = host(dout).get(i);
          host(*grads[0]).set(i, x >= y ? g : 0);
          host(*grads[1]).set(i, y >= x ? g : 0);
        }
      }));
  const ReferenceData data = prepare_reference(c, 1);
  int failed = 0;
  for (const CheckResult& r : check_on_backend(c, {"fake", &backend, &queue}, data, {1}))
    if (r.direction == Direction::backward && r.verdict == Verdict::fail) ++failed;
  EXPECT_EQ(failed, 2);
}

// A max reduction over axis 0 of a 3x4 input whose columns tie (two, two and three maxima, one
// unique), on a fake giving each column's cotangent by `rule` to the tied maxima.
enum class TieRule { first, last, split, every };
CheckResult max_backward_with(TieRule rule) {
  const std::vector<double> x = {2, 5, 3, 1, 2, 1, 3, 4, 1, 5, 3, 2};
  GivenValues given;
  given.inputs.push_back(vector_of(DType::f32, x));
  given.inputs.front() = HostTensor(DType::f32, Shape{3, 4});
  for (std::size_t i = 0; i < x.size(); ++i) given.inputs.front().set(static_cast<std::int64_t>(i), x[i]);
  const Case c = case_with_values(*find_case("max(axis=0,keepdim=0,shape=16x33,dtype=f32)"), std::move(given));
  FakeBackend backend;
  NiceMock<MockQueue> queue;
  ON_CALL(queue, backward)
      .WillByDefault(Invoke([&](const OpCall&, auto in, const DeviceBuffer&, const DeviceBuffer& dout, auto grads) {
        const HostTensor& xs = host(*in[0]);
        for (std::int64_t col = 0; col < 4; ++col) {
          double top = xs.get(col);
          for (std::int64_t r = 1; r < 3; ++r) top = std::max(top, xs.get(r * 4 + col));
          std::vector<std::int64_t> tied;
          for (std::int64_t r = 0; r < 3; ++r) {
            host(*grads[0]).set(r * 4 + col, 0);
            if (xs.get(r * 4 + col) == top) tied.push_back(r * 4 + col);
          }
          const double g = host(dout).get(col), k = static_cast<double>(tied.size());
          for (std::size_t t = 0; t < tied.size(); ++t) {
            const bool takes = rule == TieRule::every || rule == TieRule::split || (rule == TieRule::first && t == 0) ||
                               (rule == TieRule::last && t + 1 == tied.size());
            if (takes) host(*grads[0]).set(tied[t], round_to(DType::f32, rule == TieRule::split ? g / k : g));
          }
        }
      }));
  const ReferenceData data = prepare_reference(c, 1);
  for (CheckResult& r : check_on_backend(c, {"fake", &backend, &queue}, data, {1}))
    if (r.direction == Direction::backward) return r;
  throw Error("no backward check");
}

TEST(StepsAndKnots, ARowsTiedMaximaMayTakeAnyOneOrAnEvenSplit) {
  for (const TieRule rule : {TieRule::first, TieRule::last, TieRule::split}) {
    const CheckResult r = max_backward_with(rule);
    EXPECT_EQ(r.verdict, Verdict::pass) << static_cast<int>(rule) << ": " << r.reason;
    EXPECT_NE(r.reason.find("3 row(s) whose maximum ties"), std::string::npos) << r.reason;
  }
  const CheckResult every = max_backward_with(TieRule::every);
  EXPECT_EQ(every.verdict, Verdict::fail) << every.reason;
}

}  // namespace
}  // namespace gp
