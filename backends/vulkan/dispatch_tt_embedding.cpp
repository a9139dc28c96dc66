// tt_embedding (shaders/tt_embedding.comp): one dispatch for the output, one per wanted core
// gradient. The shader reads the ids and cores in place and writes only the output or the
// gradient: the call allocates no scratch on the device.
#include "core/error.hpp"
#include "dispatch.hpp"

namespace gp::vk {

namespace {

constexpr std::uint32_t kTtLocal = 64;  // LOCAL_X of tt_embedding.comp

struct TtPush {
  std::uint32_t mode, count;  // mode 0: the output; k = 1, 2, 3: core k's gradient
  std::uint32_t v1, v2, v3, batch;
  std::uint32_t d1, d2, d3, r1, r2;
};

Spec spec_of(const TtPush& p) { return {0, p.mode}; }

TtPush tt_push(const OpCall& call, std::uint32_t mode, std::int64_t count) {
  const TtGeometry g = tt_geometry(call);
  auto u = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
  return {mode, u(count), u(g.v1), u(g.v2), u(g.v3), u(g.batch), u(g.d1), u(g.d2), u(g.d3), u(g.r1), u(g.r2)};
}

std::uint64_t groups_for(std::uint32_t count) { return (std::uint64_t{count} + kTtLocal - 1) / kTtLocal; }

}  // namespace

void forward_tt_embedding(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out) {
  const TtPush p = tt_push(call, 0, call.output_shape.numel());
  rec.dispatch_groups("tt_embedding", call.dtype, {{0, in[0]}, {1, in[1]}, {2, in[2]}, {3, in[3]}, {5, &out}}, p,
                      groups_for(p.count));
}

void backward_tt_embedding(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& dout, Grads grads) {
  for (std::uint32_t core = 1; core <= 3; ++core) {
    const VulkanBuffer* dcore = grads[core];
    if (!dcore) continue;
    const TtPush p = tt_push(call, core, call.input_shapes[core].numel());
    rec.dispatch_groups("tt_embedding", call.dtype,
                        {{0, in[0]}, {1, in[1]}, {2, in[2]}, {3, in[3]}, {4, &dout}, {5, dcore}}, p,
                        groups_for(p.count));
  }
}

}  // namespace gp::vk
