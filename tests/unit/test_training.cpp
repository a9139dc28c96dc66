// Training runs: a backend whose kernels are exact passes; each bug that only shows across steps
// fails, naming the first step and the tensor that left its band.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>

#include "core/error.hpp"
#include "harness/graph/composite.hpp"
#include "harness/training/training.hpp"
#include "support/fake_backend.hpp"
#include "support/lookup.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;

constexpr std::uint64_t kSeed = 2;
const char* const kAdamw = "train(model=mlp,opt=adamw,steps=20,batch=16,dtype=f32)";

// The tests of this file run in one process (tests/CMakeLists.txt, GP_ONE_PROCESS_TESTS): each
// training run's reference, its bounds included, is prepared once for all of them.
const CompositeReference& reference_of(const Composite& c) {
  static std::map<std::string, std::unique_ptr<CompositeReference>> prepared;
  auto& r = prepared[c.id];
  if (!r) r = std::make_unique<CompositeReference>(prepare_training_reference(c, kSeed));
  return *r;
}

std::vector<CheckResult> train_on(const std::string& id, MockQueue& q) {
  const Composite* c = &testing::composite(id);
  FakeBackend backend;
  return check_training_on_backend(*c, "fake", backend, q, reference_of(*c), kSeed);
}

const CheckResult& part(const std::vector<CheckResult>& checks, const std::string& label) {
  for (const auto& c : checks)
    if (c.part == label) return c;
  throw Error("no check " + label);
}

// The forward of the optimizer step with `bug` applied to a copy of its call and inputs.
void optimizer_bug(MockQueue& q, std::function<void(OpCall&, std::vector<HostTensor>&)> bug) {
  ON_CALL(q, forward)
      .WillByDefault(Invoke([bug](const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
        if (call.kind != OpKind::adamw_step && call.kind != OpKind::sgd_step) return exact_forward(call, in, out);
        OpCall changed = call;
        std::vector<HostTensor> inputs;
        for (const auto* b : in) inputs.push_back(host(*b));
        bug(changed, inputs);
        std::vector<std::unique_ptr<HostBuffer>> buffers;
        std::vector<const DeviceBuffer*> ptrs;
        for (const auto& t : inputs) {
          buffers.push_back(std::make_unique<HostBuffer>(t.dtype(), t.shape()));
          buffers.back()->data = t;
          ptrs.push_back(buffers.back().get());
        }
        exact_forward(changed, ptrs, out);
      }));
}

TEST(Training, AnExactBackendPassesEveryCheck) {
  for (const char* id : {kAdamw, "train(model=mlp,opt=sgd_nesterov,steps=20,batch=16,dtype=f64)"}) {
    NiceMock<MockQueue> q;
    const auto checks = train_on(id, q);
    for (const auto& c : checks) EXPECT_EQ(c.verdict, Verdict::pass) << id << " " << c.part << ": " << c.reason;
    EXPECT_GT(checks.size(), 10u);
    // The loss curve the reports draw: every step within its band, the amplification from step 2.
    const TrainingSteps& curve = part(checks, "loss at every step").steps;
    ASSERT_EQ(curve.loss.size(), 20u);
    EXPECT_EQ(curve.amplification.size(), 19u);
    for (std::size_t k = 0; k < curve.loss.size(); ++k)
      EXPECT_LE(std::fabs(curve.loss[k] - curve.reference[k]), curve.bound[k]) << "step " << k + 1;
    EXPECT_EQ(curve.first_out, 0);
  }
}

TEST(Training, AdamsFirstMomentNotWrittenBackFails) {
  NiceMock<MockQueue> q;
  ON_CALL(q, forward)
      .WillByDefault(Invoke([](const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
        exact_forward(call, in, out);
        if (call.kind != OpKind::adamw_step) return;
        const HostTensor& m = host(*in[2]);
        for (std::int64_t j = 0; j < m.numel(); ++j) host(out).set(m.numel() + j, m.get(j));
      }));
  const auto checks = train_on(kAdamw, q);
  EXPECT_EQ(part(checks, "W1 m at every step").verdict, Verdict::fail);
  EXPECT_THAT(part(checks, "W1 m at every step").reason, ::testing::HasSubstr("first at step 1 "));
  EXPECT_THAT(part(checks, "W1 at every step").reason, ::testing::HasSubstr("first at step 2 "));
  EXPECT_EQ(part(checks, "W1 m at every step").steps.first_out, 1);  // what the reports show
  EXPECT_EQ(part(checks, "W1 at every step").steps.first_out, 2);
}

TEST(Training, AStepCounterThatDoesNotAdvanceFails) {
  NiceMock<MockQueue> q;
  optimizer_bug(q, [](OpCall& call, std::vector<HostTensor>&) { call.attrs.t = 1; });
  const auto checks = train_on(kAdamw, q);
  EXPECT_EQ(part(checks, "W1 at every step").verdict, Verdict::fail);
  EXPECT_THAT(part(checks, "W1 at every step").reason, ::testing::HasSubstr("first at step 2 "));
}

