#include "harness/check/judgement.hpp"

#include "harness/check/checker.hpp"
#include "harness/check/poison.hpp"
#include "harness/check/text.hpp"

namespace gp {

void apply_comparison(CheckResult& r, const Comparison& cmp, const ref::RefTensor& expected, const OpCall& call) {
  r.metrics = cmp.metrics;
  r.verdict = cmp.verdict;
  r.reason = cmp.reason;
  if (r.verdict != Verdict::pass) return;
  const bool sparse = r.direction == Direction::backward && op_gradient(call.kind) == GradientKind::sparse;
  std::string why = mistrust_reason(expected, sparse);
  if (!why.empty() && has_empty_input(call)) {
    // Every output and gradient buffer was poisoned before its call, so a kernel that writes
    // nothing fails the zeros; an empty tensor still had its canaries checked.
    r.reason = expected.v.empty() ? "an empty tensor: no element to compare; the call ran and wrote nothing outside it"
                                  : "zeros, the sums over no element of a call with an empty input";
    return;
  }
  if (!why.empty()) {
    r.verdict = Verdict::mistrusted;
    r.reason = why;
  }
}

bool skip_numerics_of_empty_call(CheckResult& r, const OpCall& call) {
  if (!has_empty_input(call)) return false;
  r.verdict = Verdict::skip;
  r.reason_kind = ReasonKind::covered;
  r.reason =
      "a call with an empty input: its results are empty tensors and sums over no element, compared exactly; "
      "finite differences add nothing";
  r.tolerance = "not run";
  return true;
}

void require_repeatable(CheckResult& r, const HostTensor& first, const HostTensor& again) {
  const std::int64_t i = first_bitwise_difference(first, again);
  if (i < 0) return;
  std::string why = "gradient not overwritten: second backward differs at index " + std::to_string(i);
  if (i < first.numel() && i < again.numel())
    why += " (first " + format_g(first.get(i)) + ", second " + format_g(again.get(i)) + ")";
  r.reason = r.verdict == Verdict::fail ? why + "; " + r.reason : why;
  r.verdict = Verdict::fail;
}

void fail_on_device_reports(Backend& backend, CheckResult& first) {
  for (const auto& v : backend.take_canary_violations()) {
    first.verdict = Verdict::fail;
    first.reason = "out-of-bounds write: " + v;
  }
  for (const auto& m : backend.take_validation_messages()) {
    first.verdict = Verdict::fail;
    first.reason = "validation message: " + m;
  }
}

CheckResult device_error_result(const Case& c, const std::string& device_id, std::uint64_t seed,
                                const std::exception& e) {
  CheckResult r = blank_result(c, device_id, Direction::forward, -1, seed);
  r.verdict = Verdict::error;
  r.reason_kind = ReasonKind::device_error;
  r.reason = e.what();
  return r;
}

}  // namespace gp
