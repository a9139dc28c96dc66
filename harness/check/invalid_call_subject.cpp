#include "harness/check/invalid_call_subject.hpp"

#include "core/error.hpp"

namespace gp {

namespace {

class PreparedInvalidCall final : public PreparedSubject {
 public:
  PreparedInvalidCall(const Case& c, const std::string& problem) : case_(c), problem_(problem) {}
  std::vector<CheckResult> check_reference(const RunContext&) const override { return {}; }
  std::vector<CheckResult> check_on(const DeviceContext& device, const RunContext& run) const override {
    return {check_refusal(case_, problem_, device, run.seed)};
  }
  // Nothing runs on a device: the stress audit has nothing to compare.
  std::vector<HostTensor> run_on(const DeviceContext&) const override { return {}; }

 private:
  const Case& case_;
  const std::string& problem_;
};

}  // namespace

std::unique_ptr<PreparedSubject> InvalidCallSubject::prepare(const RunContext&) const {
  return std::make_unique<PreparedInvalidCall>(case_, call_.problem);
}

CheckResult InvalidCallSubject::blank(const std::string& device_id, std::uint64_t seed) const {
  return blank_result(case_, device_id, Direction::refusal, -1, seed);
}

CheckResult check_refusal(const Case& call, const std::string& problem, const DeviceContext& device,
                          std::uint64_t seed) {
  CheckResult r = blank_result(call, device.id, Direction::refusal, -1, seed);
  r.tolerance = "refused in supports(), never run";
  Support s;
  try {
    s = device.backend->supports(call.call);
  } catch (const DeviceLost&) {
    throw;
  } catch (const std::exception& e) {
    r.verdict = Verdict::error;
    r.reason_kind = ReasonKind::device_error;
    r.reason = std::string("supports() failed on a call the catalog refuses: ") + e.what();
    return r;
  }
  if (s.ok) {
    r.verdict = Verdict::fail;
    r.reason = "supports() accepted a call the catalog refuses (" + problem + "); it must refuse it, not run it";
  } else {
    r.verdict = Verdict::pass;
    r.reason = "refused: " + s.reason;
  }
  return r;
}

}  // namespace gp
