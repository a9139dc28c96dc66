#include "harness/training/training_subject.hpp"

#include "harness/graph/composite_checks.hpp"
#include "harness/training/training.hpp"
#include "harness/training/training_loop.hpp"

namespace gp {

namespace {

class PreparedTraining final : public PreparedComposite {
 public:
  using PreparedComposite::PreparedComposite;
  std::vector<CheckResult> check_reference(const RunContext& run) const override {
    return check_training_reference(composite_, ref_, run.seed);
  }
  std::vector<CheckResult> check_on(const DeviceContext& device, const RunContext& run) const override {
    return check_training_on_backend(composite_, device.id, *device.backend, *device.queue, ref_, run.seed);
  }
  std::vector<HostTensor> run_on(const DeviceContext& device) const override {
    DeviceTrajectory t = train_on_device(composite_, *device.backend, *device.queue, ref_.leaves);
    HostTensor loss(DType::f64, Shape{static_cast<std::int64_t>(t.loss.size())});
    for (std::size_t k = 0; k < t.loss.size(); ++k) loss.set(static_cast<std::int64_t>(k), t.loss[k]);
    std::vector<HostTensor> out{std::move(loss)};
    for (auto& step : t.slots)
      for (auto& slot : step) out.push_back(std::move(slot));
    return out;
  }
};

}  // namespace

Support TrainingSubject::supports(Backend& backend) const {
  return supports_calls(backend, training_device_calls_of(composite_));
}

std::unique_ptr<PreparedSubject> TrainingSubject::prepare(const RunContext& run) const {
  return std::make_unique<PreparedTraining>(composite_, prepare_training_reference(composite_, run.seed));
}

}  // namespace gp
