#include "harness/large/sampled_subject.hpp"

#include <chrono>

#include "core/error.hpp"
#include "core/op_work.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/device_calls.hpp"
#include "harness/check/judgement.hpp"
#include "harness/check/memory_fit.hpp"
#include "harness/check/tolerance.hpp"
#include "harness/large/cached_complete_check.hpp"
#include "harness/large/complete_check.hpp"
#include "harness/large/complete_lines.hpp"
#include "harness/large/sample.hpp"
#include "harness/large/sampled_reference.hpp"

namespace gp {

namespace {

class PreparedSampled final : public PreparedSubject {
 public:
  PreparedSampled(const Case& c, SampledReference r) : case_(c), reference_(std::move(r)) {}
  // The reference's finite-difference checks at scale are not built yet (docs/scale.md): the
  // large tier's reference is the small tier's, checked there, evaluated on slices.
  std::vector<CheckResult> check_reference(const RunContext&) const override { return {}; }
  const SampledReference* sampled_data() const override { return &reference_; }
  std::vector<CheckResult> check_on(const DeviceContext& device, const RunContext& run) const override {
    return check_sampled_on_backend(case_, device, reference_, run);
  }
  std::vector<HostTensor> run_on(const DeviceContext& device) const override {
    return DeviceCalls(case_, *device.backend, *device.queue)
        .forward_backward(reference_.inputs, reference_.cotangent)
        .computed();
  }

 private:
  const Case& case_;
  SampledReference reference_;
};

}  // namespace

SampledSubject::SampledSubject(const Case& c) : CaseSubject(c) {
  if (!ref::has_element_slices(c.call))
    throw Error(c.id + ": the large tier needs element slices of " + std::string(gp::op_name(c.decl.op)) +
                " (reference/element_slice.hpp)");
  if (op_is_straight_through(c.decl.op))
    throw Error(c.id + ": the large tier does not judge declared surrogate gradients");
}

std::unique_ptr<PreparedSubject> SampledSubject::prepare(const RunContext& run) const {
  return std::make_unique<PreparedSampled>(case_, prepare_sampled_reference(case_, run));
}

std::vector<CheckResult> check_sampled_on_backend(const Case& c, const DeviceContext& device,
                                                  const SampledReference& reference, const RunContext& run) {
  Backend& backend = *device.backend;
  const bool ftz = backend.info().may_flush_subnormals;
  std::vector<CheckResult> out;
  try {
    const MathProfile* math = backend.info().math;
    if (!math) throw Error("backend " + device.id + " reports no math profile (DeviceInfo::math)");
    const Tolerance tol = tolerance_for(c, *math, ftz);
    const std::vector<ref::RefTensor>& bounded = reference.bounded(math, ftz);
    const auto t0 = std::chrono::steady_clock::now();
    DeviceCalls::CallTimes times;
    DeviceCalls::Result results =
        DeviceCalls(c, backend, *device.queue).forward_backward(reference.inputs, reference.cotangent, &times);
    const double run_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const CallWork forward = forward_work(c.call), backward = backward_work(c.call);
    const CaseMemory memory{device_bytes(c), large_case_host_bytes(c, backend.info()) +
                                                 complete_check_host_bytes(c, run.sample) +
                                                 streamed_check_host_bytes(c, run.sample)};
    for (std::size_t t = 0; t < reference.tensors.size(); ++t) {
      const SampledTensor& s = reference.tensors[t];
      const bool output = s.tensor == ref::kOutputTensor;
      const HostTensor& full = output ? results.output : results.grads.at(static_cast<std::size_t>(s.tensor));
      CheckResult r = blank_result(c, device.id, output ? Direction::forward : Direction::backward, s.tensor, run.seed);
      const Comparison cmp = compare_to_reference(
          bounded[t], gather_elements(full, s.index, Shape{static_cast<std::int64_t>(s.index.size())}), tol, c.dtype,
          {}, {&s.index, s.numel});
      apply_comparison(r, cmp, bounded[t], c.call);
      r.tolerance = tol.describe();
      r.memory = memory;
      if (op_family(c.call.kind) != OpFamily::linalg &&
          line_check_kind(c.call, s.tensor, s.numel, run.sample) == LineCheck::none)
        r.tolerance +=
            "; no complete check: " + std::to_string(s.numel) + " elements, above --complete-elements " +
            std::to_string(run.sample.complete_elements) +
            (streams_complete_check(c.call, s.tensor)
                 ? " and --streamed-complete-elements " + std::to_string(run.sample.streamed_complete_elements)
                 : std::string());
      r.time_ms = run_ms;
      r.speed = output ? CallSpeed{times.forward_seconds, times.device_timer, forward.bytes, forward.flops}
                       : CallSpeed{times.backward_seconds, times.device_timer, backward.bytes, backward.flops};
      if (!output) require_repeatable(r, full, results.grads_again.at(static_cast<std::size_t>(s.tensor)));
      const CallSpeed speed = r.speed;
      out.push_back(std::move(r));
      const CompleteCheckInput whole{c, device.id, reference, s, full, tol};
      std::optional<CheckResult> complete = cached_complete_check({whole, math, ftz, run.sample}, run.seed);
      if (complete) {
        complete->time_ms = run_ms;
        complete->speed = speed;
        complete->memory = memory;
        out.push_back(std::move(*complete));
      }
    }
    fail_on_device_reports(backend, out.front());
  } catch (const std::exception& e) {
    out.clear();
    out.push_back(device_error_result(c, device.id, run.seed, e));
  }
  return out;
}

}  // namespace gp
