// Other readings of a unary op's input (harness/check/other_readings.hpp). Exactly on a kink a
// backward may give either one-sided derivative: PyTorch's hardswish convention (-0.5 at x = -3,
// 1.5 at x = 3) and relu's right derivative at 0 PASS beside the catalog's contract, while any
// other value there FAILs, and a case with no element on a kink is judged as before. On a device
// that declares it may flush subnormals, a subnormal input may be read as zero (NVIDIA's Vulkan
// driver: relu's and abs's derivatives at 0, log's -inf); on one that does not, that is a FAIL.
// The other stated readings (steps, knots, ties): test_stated_readings.cpp.
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
#include "support/check_values.hpp"
#include "support/fake_backend.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;
using testing::direction_of;
using testing::vector_of;

// A backward of `slope(x)` times the cotangent, rounded to the dtype.
using Slope = std::function<double(double)>;

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

}  // namespace
}  // namespace gp
