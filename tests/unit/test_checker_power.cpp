// The checker's power: each bug class a real backend has shown must FAIL, for the right
// reason, and an exact backend must PASS. The fake backend is exact by default (reference
// values rounded to the dtype); each test swaps in one bug through GoogleMock.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/check/checker.hpp"
#include "support/fake_backend.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;
using ::testing::AtLeast;
using ::testing::HasSubstr;
using ::testing::Return;

using GradMutation = std::function<void(std::span<DeviceBuffer* const> grads)>;

struct Outcome {
  std::vector<CheckResult> checks;
  const CheckResult& find(Direction d, int input = -1) const {
    for (const auto& c : checks)
      if (c.direction == d && (input < 0 || c.input == input)) return c;
    throw Error("no check " + std::string(direction_name(d)));
  }
};

using BackwardFn = std::function<void(const OpCall&, std::span<const DeviceBuffer* const>, const DeviceBuffer&,
                                      const DeviceBuffer&, std::span<DeviceBuffer* const>)>;

// Runs `case_id` on the fake backend after `configure` has set its queue's kernels.
Outcome run_on_queue(const std::string& case_id, const std::function<void(NiceMock<MockQueue>&)>& configure) {
  const Case* c = find_case(case_id);
  if (!c) throw Error("missing case " + case_id);
  FakeBackend backend;
  NiceMock<MockQueue> queue;
  configure(queue);
  const std::uint64_t seed = 7;
  ReferenceData data = prepare_reference(*c, seed);
  Outcome o;
  o.checks = check_on_backend(*c, {"fake", &backend, &queue}, data, {seed});
  return o;
}

// Runs `case_id` on the fake backend with `backward` as its VJP kernel.
Outcome run_with_backward(const std::string& case_id, BackwardFn backward) {
  return run_on_queue(case_id, [&](NiceMock<MockQueue>& queue) {
    EXPECT_CALL(queue, forward(_, _, _)).Times(AtLeast(1));
    EXPECT_CALL(queue, backward(_, _, _, _, _)).Times(AtLeast(1)).WillRepeatedly(Invoke(backward));
  });
}

// Runs `case_id` on the fake backend, with the backward result passed through `mutate`.
Outcome run_with(const std::string& case_id, GradMutation mutate) {
  return run_with_backward(
      case_id, [mutate](const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                        const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
        exact_backward(call, in, out, dout, grads);
        if (mutate) mutate(grads);
      });
}

void for_each_grad(std::span<DeviceBuffer* const> grads, const std::function<void(HostTensor&)>& f) {
  for (auto* g : grads)
    if (g) f(host(*g));
}

TEST(CheckerPower, ExactBackendPasses) {
  for (const char* id : {"tanh(shape=16x33,dtype=f32)", "add(shape=16x33|33,dtype=f32)", "sin(shape=127,dtype=f64)",
                         "softmax(axis=-1,shape=64x128,dtype=f32)", "matmul(shape=16x33|33x9,dtype=f32)"}) {
    Outcome o = run_with(id, nullptr);
    for (const auto& c : o.checks) {
      if (c.direction == Direction::numerical_backend && c.verdict == Verdict::skip) {  // less sensitive
        EXPECT_THAT(c.reason, HasSubstr("adds no detection")) << id;
        continue;
      }
      EXPECT_EQ(c.verdict, Verdict::pass) << id << " " << direction_label(c.direction, c.input) << ": " << c.reason;
    }
  }
}

TEST(CheckerPower, WrongSignFails) {
  Outcome o = run_with("tanh(shape=16x33,dtype=f32)", [](auto grads) {
    for_each_grad(grads, [](HostTensor& t) {
      for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, -t.get(i));
    });
  });
  EXPECT_EQ(o.find(Direction::forward).verdict, Verdict::pass);
  EXPECT_EQ(o.find(Direction::backward).verdict, Verdict::fail);
  EXPECT_THAT(o.find(Direction::backward).reason, HasSubstr("exceeds bound"));
  EXPECT_EQ(o.find(Direction::numerical_backend).verdict, Verdict::fail);
  EXPECT_THAT(o.find(Direction::numerical_backend).reason, HasSubstr("disagrees with finite differences"));
}

