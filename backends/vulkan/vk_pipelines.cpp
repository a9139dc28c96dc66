#include "vk_pipelines.hpp"

#include <array>

#include "core/error.hpp"
#include "vk_spirv.hpp"

namespace gp::vk {

Pipelines::Pipelines(Context& ctx, PipelineCache& cache) : ctx_(ctx), cache_(cache) {
  std::array<VkDescriptorSetLayoutBinding, kMaxBindings> bindings{};
  for (std::uint32_t i = 0; i < kMaxBindings; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo dl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dl.bindingCount = kMaxBindings;
  dl.pBindings = bindings.data();
  ctx.check(vkCreateDescriptorSetLayout(ctx.device(), &dl, nullptr, &set_layout_), "vkCreateDescriptorSetLayout", "");

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &set_layout_;
  pl.pushConstantRangeCount = 1;
  pl.pPushConstantRanges = &range;
  VkResult r = vkCreatePipelineLayout(ctx.device(), &pl, nullptr, &layout_);
  if (r != VK_SUCCESS) {
    vkDestroyDescriptorSetLayout(ctx.device(), set_layout_, nullptr);
    ctx.check(r, "vkCreatePipelineLayout", "");
  }
}

Pipelines::~Pipelines() {
  for (auto& [name, p] : pipelines_) vkDestroyPipeline(ctx_.device(), p, nullptr);
  vkDestroyPipelineLayout(ctx_.device(), layout_, nullptr);
  vkDestroyDescriptorSetLayout(ctx_.device(), set_layout_, nullptr);
}

VkPipeline Pipelines::create_locked(const std::string& name, const std::string& case_id) {
  const SpirvBlob* blob = nullptr;
  for (const auto& b : embedded_spirv())
    if (b.name == name) blob = &b;
  if (!blob) throw Error("vulkan backend: no embedded shader variant '" + name + "'");

  VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = blob->count * sizeof(std::uint32_t);
  mi.pCode = blob->words;
  VkShaderModule module = VK_NULL_HANDLE;
  ctx_.check(vkCreateShaderModule(ctx_.device(), &mi, nullptr, &module), "vkCreateShaderModule", case_id, name);

  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.layout = layout_;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkResult r = vkCreateComputePipelines(ctx_.device(), cache_.handle(), 1, &ci, nullptr, &pipeline);
  vkDestroyShaderModule(ctx_.device(), module, nullptr);  // the pipeline keeps what it needs
  ctx_.check(r, "vkCreateComputePipelines", case_id, name);
  pipelines_.emplace(name, pipeline);
  return pipeline;
}

VkPipeline Pipelines::get(std::string_view family, DType dtype, const std::string& case_id) {
  std::string name = std::string(family) + "_" + std::string(dtype_name(dtype));
  std::lock_guard lock(mutex_);
  auto it = pipelines_.find(name);
  if (it != pipelines_.end()) return it->second;
  return create_locked(name, case_id);
}

void Pipelines::create_all(bool float64, bool storage16) {
  for (const auto& b : embedded_spirv()) {
    std::string name(b.name);
    bool is64 = name.ends_with("_f64"), is16 = name.ends_with("_f16") || name.ends_with("_bf16");
    if ((is64 && !float64) || (is16 && !storage16)) continue;
    std::lock_guard lock(mutex_);
    if (!pipelines_.count(name)) create_locked(name, "");
  }
}

std::size_t Pipelines::created() const {
  std::lock_guard lock(mutex_);
  return pipelines_.size();
}

}  // namespace gp::vk
