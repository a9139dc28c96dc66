// The readings the catalog states where a kernel may legitimately differ from the contract
// (harness/check/other_readings.hpp), beside the kinks of test_other_readings.cpp: where a
// straight-through op steps (ste_round's ties, the hardtanh gate's 0, -1 and 1) and on a B-spline
// knot the forward and the backward may take either one-sided value; at ties of maximum's and
// minimum's inputs both gradients either selection together; in a max row whose maximum ties any
// one tied maximum or an even split. Any other value there FAILs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/check/checker.hpp"
#include "support/check_values.hpp"
#include "support/fake_backend.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;
using testing::direction_of;
using testing::vector_of;

// A forward value `value(x)` per element, rounded to the dtype.
using ForwardValue = std::function<double(double)>;

// The checks of case `base_id` at x (its cotangent drawn) on a fake device computing the contract
// at the inputs `read(x)`, with `value(x)` in place of forward element i where set: a kernel's
// other reading of its input, or a wrong value.
using Reading = std::function<long double(long double)>;
std::vector<CheckResult> checks_reading(const std::string& base_id, const std::vector<double>& x, const Reading& read,
                                        const ForwardValue& value = {}, const std::vector<double>& second = {}) {
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
