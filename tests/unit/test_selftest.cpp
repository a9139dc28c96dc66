// The fault decorator does to the results what each fault class says, and the selftest of a
// case on an exact backend catches every must-catch fault and finds a threshold eps* at the
// dtype's resolution.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/audit/model_selftest.hpp"
#include "harness/audit/selftest.hpp"
#include "harness/check/device_calls.hpp"
#include "harness/check/inputs.hpp"
#include "harness/check/poison.hpp"
#include "harness/run/subjects.hpp"
#include "support/fake_backend.hpp"
#include "support/lookup.hpp"

namespace gp {
namespace {

using testing::FakeBackend;

const Case& get(const std::string& id) { return testing::case_named(id); }

struct Both {
  DeviceCalls::Result exact, faulty;
};

// Forward and backward of a case on the exact fake backend, plain and through `fault`.
Both run_both(const Case& c, Fault fault) {
  FakeBackend backend;
  auto faulty = make_faulty_backend(backend, fault);
  const auto inputs = make_inputs(c, 5);
  const auto cot = make_cotangent(c, 5);
  auto q1 = backend.create_queue(), q2 = faulty->create_queue();
  return {DeviceCalls(c, backend, *q1).forward_backward(inputs, cot),
          DeviceCalls(c, *faulty, *q2).forward_backward(inputs, cot)};
}

std::int64_t differing(const HostTensor& a, const HostTensor& b) {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) n += a.get(i) != b.get(i);
  return n;
}

TEST(FaultInjection, EachClassChangesWhatItSays) {
  const Case& mul = get("mul(shape=16x33|16x33,dtype=f32)");
  Both r = run_both(mul, {FaultClass::sign_flipped, 0});
  EXPECT_EQ(differing(r.exact.grads[0], r.faulty.grads[0]), 1);
  EXPECT_EQ(differing(r.exact.grads[1], r.faulty.grads[1]), 0);

  r = run_both(mul, {FaultClass::last_row_dropped, 0});
  for (int k : {0, 1}) {
    const HostTensor& g = r.faulty.grads[static_cast<std::size_t>(k)];
    for (std::int64_t i = 0; i < g.numel(); ++i) EXPECT_EQ(is_poison(g, i), i >= 16 * 33 - 33) << i;
  }

  r = run_both(mul, {FaultClass::gradients_crossed, 0});
  EXPECT_EQ(first_bitwise_difference(r.faulty.grads[0], r.faulty.grads[1]), -1);
  EXPECT_GT(differing(r.exact.grads[1], r.faulty.grads[1]), 500);

  r = run_both(mul, {FaultClass::forward_scaled, 1e-2});
  EXPECT_EQ(differing(r.exact.output, r.faulty.output), 16 * 33);
  EXPECT_EQ(first_bitwise_difference(r.exact.grads[0], r.faulty.grads[0]), -1);  // backward exact

  r = run_both(get("exp(shape=127,dtype=bf16)"), {FaultClass::double_rounded, 0});
  const HostTensor& a = r.exact.output;
  const HostTensor& b = r.faulty.output;
  std::int64_t moved = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    EXPECT_LE(std::fabs(a.get(i) - b.get(i)), ulp_of(DType::bf16, a.get(i)) * 1.0001);
    moved += a.get(i) != b.get(i);
  }
  EXPECT_GT(moved, 20);  // about half the elements sit off the coarser grid
}

TEST(Selftest, ExactBackendCatchesEveryMustCatchFault) {
  FakeBackend backend;
  SelectedDevice fake{"fake", {}};
  for (const char* id : {"tanh(shape=64x128,dtype=f64)", "mul(shape=16x33|16x33,dtype=f32)"}) {
    const CaseSelftest r = selftest_case(get(id), fake, backend, {});
    EXPECT_EQ(r.baseline_problem, "") << id;
    int must = 0;
    for (const auto& f : r.faults) {
      if (!f.applies || !f.must_catch) continue;
      ++must;
      EXPECT_TRUE(f.caught) << id << " " << fault_class_name(f.fault.kind) << " " << f.fault.epsilon;
    }
    EXPECT_GE(must, 6) << id;
  }
}

