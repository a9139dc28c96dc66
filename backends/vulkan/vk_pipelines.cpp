#include "vk_pipelines.hpp"

#include <array>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "vk_layer_lock.hpp"
#include "vk_spirv.hpp"

namespace gp::vk {

Pipelines::Pipelines(Context& ctx, PipelineCache& cache) : ctx_(ctx), cache_(cache) {
  CallGuard guard(ctx_.validation_enabled());
  specialize_ = ctx.facts().props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (const char* env = std::getenv("GP_VK_SPECIALIZE"); env && (!std::strcmp(env, "0") || !std::strcmp(env, "1")))
    specialize_ = env[0] == '1';
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
  CallGuard guard(ctx_.validation_enabled());
  for (auto& [name, p] : pipelines_) vkDestroyPipeline(ctx_.device(), p, nullptr);
  vkDestroyPipelineLayout(ctx_.device(), layout_, nullptr);
  vkDestroyDescriptorSetLayout(ctx_.device(), set_layout_, nullptr);
}

VkPipeline Pipelines::create_locked(const std::string& key, std::span<const std::uint32_t> spirv, Spec spec,
                                    const std::string& case_id) {
  CallGuard guard(ctx_.validation_enabled());
  VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = spirv.size() * sizeof(std::uint32_t);
  mi.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  ctx_.check(vkCreateShaderModule(ctx_.device(), &mi, nullptr, &module), "vkCreateShaderModule", case_id, key);

  const std::array<std::uint32_t, 2> values = {spec.op, spec.mode};
  const std::array<VkSpecializationMapEntry, 2> entries = {
      VkSpecializationMapEntry{0, 0, sizeof(std::uint32_t)},
      VkSpecializationMapEntry{1, sizeof(std::uint32_t), sizeof(std::uint32_t)}};
  VkSpecializationInfo si{static_cast<std::uint32_t>(entries.size()), entries.data(), sizeof values, values.data()};

  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.stage.pSpecializationInfo = &si;
  ci.layout = layout_;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkResult r = vkCreateComputePipelines(ctx_.device(), cache_.handle(), 1, &ci, nullptr, &pipeline);
  vkDestroyShaderModule(ctx_.device(), module, nullptr);  // the pipeline keeps what it needs
  ctx_.check(r, "vkCreateComputePipelines", case_id, key);
  pipelines_.emplace(key, pipeline);
  return pipeline;
}

VkPipeline Pipelines::get(std::string_view family, DType dtype, Spec spec, const std::string& case_id) {
  std::string variant = std::string(family) + "_" + std::string(dtype_name(dtype));
  if (!specialize_) spec = Spec{};
  std::string key = variant;
  if (spec.op != SPEC_FROM_PUSH || spec.mode != SPEC_FROM_PUSH)
    key += "/" + std::to_string(spec.op) + "/" + std::to_string(spec.mode);
  std::lock_guard lock(mutex_);
  auto it = pipelines_.find(key);
  if (it != pipelines_.end()) return it->second;
  const SpirvBlob* blob = nullptr;
  for (const auto& b : embedded_spirv())
    if (b.name == variant) blob = &b;
  if (!blob) throw Error("vulkan backend: no embedded shader variant '" + variant + "'");
  return create_locked(key, {blob->words, blob->count}, spec, case_id);
}

VkPipeline Pipelines::get_user(const std::string& name, std::span<const std::uint32_t> spirv,
                               const std::string& case_id) {
  const std::string key = "user:" + name;
  std::lock_guard lock(mutex_);
  auto it = pipelines_.find(key);
  if (it != pipelines_.end()) return it->second;
  return create_locked(key, spirv, Spec{}, case_id);
}

std::size_t Pipelines::created() const {
  std::lock_guard lock(mutex_);
  return pipelines_.size();
}

}  // namespace gp::vk