TEST(CheckerPower, GradientScaledByOnePlus1e3Fails) {
  Outcome o = run_with("exp(shape=64x128,dtype=f32)", [](auto grads) {
    for_each_grad(grads, [](HostTensor& t) {
      for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, t.get(i) * (1 + 1e-3));
    });
  });
  EXPECT_EQ(o.find(Direction::forward).verdict, Verdict::pass);
  EXPECT_EQ(o.find(Direction::backward).verdict, Verdict::fail);
  EXPECT_GT(o.find(Direction::backward).metrics.margin, 1.0);
  // Finite differences of the backend's own forward see the 1e-3 too, without the reference.
  EXPECT_EQ(o.find(Direction::numerical_backend).verdict, Verdict::fail);
}

TEST(CheckerPower, OneZeroedElementFails) {
  Outcome o = run_with("sigmoid(shape=127,dtype=f32)",
                       [](auto grads) { for_each_grad(grads, [](HostTensor& t) { t.set(42, 0.0); }); });
  const auto& b = o.find(Direction::backward);
  EXPECT_EQ(b.verdict, Verdict::fail);
  EXPECT_EQ(b.metrics.worst.index, 42);
  EXPECT_THAT(b.reason, HasSubstr("index 42"));
}

TEST(CheckerPower, BiasGradientWithoutBatchSumFails) {
  // add([16,33], [33]): the gradient of the bias is the sum of dy over the batch; this bug
  // returns the first row only, as a kernel that forgot the reduction would.
  const Case* c = find_case("add(shape=16x33|33,dtype=f32)");
  ASSERT_NE(c, nullptr);
  const HostTensor cot = prepare_reference(*c, 7).cotangent;
  Outcome o = run_with(c->id, [&](auto grads) {
    HostTensor& bias = host(*grads[1]);
    for (std::int64_t j = 0; j < bias.numel(); ++j) bias.set(j, cot.get(j));
  });
  EXPECT_EQ(o.find(Direction::backward, 0).verdict, Verdict::pass);
  EXPECT_EQ(o.find(Direction::backward, 1).verdict, Verdict::fail);
  EXPECT_EQ(o.find(Direction::numerical_backend, 1).verdict, Verdict::fail);
}

TEST(CheckerPower, OneNaNFails) {
  Outcome o = run_with("mul(shape=16x33|16x33,dtype=f64)", [](auto grads) { host(*grads[0]).set(5, std::nan("")); });
  const auto& b = o.find(Direction::backward, 0);
  EXPECT_EQ(b.verdict, Verdict::fail);
  EXPECT_EQ(b.metrics.nonfinite, 1);
  EXPECT_THAT(b.reason, HasSubstr("non-finite"));
}

TEST(CheckerPower, RightForwardWithBackwardOfAnotherFunctionFails) {
  // sin forward, but the backward of cos (-sin(x) * dy): the forward check passes, the
  // gradient check and the self-consistency check both fail.
  const Case* c = find_case("sin(shape=64x128,dtype=f32)");
  ASSERT_NE(c, nullptr);
  const ReferenceData data = prepare_reference(*c, 7);
  Outcome o = run_with(c->id, [&](auto grads) {
    HostTensor& g = host(*grads[0]);
    for (std::int64_t i = 0; i < g.numel(); ++i) g.set(i, -std::sin(data.inputs[0].get(i)) * data.cotangent.get(i));
  });
  EXPECT_EQ(o.find(Direction::forward).verdict, Verdict::pass);
  EXPECT_EQ(o.find(Direction::backward).verdict, Verdict::fail);
  EXPECT_EQ(o.find(Direction::numerical_backend).verdict, Verdict::fail);
}

TEST(CheckerPower, SilentlyZeroInputGradientFails) {
  // The single-layer incident: the input gradient of linear() came back all zeros.
  Outcome o = run_with("linear(shape=1x33|9x33|9,dtype=f32)", [](auto grads) {
    HostTensor& dx = host(*grads[0]);
    for (std::int64_t i = 0; i < dx.numel(); ++i) dx.set(i, 0.0);
  });
  EXPECT_EQ(o.find(Direction::backward, 0).verdict, Verdict::fail);
  EXPECT_EQ(o.find(Direction::numerical_backend, 0).verdict, Verdict::fail);
  EXPECT_EQ(o.find(Direction::backward, 1).verdict, Verdict::pass);
}