TEST(Training, WeightDecayAppliedTwiceFails) {
  NiceMock<MockQueue> q;
  optimizer_bug(q, [](OpCall& call, std::vector<HostTensor>& in) {
    for (std::int64_t j = 0; j < in[0].numel(); ++j)
      in[0].set(j, in[0].get(j) * (1 - call.attrs.lr * call.attrs.weight_decay));
  });
  const auto checks = train_on(kAdamw, q);
  EXPECT_EQ(part(checks, "W1 at every step").verdict, Verdict::fail);
  EXPECT_THAT(part(checks, "W1 at every step").reason, ::testing::HasSubstr("first at step 1 "));
}

// A backward that adds the gradient of its previous call (state kept across iterations).
TEST(Training, GradientsAccumulatedAcrossIterationsFail) {
  NiceMock<MockQueue> q;
  auto previous = std::make_shared<std::map<std::string, std::vector<HostTensor>>>();
  ON_CALL(q, backward)
      .WillByDefault(
          Invoke([previous](const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                            const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
            exact_backward(call, in, out, dout, grads);
            if (call.kind != OpKind::linear) return;
            const std::string key = call.input_shapes[1].to_string();
            auto& before = (*previous)[key];
            std::vector<HostTensor> now;
            for (auto* g : grads) now.push_back(g ? host(*g) : HostTensor());
            for (std::size_t k = 0; k < before.size(); ++k)
              if (grads[k])
                for (std::int64_t j = 0; j < now[k].numel(); ++j)
                  host(*grads[k]).set(j, now[k].get(j) + before[k].get(j));
            before = now;
          }));
  const auto checks = train_on(kAdamw, q);
  EXPECT_EQ(part(checks, "W1 at every step").verdict, Verdict::fail);
  EXPECT_THAT(part(checks, "W1 at every step").reason, ::testing::HasSubstr("first at step 2 "));
}

// Every gradient 1e-4 too large: a small systematic error that a fixed 1e-3 tolerance passes.
TEST(Training, ABackwardScaledByOnePlusTenToTheMinusFourFails) {
  NiceMock<MockQueue> q;
  ON_CALL(q, backward)
      .WillByDefault(Invoke([](const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                               const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
        exact_backward(call, in, out, dout, grads);
        for (auto* g : grads)
          if (g)
            for (std::int64_t j = 0; j < g->shape().numel(); ++j) host(*g).set(j, host(*g).get(j) * (1 + 1e-4));
      }));
  const auto checks = train_on("train(model=mlp,opt=sgd_nesterov,steps=20,batch=16,dtype=f64)", q);
  EXPECT_EQ(part(checks, "W1 at every step").verdict, Verdict::fail);
  EXPECT_EQ(part(checks, "loss at every step").verdict, Verdict::fail);
}

const char* const kAccumulatedW1 = "grad W1 accumulated over 4 micro-batches";

// The accumulation keeps only the last micro-batch's gradient (grad = g instead of grad += g).
TEST(Training, MicroBatchGradientsOverwrittenInsteadOfAccumulatedFail) {
  NiceMock<MockQueue> q;
  ON_CALL(q, forward)
      .WillByDefault(Invoke([](const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
        const std::string tag = "micro-batch accumulation";
        if (call.kind == OpKind::add && call.case_id.ends_with(tag)) return void(host(out) = host(*in[1]));
        exact_forward(call, in, out);
      }));
  const auto checks = train_on(kAdamw, q);
  EXPECT_EQ(part(checks, kAccumulatedW1).verdict, Verdict::fail);
  EXPECT_EQ(part(checks, "loss at every step").verdict, Verdict::pass);
}

// The 1/M enters as each micro-batch's d loss (PyTorch's (loss / M).backward()); a loss whose
// backward ignores its incoming gradient sums the micro-batches' gradients unscaled. The training
// loop's d loss is 1, so only the accumulation check sees it.
TEST(Training, MicroBatchGradientsAccumulatedWithoutTheirScalingFail) {
  NiceMock<MockQueue> q;
  ON_CALL(q, backward)
      .WillByDefault(Invoke([](const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                               const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
        if (call.kind != OpKind::cross_entropy) return exact_backward(call, in, out, dout, grads);
        HostBuffer one(dout.dtype(), dout.shape());
        one.data.set(0, 1.0);
        exact_backward(call, in, out, one, grads);
      }));
  const auto checks = train_on(kAdamw, q);
  EXPECT_EQ(part(checks, kAccumulatedW1).verdict, Verdict::fail);
  EXPECT_EQ(part(checks, "loss at every step").verdict, Verdict::pass);
  EXPECT_EQ(part(checks, "W1 at every step").verdict, Verdict::pass);
}

}  // namespace
}  // namespace gp
