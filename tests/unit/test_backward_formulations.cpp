// Declared backward formulations (docs/error-model.md, "Backward formulations"). A fake 16-bit
// kernel whose backward reads the stored output, as PyTorch's do (sigmoid as dy y (1 - y), tanh as
// dy (1 - y^2), in f32 from the bf16 y), keeps no significant digit where those forms cancel: it
// FAILs the default bound, which is the stable form's computed from the input, and PASSes once
// the device declares the formulation, whose report then names it and counts the elements left
// without a significant digit. A kernel that computes from the input passes either way.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/tolerance.hpp"
#include "reference/reference.hpp"
#include "support/fake_backend.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;

// PyTorch's sigmoid_backward and tanh_backward: the derivative from the stored output.
void pointwise_backward_from_output(const OpCall& call, const HostTensor& y, const HostTensor& dy, HostTensor& g) {
  for (std::int64_t i = 0; i < y.numel(); ++i) {
    const auto yi = static_cast<float>(y.get(i)), dyi = static_cast<float>(dy.get(i));
    const float slope = call.kind == OpKind::sigmoid ? yi * (1.0f - yi) : 1.0f - yi * yi;
    g.set(i, round_to(call.dtype, dyi * slope));
  }
}

struct Backward {
  Verdict verdict = Verdict::skip;
  std::string formulation, reason;
  std::int64_t insignificant = 0, elements = 0;
};

Backward run_backward(const std::string& case_id, const MathProfile& math, bool from_output) {
  const Case* c = find_case(case_id);
  if (!c) throw Error("missing case " + case_id);
  FakeBackend backend;
  backend.set_math(math);
  NiceMock<MockQueue> queue;
  if (from_output)
    ON_CALL(queue, backward)
        .WillByDefault(
            Invoke([](const OpCall& call, auto, const DeviceBuffer& out, const DeviceBuffer& dout, auto grads) {
              pointwise_backward_from_output(call, host(out), host(dout), host(*grads[0]));
            }));
  const std::uint64_t seed = 1;
  const ReferenceData data = prepare_reference(*c, seed);
  Backward b;
  for (const CheckResult& r : check_on_backend(*c, {"fake", &backend, &queue}, data, {seed}))
    if (r.direction == Direction::backward)
      b = {r.verdict, r.formulation, r.reason, r.metrics.insignificant, r.metrics.elements};
  return b;
}

const char* const kCases[] = {"sigmoid(saturating,shape=127,dtype=bf16)", "tanh(shape=127,dtype=bf16)",
                              "sigmoid(saturating,shape=64x128,dtype=f16)"};

const MathProfile& declared() {
  return with_backward_from_output(correctly_rounded_profile(), {OpKind::tanh, OpKind::sigmoid});
}

TEST(BackwardFormulations, FromTheStoredOutputFailsTheDefaultBound) {
  for (const char* id : kCases) {
    const Backward b = run_backward(id, correctly_rounded_profile(), true);
    EXPECT_EQ(b.verdict, Verdict::fail) << id << ": " << b.reason;
    EXPECT_EQ(b.formulation, "") << id;
  }
}

TEST(BackwardFormulations, FromTheStoredOutputPassesUnderItsDeclaration) {
  for (const char* id : kCases) {
    const Backward b = run_backward(id, declared(), true);
    EXPECT_EQ(b.verdict, Verdict::pass) << id << ": " << b.reason;
    EXPECT_EQ(b.formulation, kBackwardFromOutput) << id;
  }
  // In saturation y (1 - y) from a bf16 y keeps no digit: the report counts those elements.
  const Backward saturated = run_backward(kCases[0], declared(), true);
  EXPECT_GT(saturated.insignificant, saturated.elements / 10)
      << saturated.insignificant << " of " << saturated.elements;
}

TEST(BackwardFormulations, FromTheInputPassesEitherWay) {
  for (const char* id : kCases) {
    EXPECT_EQ(run_backward(id, correctly_rounded_profile(), false).verdict, Verdict::pass) << id;
    EXPECT_EQ(run_backward(id, declared(), false).verdict, Verdict::pass) << id;
  }
}

// The declaration widens the bounds of the ops it names, on every element (never narrows), and
// of no other op; the profile's budgets stay the base's.
TEST(BackwardFormulations, TheDeclarationWidensOnlyTheOpsItNames) {
  const MathProfile& tanh_only = with_backward_from_output(correctly_rounded_profile(), {OpKind::tanh});
  EXPECT_EQ(&tanh_only, &with_backward_from_output(correctly_rounded_profile(), {OpKind::tanh, OpKind::tanh}));
  EXPECT_NE(tanh_only.source(), correctly_rounded_profile().source());
  for (const char* id : kCases) {
    const Case* c = find_case(id);
    ASSERT_NE(c, nullptr) << id;
    const ReferenceData data = prepare_reference(*c, 1);
    const ref::Bounded& strict = data.bounded(&correctly_rounded_profile(), false);
    const ref::Bounded& wide = data.bounded(&tanh_only, false);
    bool wider = false;
    for (std::size_t i = 0; i < strict.grads[0].err.size(); ++i) {
      const double s = propagated_error(strict.grads[0].err[i]), w = propagated_error(wide.grads[0].err[i]);
      if (c->decl.op == OpKind::tanh) {
        EXPECT_GE(w, s) << id << " element " << i;
        wider = wider || w > s;
      } else {
        EXPECT_EQ(w, s) << id << " element " << i;
      }
    }
    EXPECT_EQ(wider, c->decl.op == OpKind::tanh) << id;
  }
}

}  // namespace
}  // namespace gp
