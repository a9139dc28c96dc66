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

CheckResult judge(const Case& c, const std::string& device_id, std::uint64_t seed, Direction d, int input,
                  const HostTensor& got, const std::vector<SpecialSet>& sets) {
  CheckResult r = blank_result(c, device_id, d, input, seed);
  r.tolerance = "IEEE special values: exact sets (docs/special-values.md)";
  r.metrics.elements = got.numel();
  std::string wrong;
  int failures = 0;
  for (std::int64_t i = 0; i < got.numel(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double g = got.get(i);
    const bool ok = !is_poison(got, i) && sets.at(k).accepts(g);
    if (ok) continue;
    if (failures++ == 0) {
      r.metrics.worst.index = i;
      r.metrics.worst.got = g;
    }
    if (!wrong.empty()) wrong += "; ";
    wrong += std::string("at ") + kSpecialInputNames.at(k) + " " + (is_poison(got, i) ? "never written" : got_text(g)) +
             " where " + sets.at(k).describe() + " is expected";
  }
  if (failures == 0) {
    r.verdict = Verdict::pass;
    return r;
  }
  r.verdict = Verdict::fail;
  r.metrics.nonfinite = failures;
  r.metrics.margin = std::numeric_limits<double>::infinity();
  r.reason = wrong;
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
    out.push_back(judge(c, device.id, seed, Direction::forward, -1, got.output, expected.forward));
    CheckResult back = judge(c, device.id, seed, Direction::backward, 0, got.grads.at(0), expected.backward);
    require_repeatable(back, got.grads.at(0), got.grads_again.at(0));
    out.push_back(std::move(back));
    fail_on_device_reports(*device.backend, out.front());
    return out;
  } catch (const DeviceLost&) {
    throw;
  } catch (const std::exception& e) {
    return {device_error_result(c, device.id, seed, e)};
  }
}

}  // namespace gp
