// bench's arithmetic probe (shaders/probe.comp): one invocation per element of the output.
#include "dispatch.hpp"

namespace gp::vk {

namespace {

struct ProbePush {
  std::uint32_t count, steps;
};

Spec spec_of(const ProbePush&) { return {}; }  // one pipeline: nothing to specialise

}  // namespace

void record_arithmetic_probe(Recorder& rec, DType dtype, VulkanBuffer& out, std::uint32_t steps) {
  const auto count = static_cast<std::uint32_t>(out.shape().numel());
  rec.dispatch_groups("probe", dtype, {{0, &out}}, ProbePush{count, steps}, (std::uint64_t{count} + 255) / 256);
}

}  // namespace gp::vk
