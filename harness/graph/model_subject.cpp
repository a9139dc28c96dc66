#include "harness/graph/model_subject.hpp"

#include "harness/graph/composite_checks.hpp"

namespace gp {

namespace {

class PreparedModel final : public PreparedComposite {
 public:
  using PreparedComposite::PreparedComposite;
  std::vector<CheckResult> check_reference(const RunContext& run) const override {
    return check_composite_reference(composite_, ref_, run.seed);
  }
  std::vector<CheckResult> check_on(const DeviceContext& device, const RunContext& run) const override {
    return check_composite_on_backend(composite_, device.id, *device.backend, *device.queue, ref_, run.seed);
  }
  std::vector<HostTensor> run_on(const DeviceContext& device) const override {
    DeviceGraph d = run_graph_on_device(composite_, *device.backend, *device.queue, ref_.leaves);
    std::vector<HostTensor> out{std::move(d.output), std::move(d.loss)};
    for (auto& [name, g] : d.grads) out.push_back(std::move(g));
    return out;
  }
};

}  // namespace

CheckResult CompositeSubject::blank(const std::string& device_id, std::uint64_t seed) const {
  return blank_composite_result(composite_, device_id, Direction::forward, "", seed);
}

Support ModelSubject::supports(Backend& backend) const { return supports_calls(backend, device_calls_of(composite_)); }

std::unique_ptr<PreparedSubject> ModelSubject::prepare(const RunContext& run) const {
  return std::make_unique<PreparedModel>(composite_, prepare_composite_reference(composite_, run.seed));
}

}  // namespace gp