// A 16-bit matmul whose running sum is rounded to the storage type after every product: the
// long dot products (4096 terms) lose digits that a sum kept in f32 has.
Outcome run_matmul_summing_in(const std::string& case_id, DType sum_type) {
  return run_on_queue(case_id, [sum_type](NiceMock<MockQueue>& queue) {
    ON_CALL(queue, forward).WillByDefault(Invoke([sum_type](const OpCall& call, auto in, DeviceBuffer& out) {
      const HostTensor &a = host(*in[0]), &b = host(*in[1]);
      const std::int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          float sum = 0;
          for (std::int64_t p = 0; p < k; ++p)
            sum = static_cast<float>(round_to(sum_type, sum + static_cast<float>(a.get(i * k + p) * b.get(p * n + j))));
          host(out).set(i * n + j, round_to(call.dtype, sum));
        }
    }));
  });
}

TEST(CheckerPower, SumKeptInTheStorageTypeFails) {
  for (const char* id : {"matmul(long,shape=8x4096|4096x5,dtype=bf16)", "matmul(long,shape=8x4096|4096x5,dtype=f16)"}) {
    const DType storage = find_case(id)->dtype;
    EXPECT_EQ(run_matmul_summing_in(id, DType::f32).find(Direction::forward).verdict, Verdict::pass) << id;
    const CheckResult bad = run_matmul_summing_in(id, storage).find(Direction::forward);
    EXPECT_EQ(bad.verdict, Verdict::fail) << id << ": " << bad.reason;
  }
}

// A call with an empty input (core/README.md, "Empty tensors"): its empty tensors and its zeros (sums
// over no element) PASS on an exact backend, not MISTRUSTED; a kernel that leaves those zeros
// unwritten FAILs on the poison the buffers held.
TEST(CheckerPower, EmptyTensorsPassAndTheirSumsOverNoElementMustBeWritten) {
  int empty_cases = 0;
  for (const Case& c : all_cases()) {
    if (!has_empty_input(c.call)) continue;
    ++empty_cases;
    for (const auto& r : run_with(c.id, nullptr).checks)
      EXPECT_TRUE(r.verdict == Verdict::pass || r.verdict == Verdict::skip) << c.id << ": " << r.reason;
  }
  EXPECT_GE(empty_cases, 60);

  const Outcome unwritten = run_with_backward(
      "add(shape=0x5|5,dtype=f32)", [](const OpCall&, std::span<const DeviceBuffer* const>, const DeviceBuffer&,
                                       const DeviceBuffer&, std::span<DeviceBuffer* const>) {});
  EXPECT_EQ(unwritten.find(Direction::backward, 1).verdict, Verdict::fail);
  const Outcome no_forward = run_on_queue("matmul(shape=4x0|0x3,dtype=f32)", [](NiceMock<MockQueue>& queue) {
    EXPECT_CALL(queue, forward(_, _, _)).Times(AtLeast(1)).WillRepeatedly(Return());
  });
  EXPECT_EQ(no_forward.find(Direction::forward).verdict, Verdict::fail);
}

TEST(CheckerPower, DeviceErrorIsAnErrorVerdict) {
  const Case* c = find_case("exp(shape=7,dtype=f32)");
  ASSERT_NE(c, nullptr);
  FakeBackend backend;
  NiceMock<MockQueue> queue;
  ON_CALL(queue, forward).WillByDefault(Invoke([](const OpCall& call, auto, auto&) {
    throw DeviceError("clEnqueueNDRangeKernel", "CL_OUT_OF_RESOURCES", call.case_id);
  }));
  ReferenceData data = prepare_reference(*c, 1);
  auto checks = check_on_backend(*c, {"fake", &backend, &queue}, data, {1});
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].verdict, Verdict::error);
  EXPECT_THAT(checks[0].reason, HasSubstr("clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES [case exp("));
}

}  // namespace
}  // namespace gp
