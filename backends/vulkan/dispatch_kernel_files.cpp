// A user's shader directory (vulkan-spirv): one dispatch per call of the op's shader, its
// buffers bound in the convention's order and the parameter block at the binding after them,
// written into a scratch buffer as a command of the same recording (backends/kernel_files/).
#include "backends/kernel_files/params.hpp"
#include "core/error.hpp"
#include "dispatch.hpp"

namespace gp::vk {

namespace kf = kernel_files;

namespace {

void record_file(Recorder& rec, const OpCall& call, kf::Pass pass, const std::vector<const VulkanBuffer*>& buffers) {
  const std::string name = kf::kernel_name({call.kind, pass, call.dtype});
  const ShaderFile* shader = rec.kernel_files()->find(name);
  const kf::Params p = kf::make_params(call, pass);
  if (!shader || !p.block)  // supports() said no
    throw Error("vulkan-spirv: cannot run " + name + " [case " + call.case_id + "]");
  if (p.block->count[0] == 0) return;
  VulkanBuffer& block = rec.scratch(DType::f32, sizeof(kf::ParamBlock) / sizeof(float));
  rec.update(block, &*p.block, sizeof(kf::ParamBlock));
  std::vector<Bind> binds;
  for (std::size_t i = 0; i < buffers.size(); ++i) binds.push_back({static_cast<std::uint32_t>(i), buffers[i]});
  binds.push_back({static_cast<std::uint32_t>(buffers.size()), &block});
  rec.dispatch_user(*shader, binds, (std::uint64_t{p.block->count[0]} + shader->local_size - 1) / shader->local_size);
}

}  // namespace

Support supports_kernel_files(const ShaderDir& files, const OpCall& call) {
  const auto why = kf::refusal(
      call, [&](const std::string& name) { return files.find(name) != nullptr; }, files.dir);
  return why ? Support::no(*why) : Support::yes();
}

void forward_kernel_files(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out) {
  std::vector<const VulkanBuffer*> buffers(in.begin(), in.end());
  buffers.push_back(&out);
  record_file(rec, call, kf::Pass::forward, buffers);
}

void backward_kernel_files(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& out,
                           const VulkanBuffer& dout, Grads grads) {
  std::vector<const VulkanBuffer*> buffers(in.begin(), in.end());
  buffers.push_back(&out);
  buffers.push_back(&dout);
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!input_is_differentiable(call.kind, static_cast<int>(i))) continue;
    // A gradient the caller does not want still has its binding.
    buffers.push_back(grads[i] ? grads[i] : &rec.scratch(in[i]->dtype(), in[i]->shape().numel()));
  }
  record_file(rec, call, kf::Pass::backward, buffers);
}

}  // namespace gp::vk
