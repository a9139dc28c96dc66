// A call the catalog refuses (cases/invalid_calls.hpp) as a Subject: on every device one check,
// direction `refusal`, that the backend's supports() refuses it with a reason. Nothing is run,
// nothing is given to the reference; a plugin that crashes on the call is an ERROR naming it
// (its cases run in a child process, cli/isolated_run.hpp).
#pragma once

#include "cases/invalid_calls.hpp"
#include "harness/check/primitive_subject.hpp"

namespace gp {

class InvalidCallSubject final : public CaseSubject {
 public:
  explicit InvalidCallSubject(const InvalidCall& call) : CaseSubject(call.c), call_(call) {}
  // Every device is asked: refusing the call is what its check judges.
  Support supports(Backend&) const override { return Support::yes(); }
  std::unique_ptr<PreparedSubject> prepare(const RunContext& run) const override;
  CheckResult blank(const std::string& device_id, std::uint64_t seed) const override;
  const InvalidCall& call() const { return call_; }

 private:
  const InvalidCall& call_;  // an entry of invalid_calls(), which lives as long as the process
};

// The refusal check of `call` on one device: PASS when supports() refuses it (the reason quoted),
// FAIL when it accepts it, ERROR when supports() throws.
CheckResult check_refusal(const Case& call, const std::string& problem, const DeviceContext& device,
                          std::uint64_t seed);

}  // namespace gp