// A forward-only op (an optimizer step) has no gradient faults, but its forward scaled is caught.
TEST(Selftest, AForwardOnlyOpStillMeetsTheForwardFault) {
  FakeBackend backend;
  SelectedDevice fake{"fake", {}};
  const char* id = "adamw_step(lr=0.001,beta1=0.9,beta2=0.999,eps=1e-08,wd=0.01,step=10,shape=127,dtype=f32)";
  const CaseSelftest r = selftest_case(get(id), fake, backend, {});
  EXPECT_EQ(r.baseline_problem, "");
  int applied = 0;
  for (const auto& f : r.faults) {
    EXPECT_EQ(f.applies, f.fault.kind == FaultClass::forward_scaled) << fault_class_name(f.fault.kind);
    if (!f.applies) continue;
    ++applied;
    EXPECT_TRUE(f.must_catch);
    EXPECT_TRUE(f.caught) << f.evidence;
  }
  EXPECT_EQ(applied, 1);
}

// eps* is where rounding stops hiding the scaling: a few units of the dtype's u.
TEST(Selftest, ThresholdSitsAtTheDtypeResolution) {
  FakeBackend backend;
  SelectedDevice fake{"fake", {}};
  const double f64 = selftest_case(get("tanh(shape=64x128,dtype=f64)"), fake, backend, {}).epsilon_star;
  const double f32 = selftest_case(get("tanh(shape=64x128,dtype=f32)"), fake, backend, {}).epsilon_star;
  EXPECT_GT(f64, 1e-16);
  EXPECT_LT(f64, 1e-12);
  EXPECT_GT(f32, 1e-8);
  EXPECT_LT(f32, 1e-4);
}

// A model's selftest faults one node's kernel at a time. On an exact backend every gross fault of
// every faulted node is caught, the node checks name that node, and no other node's check fails:
// the fault stays on its target (Fault::target) instead of reaching every kernel. A fault that
// changes nothing is told apart from a miss.
TEST(ModelSelftest, EachNodesGrossFaultsAreCaughtAtThatNode) {
  FakeBackend backend;
  SelectedDevice fake{"fake", {}};
  const Subject* s = find_subject("mlp(layers=3,batch=7,act=gelu,dtype=f64)");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->kind(), SubjectKind::model);
  const ModelSelftest r = selftest_model(static_cast<const CompositeSubject&>(*s), fake, backend, {});
  EXPECT_EQ(r.baseline_problem, "");
  EXPECT_GE(r.nodes.size(), 3u);  // linear, gelu, the loss
  int gross = 0, at_the_node = 0;
  for (const auto& o : r.outcomes) {
    const FaultClass k = o.fault.kind;
    if (k == FaultClass::sign_flipped || k == FaultClass::element_zeroed ||
        (k == FaultClass::gradient_scaled && o.fault.epsilon >= 1e-8) || k == FaultClass::forward_scaled) {
      ++gross;
      EXPECT_TRUE(o.caught) << o.label << " " << fault_class_name(k) << " " << o.fault.epsilon;
    }
    if (o.caught) {
      EXPECT_TRUE(o.at_node) << o.label << " " << fault_class_name(k) << ": " << o.evidence;
    }
    at_the_node += o.at_node;
    // No node of this MLP has two gradients of one shape: crossing them changes nothing, and the
    // table says so instead of counting a miss.
    if (k == FaultClass::gradients_crossed) {
      EXPECT_FALSE(o.caught || o.changes) << o.label;
    }
    EXPECT_EQ(o.elsewhere, "") << o.label << " " << fault_class_name(k);
  }
  EXPECT_GE(gross, 15);
  EXPECT_GE(at_the_node, gross);
}

}  // namespace
}  // namespace gp
