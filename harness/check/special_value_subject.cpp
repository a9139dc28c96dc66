#include "harness/check/special_value_subject.hpp"

#include <cmath>
#include <limits>

#include "cases/special_values.hpp"
#include "core/error.hpp"
#include "harness/check/device_calls.hpp"
#include "harness/check/judgement.hpp"
#include "harness/check/poison.hpp"
#include "harness/check/special_values.hpp"
#include "harness/check/text.hpp"

namespace gp {

namespace {

std::string got_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (v == 0) return std::signbit(v) ? "-0" : "+0";
  return format_g(v, 9);
}

// What is wrong with element i, empty when it is one of the set's values.
std::string wrong_element(const Case& c, const HostTensor& got, std::int64_t i, const SpecialSet& set) {
  const bool poison = is_poison(got, i);
  if (!poison && set.accepts(got.get(i))) return {};
  return "at " + special_input_text(c, i, got.shape()) + " " + (poison ? "never written" : got_text(got.get(i))) +
         " where " + set.describe() + " is expected";
}

// The wrong elements a reason names; the rest are counted (a layout op moves thousands).
constexpr std::int64_t kNamed = 6;

// `r`, a blank result of the check of case `c`, judged.
CheckResult judge(const Case& c, CheckResult r, const HostTensor& got, const std::vector<SpecialSet>& sets) {
  r.tolerance = "IEEE special values: exact sets (docs/special-values.md)";
  r.metrics.elements = got.numel();
  for (std::int64_t i = 0; i < got.numel(); ++i) {
    const std::string wrong = wrong_element(c, got, i, sets.at(static_cast<std::size_t>(i)));
    if (wrong.empty()) continue;
    if (r.metrics.nonfinite == 0) {
      r.metrics.worst.index = i;
      r.metrics.worst.got = got.get(i);
    }
    if (r.metrics.nonfinite++ < kNamed) r.reason += (r.reason.empty() ? "" : "; ") + wrong;
  }
  if (r.metrics.nonfinite > kNamed)
    r.reason += "; and " + std::to_string(r.metrics.nonfinite - kNamed) + " more element(s)";
  r.verdict = r.metrics.nonfinite == 0 ? Verdict::pass : Verdict::fail;
  if (r.verdict == Verdict::fail) r.metrics.margin = std::numeric_limits<double>::infinity();
  return r;
}

class PreparedSpecialValues final : public PreparedSubject {
 public:
  explicit PreparedSpecialValues(const Case& c) : case_(c) {}
  std::vector<CheckResult> check_reference(const RunContext&) const override { return {}; }
  std::vector<CheckResult> check_on(const DeviceContext& device, const RunContext& run) const override {
    return check_special_values(case_, device, run.seed);
  }
  std::vector<HostTensor> run_on(const DeviceContext& device) const override {
    DeviceCalls calls(case_, *device.backend, *device.queue);
    return calls.forward_backward(case_.given->inputs, *case_.given->cotangent).computed();
  }

 private:
  const Case& case_;
};

}  // namespace

std::unique_ptr<PreparedSubject> SpecialValueSubject::prepare(const RunContext&) const {
  return std::make_unique<PreparedSpecialValues>(case_);
}

std::vector<CheckResult> check_special_values(const Case& c, const DeviceContext& device, std::uint64_t seed) {
  const SpecialExpectations expected = special_expectations(c);
  try {
    DeviceCalls calls(c, *device.backend, *device.queue);
    DeviceCalls::Result got = calls.forward_backward(c.given->inputs, *c.given->cotangent);
    std::vector<CheckResult> out;
    out.push_back(judge(c, blank_result(c, device.id, Direction::forward, -1, seed), got.output, expected.forward));
    std::size_t next = 0;  // the expected gradients are the differentiable inputs', in order
    for (std::size_t k = 0; k < got.grads.size() && next < expected.gradients.size(); ++k) {
      const int input = static_cast<int>(k);
      if (!input_is_differentiable(c.decl.op, input)) continue;
      CheckResult back = judge(c, blank_result(c, device.id, Direction::backward, input, seed), got.grads.at(k),
                               expected.gradients[next++]);
      require_repeatable(back, got.grads.at(k), got.grads_again.at(k));
      out.push_back(std::move(back));
    }
    fail_on_device_reports(*device.backend, out.front());
    return out;
  } catch (const DeviceLost&) {
    throw;
  } catch (const std::exception& e) {
    return {device_error_result(c, device.id, seed, e)};
  }
}

}  // namespace gp
