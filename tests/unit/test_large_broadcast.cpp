// Broadcast binary ops in the large tier (docs/scale.md): a broadcast input's gradient element
// sums every output element that reads it, and its slice is the op over those elements alone. A
// kernel whose long gradient sums lose their last work group's terms fails the large case and
// passes the small tier, whose sums are short.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cases/registry.hpp"
#include "harness/check/checker.hpp"
#include "harness/large/sampled_reference.hpp"
#include "harness/large/sampled_subject.hpp"
#include "reference/element_slice.hpp"
#include "support/fake_backend.hpp"
#include "support/lookup.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;
using testing::case_named;
using ::testing::HasSubstr;

// A division's gradient for its broadcast divisor that drops the terms of the last 256 output
// elements reading each divisor (one work group's share of a split sum) once a sum has more than
// 4,096 of them. Every other element is exact.
constexpr std::size_t kDroppedTerms = 256;
void short_sum_backward(const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                        const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
  exact_backward(call, in, out, dout, grads);
  if (call.kind != OpKind::div || !grads[1] || call.input_shapes[1].numel() == call.output_shape.numel()) return;
  HostTensor& db = host(*grads[1]);
  const HostTensor &a = host(*in[0]), &b = host(*in[1]), &dy = host(dout);
  const BroadcastPlan plan = broadcast_plan(call.input_shapes[0], call.input_shapes[1]);
  for (std::int64_t j = 0; j < db.numel(); ++j) {
    const std::vector<std::int64_t> readers = ref::element_slice(call, 1, j).cotangent;
    if (readers.size() <= 4096) continue;
    double dropped = 0;
    for (std::size_t r = readers.size() - kDroppedTerms; r < readers.size(); ++r) {
      const std::int64_t o = readers[r];
      const double q = a.get(plan.a_index(o)) / b.get(j);
      dropped += dy.get(o) * (-q / b.get(j));
    }
    db.set(j, db.get(j) - dropped);
  }
}

// The boundaries alone, and a complete check of the divisor's gradient only (the other tensors'
// would evaluate 4.2 million elements per run).
RunContext large_run() {
  RunContext run{2};
  run.sample.random = 0;
  run.sample.complete_elements = 64;
  run.sample.streamed_complete_elements = 0;
  return run;
}

std::vector<CheckResult> checks(const Case& c, bool bug, const SampledReference* large = nullptr) {
  FakeBackend backend;
  NiceMock<MockQueue> queue;
  if (bug) ON_CALL(queue, backward).WillByDefault(Invoke(short_sum_backward));
  const RunContext run = large_run();
  if (large) return check_sampled_on_backend(c, {"fake", &backend, &queue}, *large, run);
  return check_on_backend(c, {"fake", &backend, &queue}, prepare_reference(c, run.seed), run);
}

const CheckResult& divisor_gradient(const std::vector<CheckResult>& results, Direction direction) {
  for (const CheckResult& r : results)
    if (r.direction == direction && r.input == 1) return r;
  throw Error("no check of the divisor's gradient");
}

TEST(LargeBroadcast, AGradientSumMissingItsLastWorkGroupFailsTheLargeCaseAndPassesTheSmallTier) {
  const Case& large = case_named("div(large,shape=64x65536|64x1,dtype=f32)");
  const SampledReference reference = prepare_sampled_reference(large, large_run());
  for (const CheckResult& r : checks(large, false, &reference))
    EXPECT_EQ(r.verdict, Verdict::pass) << check_label(r) << ": " << r.reason;
  const std::vector<CheckResult> wrong = checks(large, true, &reference);
  for (Direction d : {Direction::backward, Direction::backward_complete}) {
    const CheckResult& r = divisor_gradient(wrong, d);
    EXPECT_EQ(r.verdict, Verdict::fail) << check_label(r);
    EXPECT_THAT(r.reason, HasSubstr("exceeds bound"));
    EXPECT_EQ(r.metrics.tensor_elements == 0 ? r.metrics.elements : r.metrics.tensor_elements, 64);
  }
  for (const CheckResult& r : wrong) {
    if (r.input == 1) continue;
    EXPECT_EQ(r.verdict, Verdict::pass) << check_label(r) << ": " << r.reason;
  }
  // The small tier's divisors are read by at most 64 elements each: the same kernel passes.
  for (const char* id : {"div(shape=64x128|128,dtype=f32)", "div(shape=16x1|1x33,dtype=f32)"})
    for (const CheckResult& r : checks(case_named(id), true))
      EXPECT_NE(r.verdict, Verdict::fail) << check_label(r) << ": " << r.reason;
}

}  // namespace
}  // namespace gp
