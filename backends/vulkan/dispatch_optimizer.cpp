// Optimizer steps (optimizer.comp): one dispatch over the flattened parameter. Forward only.
#include "core/error.hpp"
#include "dispatch.hpp"

namespace gp::vk {

namespace {

struct OptimizerPush {
  std::uint32_t n, op, flags, pad;
  AttrBits bits[8];
  float f[8];
};
static_assert(sizeof(OptimizerPush) == 112);

Spec spec_of(const OptimizerPush& p) { return {p.op, 0}; }

// The scalars in the order optimizer.comp reads them.
OptimizerPush optimizer_push(const OpCall& c) {
  const OptimizerScalars s = optimizer_scalars(c);
  OptimizerPush p{};
  p.n = static_cast<std::uint32_t>(c.input_shapes[0].numel());
  p.op = static_cast<std::uint32_t>(c.kind);
  std::vector<double> v;
  if (c.kind == OpKind::sgd_step) {
    p.flags =
        (s.weight_decay != 0 ? 1u : 0u) | (s.momentum != 0 ? 2u : 0u) | (s.nesterov ? 4u : 0u) | (s.first ? 8u : 0u);
    v = {s.lr, s.weight_decay, s.momentum, s.one_minus_dampening};
  } else {
    v = {s.lr, s.decay, s.beta1, s.one_minus_beta1, s.beta2, s.one_minus_beta2, s.eps, s.t};
  }
  for (std::size_t k = 0; k < v.size(); ++k) {
    p.bits[k] = double_bits(v[k]);
    p.f[k] = static_cast<float>(v[k]);
  }
  return p;
}

}  // namespace

void forward_optimizer(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out) {
  const OptimizerPush p = optimizer_push(call);
  const VulkanBuffer* v = call.kind == OpKind::adamw_step ? in[3] : in[2];  // binding 3 unused by sgd
  rec.dispatch_groups("optimizer", call.dtype, {{0, in[0]}, {1, in[1]}, {2, in[2]}, {3, v}, {4, &out}}, p,
                      (std::uint64_t{p.n} + 255) / 256);
}

void backward_optimizer(const OpCall& call, Grads grads) {
  for (VulkanBuffer* g : grads)
    if (g)
      throw Error("vulkan backend: " + std::string(op_name(call.kind)) + " is forward only [" + call.case_id + "]");
}

}  // namespace gp::vk
