// Every output and gradient must be written completely by its kernel, afresh at every call: the
// harness poisons the buffers before each kernel and runs each backward twice. Each fake backend
// here has one of the bugs that fresh buffers from a friendly allocator hide.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/poison.hpp"
#include "support/fake_backend.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;
using ::testing::HasSubstr;

const CheckResult& find(const std::vector<CheckResult>& checks, Direction d, int input) {
  for (const auto& c : checks)
    if (c.direction == d && c.input == input) return c;
  throw Error("no check " + std::string(direction_name(d)));
}

// Runs `case_id` on a fake queue that the test has set up.
std::vector<CheckResult> run_on(const std::string& case_id, MockQueue& queue) {
  const Case* c = find_case(case_id);
  if (!c) throw Error("missing case " + case_id);
  FakeBackend backend;
  const std::uint64_t seed = 3;
  return check_on_backend(*c, {"fake", &backend, &queue}, prepare_reference(*c, seed), {seed});
}

// The exact gradient into scratch tensors shaped like `grads`.
std::vector<HostTensor> exact_gradients(const OpCall& call, std::span<const DeviceBuffer* const> in,
                                        const DeviceBuffer& out, const DeviceBuffer& dout,
                                        std::span<DeviceBuffer* const> grads) {
  std::vector<std::unique_ptr<DeviceBuffer>> scratch;
  std::vector<DeviceBuffer*> views;
  FakeBackend b;
  for (auto* g : grads) {
    scratch.push_back(g ? b.allocate(g->dtype(), g->shape()) : nullptr);
    views.push_back(scratch.back().get());
  }
  exact_backward(call, in, out, dout, views);
  std::vector<HostTensor> v;
  for (auto& s : scratch) v.push_back(s ? host(*s) : HostTensor());
  return v;
}

TEST(FreshBuffers, PoisonIsARecognisableNaNInEveryFloatDtype) {
  for (DType t : {DType::f16, DType::bf16, DType::f32, DType::f64}) {
    HostTensor p = poison_tensor(t, Shape({3}));
    for (std::int64_t i = 0; i < 3; ++i) {
      EXPECT_TRUE(std::isnan(p.get(i))) << dtype_name(t);
      EXPECT_TRUE(is_poison(p, i)) << dtype_name(t);
    }
    HostTensor q(t, Shape({1}));
    q.set(0, std::nan(""));  // a NaN that arithmetic makes is not the poison
    EXPECT_FALSE(is_poison(q, 0)) << dtype_name(t);
  }
}

TEST(FreshBuffers, GradientAccumulatedIntoFails) {
  // dx += dy * f'(x): the kernel reads its gradient buffer before writing it.
  NiceMock<MockQueue> queue;
  ON_CALL(queue, backward(_, _, _, _, _))
      .WillByDefault(Invoke([](auto& call, auto in, auto& out, auto& dout, auto grads) {
        auto exact = exact_gradients(call, in, out, dout, grads);
        HostTensor& g = host(*grads[0]);
        for (std::int64_t i = 0; i < g.numel(); ++i) g.set(i, g.get(i) + exact[0].get(i));
      }));
  auto checks = run_on("tanh(shape=64x128,dtype=f32)", queue);
  const auto& b = find(checks, Direction::backward, 0);
  EXPECT_EQ(b.verdict, Verdict::fail);
  EXPECT_THAT(b.reason, HasSubstr("8192 element(s) still hold the harness's poison"));
}

TEST(FreshBuffers, GradientAccumulatedAcrossCallsFails) {
  // A backend that zeroes a workspace when it allocates it, accumulates each call's gradient
  // into it and copies it out: right on the first call, twice the gradient on the second.
  NiceMock<MockQueue> queue;
  auto workspace = std::make_shared<std::vector<double>>();
  ON_CALL(queue, backward(_, _, _, _, _))
      .WillByDefault(Invoke([workspace](auto& call, auto in, auto& out, auto& dout, auto grads) {
        auto exact = exact_gradients(call, in, out, dout, grads);
        HostTensor& g = host(*grads[0]);
        workspace->resize(static_cast<std::size_t>(g.numel()), 0.0);
        for (std::int64_t i = 0; i < g.numel(); ++i) {
          (*workspace)[static_cast<std::size_t>(i)] += exact[0].get(i);
          g.set(i, (*workspace)[static_cast<std::size_t>(i)]);
        }
      }));
  auto checks = run_on("sigmoid(shape=127,dtype=f64)", queue);
  const auto& b = find(checks, Direction::backward, 0);
  EXPECT_EQ(b.verdict, Verdict::fail);
  EXPECT_THAT(b.reason, HasSubstr("gradient not overwritten: second backward differs at index 0"));
}

TEST(FreshBuffers, GradientMissingItsLastElementFails) {
  NiceMock<MockQueue> queue;
  ON_CALL(queue, backward(_, _, _, _, _))
      .WillByDefault(Invoke([](auto& call, auto in, auto& out, auto& dout, auto grads) {
        auto exact = exact_gradients(call, in, out, dout, grads);
        for (std::size_t k = 0; k < grads.size(); ++k) {
          if (!grads[k]) continue;
          HostTensor& g = host(*grads[k]);
          for (std::int64_t i = 0; i + 1 < g.numel(); ++i) g.set(i, exact[k].get(i));
        }
      }));
  auto checks = run_on("mul(shape=16x33|16x33,dtype=f32)", queue);
  for (int k : {0, 1}) {
    const auto& b = find(checks, Direction::backward, k);
    EXPECT_EQ(b.verdict, Verdict::fail);
    EXPECT_THAT(b.reason, HasSubstr("1 element(s) still hold the harness's poison"));
    EXPECT_THAT(b.reason, HasSubstr("first at index 527"));
  }
}

TEST(FreshBuffers, OutputMissingItsLastElementFails) {
  NiceMock<MockQueue> queue;
  ON_CALL(queue, forward(_, _, _)).WillByDefault(Invoke([](auto& call, auto in, DeviceBuffer& out) {
    HostTensor before = host(out);
    exact_forward(call, in, out);
    const std::int64_t last = before.numel() - 1;
    host(out).set(last, before.get(last));
  }));
  auto checks = run_on("exp(shape=127,dtype=f64)", queue);
  const auto& f = find(checks, Direction::forward, -1);
  EXPECT_EQ(f.verdict, Verdict::fail);
  EXPECT_THAT(f.reason, HasSubstr("1 element(s) still hold the harness's poison"));
  EXPECT_THAT(f.reason, HasSubstr("first at index 126"));
}

TEST(FreshBuffers, ExactKernelsPassBothBackwards) {
  NiceMock<MockQueue> queue;
  auto checks = run_on("layer_norm(eps=1e-05,shape=16x33|33|33,dtype=f32)", queue);
  for (const auto& c : checks) {
    if (c.direction == Direction::numerical_backend) continue;  // skipped: less sensitive than the comparison
    EXPECT_EQ(c.verdict, Verdict::pass) << direction_label(c.direction, c.input) << c.reason;
  }
}

}  // namespace
}  // namespace gp
