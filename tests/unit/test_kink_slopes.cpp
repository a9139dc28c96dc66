// Exactly on a kink (harness/check/kink_slopes.hpp) a backward may give either one-sided
// derivative: PyTorch's hardswish convention (-0.5 at x = -3, 1.5 at x = 3) and relu's right
// derivative at 0 PASS beside the catalog's contract, while any other value there FAILs, and a
// case with no element on a kink is judged as before.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

CheckResult backward_check(const std::string& base_id, const std::vector<double>& x, const std::vector<double>& dy,
                           const Slope& slope) {
  const Case* base = find_case(base_id);
  if (!base) throw Error("missing case " + base_id);
  GivenValues given;
  given.inputs.push_back(vector_of(base->dtype, x));
  given.cotangent = vector_of(base->dtype, dy);
  const Case c = case_with_values(*base, std::move(given));
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
