#include "harness/graph/model_subject.hpp"

#include "harness/graph/composite_checks.hpp"

namespace gp {

Support CompositeSubject::supports(Backend& backend) const { return supports_calls(backend, device_calls()); }

std::unique_ptr<PreparedSubject> CompositeSubject::prepare(const RunContext& run) const {
  return std::make_unique<PreparedComposite>(*this, reference(run.seed));
}

CheckResult CompositeSubject::blank(const std::string& device_id, std::uint64_t seed) const {
  return blank_composite_result(composite_, device_id, Direction::forward, "", seed);
}

std::vector<OpCall> ModelSubject::device_calls() const { return device_calls_of(composite_); }

CompositeReference ModelSubject::reference(std::uint64_t seed) const {
  return prepare_composite_reference(composite_, seed);
}

std::vector<CheckResult> ModelSubject::reference_checks(const CompositeReference& r, const RunContext& run) const {
  return check_composite_reference(composite_, r, run.seed);
}

std::vector<CheckResult> ModelSubject::device_checks(const CompositeReference& r, const DeviceContext& device,
                                                     const RunContext& run) const {
  return check_composite_on_backend(composite_, device.id, *device.backend, *device.queue, r, run.seed);
}

std::vector<HostTensor> ModelSubject::device_tensors(const CompositeReference& r, const DeviceContext& device) const {
  DeviceGraph d = run_graph_on_device(composite_, *device.backend, *device.queue, r.leaves);
  std::vector<HostTensor> out{std::move(d.output), std::move(d.loss)};
  for (auto& [name, g] : d.grads) out.push_back(std::move(g));
  return out;
}

}  // namespace gp
