#include "vulkan_backend.hpp"

#include "core/error.hpp"
#include "dispatch.hpp"
#include "vk_memory.hpp"
#include "vk_queue.hpp"
#include "vk_shared.hpp"

namespace gp {

VulkanBackend::VulkanBackend(const BackendOptions& opts, std::uint32_t device_index,
                             std::shared_ptr<const vk::ShaderDir> files)
    : shared_(std::make_shared<vk::Shared>()) {
  shared_->ctx = std::make_shared<vk::Context>(opts, device_index);
  shared_->cache = std::make_unique<vk::PipelineCache>(*shared_->ctx, vk::default_cache_dir(opts.cache_dir));
  shared_->pipelines = std::make_unique<vk::Pipelines>(*shared_->ctx, *shared_->cache);
  info_ = shared_->ctx->facts().info;
  if (files) vk::describe_kernel_files(info_, *files);
  shared_->files = std::move(files);
  if (shared_->ctx->validation_enabled()) info_.notes.push_back("validation layer on (synchronization validation)");
}

VulkanBackend::~VulkanBackend() = default;

Support VulkanBackend::supports(const OpCall& call) const {
  if (std::optional<std::string> problem = call_problem(call)) return Support::no("invalid call: " + *problem);
  const auto& facts = shared_->ctx->facts();
  switch (call.dtype) {
    case DType::f32:
      break;
    case DType::f64:
      if (!facts.float64) return Support::no("device lacks shaderFloat64");
      break;
    case DType::f16:
    case DType::bf16:
      if (!facts.storage16) return Support::no("device lacks storageBuffer16BitAccess");
      break;
    default:
      return Support::no("dtype " + std::string(dtype_name(call.dtype)) + " is not a float type");
  }
  if (shared_->ctx->lost()) return Support::no("device lost");
  // Shaders index with 32-bit integers and bind each tensor as one storage-buffer range.
  const std::uint64_t range = facts.props.limits.maxStorageBufferRange;
  auto too_big = [&](const Shape& s, DType t) {
    auto bytes = static_cast<std::uint64_t>(s.numel()) * dtype_size(t);
    return s.numel() >= (std::int64_t{1} << 31) || bytes > range;
  };
  for (std::size_t i = 0; i < call.input_shapes.size(); ++i)
    if (too_big(call.input_shapes[i], call.input_dtypes[i]))
      return Support::no("input " + call.input_shapes[i].to_string() + " exceeds maxStorageBufferRange (" +
                         std::to_string(range) + " bytes)");
  if (too_big(call.output_shape, call.dtype)) return Support::no("output exceeds maxStorageBufferRange");
  for (std::size_t i = 0; i < call.input_shapes.size(); ++i) {
    if (!input_layout(call, i)) continue;
    if (call.input_dtypes[i] != call.dtype)  // the gather is layout.comp's, built per storage dtype
      return Support::no("a strided " + std::string(dtype_name(call.input_dtypes[i])) + " input");
    if (too_big(input_buffer_shape(call, i), call.input_dtypes[i]))
      return Support::no("a strided input's storage exceeds maxStorageBufferRange");
  }
  if (shared_->files) return vk::supports_kernel_files(*shared_->files, call);
  if (call.kind == OpKind::concat && call.input_shapes.size() > 60) return Support::no("more than 60 concat inputs");
  if (call.kind == OpKind::matmul && matmul_dims(call).batch > 65535)
    return Support::no("matmul batch exceeds 65535 work groups");
  return Support::yes();
}

std::unique_ptr<DeviceBuffer> VulkanBackend::allocate(DType dtype, const Shape& shape) {
  return std::make_unique<vk::VulkanBuffer>(shared_->ctx, dtype, shape);
}

std::unique_ptr<Queue> VulkanBackend::create_queue() {
  shared_->ctx->ensure_alive("create_queue");
  return std::make_unique<vk::VulkanQueue>(shared_);
}

std::vector<std::string> VulkanBackend::take_canary_violations() { return shared_->take_canary_violations(); }
std::vector<std::string> VulkanBackend::take_validation_messages() { return shared_->ctx->validation_log().take(); }

bool VulkanBackend::validation_enabled() const { return shared_->ctx->validation_enabled(); }

VulkanBackend::PipelineCacheReport VulkanBackend::pipeline_cache_report() const {
  return {shared_->cache->path(), shared_->cache->loaded(), shared_->cache->load_note(), shared_->pipelines->created()};
}

std::uint64_t VulkanBackend::submissions() const { return shared_->ctx->submissions(); }

void VulkanBackend::mark_device_lost_for_testing(const std::string& api_call) {
  shared_->ctx->mark_lost(api_call, "simulated by a test");
}

namespace {
vk::VulkanQueue& as_vulkan_queue(Queue& q) {
  auto* v = dynamic_cast<vk::VulkanQueue*>(&q);
  if (!v) throw Error("not a Vulkan queue");
  return *v;
}
}  // namespace

void vulkan_set_timestamps(Queue& queue, bool on) { as_vulkan_queue(queue).set_timestamps(on); }
double vulkan_last_device_seconds(const Queue& queue) {
  return as_vulkan_queue(const_cast<Queue&>(queue)).last_device_seconds();
}
void vulkan_set_repeat(Queue& queue, std::uint32_t n) { as_vulkan_queue(queue).set_repeat(n); }
void vulkan_copy_shader(Queue& queue, const DeviceBuffer& src, DeviceBuffer& dst) {
  as_vulkan_queue(queue).copy_shader(src, dst);
}
void vulkan_copy_transfer(Queue& queue, const DeviceBuffer& src, DeviceBuffer& dst) {
  as_vulkan_queue(queue).copy_transfer(src, dst);
}
void vulkan_corrupt_canary_for_testing(Queue& queue, DeviceBuffer& buffer, long offset, std::uint8_t value) {
  as_vulkan_queue(queue).corrupt_canary(buffer, offset, value);
}

}  // namespace gp
