#include "vk_recorder.hpp"

#include <array>
#include <cstring>

#include "core/error.hpp"
#include "vulkan_backend.hpp"  // vk_testing: fault-injection hooks

namespace gp::vk {

// gx * gy >= groups with gx <= 65535, the least gy, and gx as small as that allows: the excess
// groups exit at once, but on a GPU each still has to be launched (64Ki groups as 65535 x 2
// launched 65534 empty ones).
std::pair<std::uint32_t, std::uint32_t> Recorder::grid(std::uint64_t groups) {
  constexpr std::uint64_t kMaxX = 65535;  // the minimum maxComputeWorkGroupCount[0]
  if (groups == 0) groups = 1;
  std::uint64_t gy = (groups + kMaxX - 1) / kMaxX;
  if (gy > kMaxX) throw Error("vulkan backend: " + std::to_string(groups) + " work groups exceed the grid");
  std::uint64_t gx = (groups + gy - 1) / gy;
  return {static_cast<std::uint32_t>(gx), static_cast<std::uint32_t>(gy)};
}

void Recorder::barrier() {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT;
  VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(cmd_, stages, stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

void Recorder::writes(const VulkanBuffer& b) {
  written_.push_back(&b);
  if (!b.mapped() && !b.canaries_armed()) {
    barrier();
    // the whole buffer: fills need 4-byte multiples, and the data is about to be overwritten
    vkCmdFillBuffer(cmd_, b.handle(), 0, VK_WHOLE_SIZE, kCanaryWord);
    const_cast<VulkanBuffer&>(b).set_canaries_armed();
  }
}

VulkanBuffer& Recorder::scratch(DType dtype, std::int64_t count) {
  scratch_.push_back(std::make_unique<VulkanBuffer>(shared_.ctx, dtype, Shape{std::max<std::int64_t>(count, 1)},
                                                    Placement::device_preferred, case_id_));
  return *scratch_.back();
}

void Recorder::record(std::string_view family, DType dtype, Spec spec, std::span<const Bind> binds, PushBlock push,
                      WorkGroups groups) {
  record_pipeline(shared_.pipelines->get(family, dtype, spec, case_id_), std::string(family), binds, push, groups);
}

void Recorder::dispatch_user(const ShaderFile& shader, std::span<const Bind> binds, std::uint64_t groups) {
  const std::string name = kernel_files::kernel_name(shader.name);
  auto [gx, gy] = grid(groups);
  record_pipeline(shared_.pipelines->get_user(name, shader.spirv, case_id_), name, binds, {nullptr, 0}, {gx, gy, 1});
}

void Recorder::update(const VulkanBuffer& b, const void* data, std::size_t bytes) {
  vkCmdUpdateBuffer(cmd_, b.handle(), b.data_offset(), bytes, data);
}

void Recorder::record_pipeline(VkPipeline pipeline, const std::string& what, std::span<const Bind> binds,
                               PushBlock push, WorkGroups groups) {
  Context& c = *shared_.ctx;

  VkDescriptorSetLayout layout = shared_.pipelines->set_layout();
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = pool_;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  c.check(vkAllocateDescriptorSets(c.device(), &ai, &set), "vkAllocateDescriptorSets", case_id_);

  // Every binding gets a buffer: unused ones point at the queue's dummy buffer.
  std::array<VkDescriptorBufferInfo, kMaxBindings> infos{};
  for (auto& info : infos) info = {dummy_.handle(), dummy_.data_offset(), dummy_.data_bytes()};
  for (const Bind& b : binds) {
    if (b.binding >= kMaxBindings || !b.buffer) throw Error("vulkan backend: bad binding in " + what);
    infos[b.binding] = {b.buffer->handle(), b.buffer->data_offset(), b.buffer->data_bytes()};
  }
  std::array<VkWriteDescriptorSet, kMaxBindings> writes{};
  for (std::uint32_t i = 0; i < kMaxBindings; ++i) {
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(c.device(), kMaxBindings, writes.data(), 0, nullptr);

  std::array<std::uint8_t, kPushConstantBytes> pc{};
  if (push.bytes > 0) std::memcpy(pc.data(), push.data, push.bytes);
  // Orders this dispatch after every earlier command of this and earlier submits. The test-only
  // fault keeps the first barrier (against the upload) and drops those between dispatches.
  if (dispatches_++ == 0 || !vk_testing::skip_dependent_barriers.load(std::memory_order_relaxed)) barrier();
  vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, shared_.pipelines->layout(), 0, 1, &set, 0, nullptr);
  vkCmdPushConstants(cmd_, shared_.pipelines->layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes, pc.data());
  vkCmdDispatch(cmd_, groups.x, groups.y, groups.z);
}

}  // namespace gp::vk
