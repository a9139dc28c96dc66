// gru_cell (shaders/gru_cell.comp): one dispatch for the output; for the gradients one that makes
// every unit's gate gradients into a compute-type scratch, then one per wanted gradient.
#include "dispatch.hpp"

namespace gp::vk {

namespace {

constexpr std::uint32_t kGruLocal = 64;  // LOCAL_X of gru_cell.comp

struct GruPush {
  std::uint32_t mode, count;  // mode GRU_MODE_FORWARD: the output; 0..5: that input's gradient
  std::uint32_t batch, input, hidden;
};

Spec spec_of(const GruPush& p) { return {0, p.mode}; }

// One pass over `count` elements: the forward into `out` (no dout, no gates); the gate gradients
// into `gates` (no out); a gradient into `out` from the gates.
void gru_pass(Recorder& rec, const OpCall& call, std::uint32_t mode, std::int64_t count, Inputs in,
              const VulkanBuffer* dout, const VulkanBuffer* gates, const VulkanBuffer* out) {
  const GruGeometry g = gru_geometry(call);
  auto u = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
  const GruPush p{mode, u(count), u(g.batch), u(g.input), u(g.hidden)};
  const std::uint64_t groups = (std::uint64_t{p.count} + kGruLocal - 1) / kGruLocal;
  if (!dout)
    rec.dispatch_groups("gru_cell", call.dtype,
                        {{0, in[0]}, {1, in[1]}, {2, in[2]}, {3, in[3]}, {4, in[4]}, {5, in[5]}, {7, out}}, p, groups);
  else if (!out)
    rec.dispatch_groups("gru_cell", call.dtype,
                        {{0, in[0]}, {1, in[1]}, {2, in[2]}, {3, in[3]}, {4, in[4]}, {5, in[5]}, {6, dout}, {8, gates}},
                        p, groups);
  else
    rec.dispatch_groups("gru_cell", call.dtype,
                        {{0, in[0]}, {1, in[1]}, {2, in[2]}, {3, in[3]}, {6, dout}, {7, out}, {8, gates}}, p, groups);
}

}  // namespace

void forward_gru_cell(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out) {
  gru_pass(rec, call, GRU_MODE_FORWARD, call.output_shape.numel(), in, nullptr, nullptr, &out);
}

void backward_gru_cell(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& dout, Grads grads) {
  const GruGeometry g = gru_geometry(call);
  const VulkanBuffer& gates = rec.scratch(compute_dtype(call.dtype), g.batch * g.hidden * GRU_GATE_VALUES);
  gru_pass(rec, call, GRU_MODE_GATES, g.batch * g.hidden, in, &dout, &gates, nullptr);
  for (std::size_t k = 0; k < grads.size(); ++k)
    if (grads[k])
      gru_pass(rec, call, static_cast<std::uint32_t>(k), call.input_shapes[k].numel(), in, &dout, &gates, grads[k]);
}

}  // namespace gp::vk
