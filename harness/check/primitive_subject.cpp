#include "harness/check/primitive_subject.hpp"

#include "core/memory_size.hpp"
#include "harness/check/device_calls.hpp"
#include "harness/check/memory_fit.hpp"

namespace gp {

namespace {

class PreparedPrimitive final : public PreparedSubject {
 public:
  PreparedPrimitive(const Case& c, ReferenceData data) : case_(c), data_(std::move(data)) {}
  std::vector<CheckResult> check_reference(const RunContext& run) const override {
    return check_reference_numerics(case_, data_, run.seed, run.numerical);
  }
  std::vector<CheckResult> check_on(const DeviceContext& device, const RunContext& run) const override {
    return check_on_backend(case_, device, data_, run);
  }
  std::vector<HostTensor> run_on(const DeviceContext& device) const override {
    return DeviceCalls(case_, *device.backend, *device.queue)
        .forward_backward(data_.inputs, data_.cotangent)
        .computed();
  }
  const ReferenceData* primitive_data() const override { return &data_; }

 private:
  const Case& case_;
  ReferenceData data_;
};

}  // namespace

Support CaseSubject::supports(Backend& backend) const {
  if (Support fit = fits_in_memory(case_, backend.info(), host_memory_bytes()); !fit.ok) return fit;
  return backend.supports(case_.call);
}

std::string_view CaseSubject::op_name() const { return gp::op_name(case_.decl.op); }

std::unique_ptr<PreparedSubject> PrimitiveSubject::prepare(const RunContext& run) const {
  return std::make_unique<PreparedPrimitive>(case_, prepare_reference(case_, run.seed, run.reference_cache));
}

CheckResult CaseSubject::blank(const std::string& device_id, std::uint64_t seed) const {
  return blank_result(case_, device_id, Direction::forward, -1, seed);
}

}  // namespace gp
