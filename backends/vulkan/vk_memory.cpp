#include "vk_memory.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "vk_errors.hpp"
#include "vk_layer_lock.hpp"

namespace gp::vk {

namespace {

std::atomic<std::uint64_t> next_buffer_id{1};

}  // namespace

std::vector<std::uint32_t> candidate_memory_types(const VkPhysicalDeviceMemoryProperties& mp, VkPhysicalDeviceType type,
                                                  std::uint32_t allowed, Placement placement) {
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  auto find = [&](VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid, std::vector<std::uint32_t>& out) {
    for (std::uint32_t i = 0; i < mp.memoryTypeCount; ++i) {
      VkMemoryPropertyFlags f = mp.memoryTypes[i].propertyFlags;
      if ((allowed >> i & 1u) && (f & want) == want && !(f & avoid) &&
          std::find(out.begin(), out.end(), i) == out.end())
        out.push_back(i);
    }
  };
  std::vector<std::uint32_t> out;
  const bool discrete = type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU || type == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU;
  if (discrete) {
    if (placement == Placement::device_preferred) find(local, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, out);
    // Staging and read-back buffers in system memory the CPU caches: device-local memory mapped
    // through the PCIe BAR (listed first by an H100's driver) made every download's memcpy and
    // canary read-back a series of uncached reads, 0.6 ms a call, two thirds of the models' time.
    find(host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, local, out);
    find(host, local, out);
  }
  find(host | local, 0, out);
  find(host, 0, out);
  return out;
}

VulkanBuffer::VulkanBuffer(std::shared_ptr<Context> ctx, DType dtype, Shape shape, Placement placement,
                           const std::string& case_id)
    : DeviceBuffer(dtype, std::move(shape)), ctx_(std::move(ctx)), id_(next_buffer_id++) {
  ctx_->ensure_alive(case_id);
  CallGuard guard(ctx_->validation_enabled());
  data_bytes_ = std::max<VkDeviceSize>((bytes() + 3) / 4 * 4, 4);
  VkDevice dev = ctx_->device();
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = total_bytes();
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  ctx_->check(vkCreateBuffer(dev, &bi, nullptr, &buffer_), "vkCreateBuffer", case_id);

  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev, buffer_, &req);
  VkResult last = VK_ERROR_OUT_OF_DEVICE_MEMORY;
  MemoryPool& pool = ctx_->memory_pool();
  for (std::uint32_t type : candidate_memory_types(ctx_->memory_properties(), ctx_->facts().props.deviceType,
                                                   req.memoryTypeBits, placement)) {
    const bool host_visible =
        ctx_->memory_properties().memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    const bool map = host_visible && (placement == Placement::host_visible || !ctx_->force_staging());
    memory_type_ = type;
    memory_size_ = req.size;
    if (std::optional<MemoryPool::Block> kept = pool.take(type, req.size, map)) {
      memory_ = kept->memory;
      mapped_ = kept->mapped;
      last = VK_SUCCESS;
      break;
    }
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    last = vkAllocateMemory(dev, &ai, nullptr, &memory_);
    if (last == VK_ERROR_OUT_OF_DEVICE_MEMORY || last == VK_ERROR_OUT_OF_HOST_MEMORY) {
      pool.release_all();  // what the pool keeps may be what is missing
      last = vkAllocateMemory(dev, &ai, nullptr, &memory_);
    }
    if (last == VK_SUCCESS) {
      if (map) {
        void* p = nullptr;
        last = vkMapMemory(dev, memory_, 0, VK_WHOLE_SIZE, 0, &p);
        mapped_ = static_cast<std::byte*>(p);
      }
      if (last == VK_SUCCESS) break;
    }
    if (memory_) vkFreeMemory(dev, memory_, nullptr);
    memory_ = VK_NULL_HANDLE;
    if (last != VK_ERROR_OUT_OF_DEVICE_MEMORY && last != VK_ERROR_OUT_OF_HOST_MEMORY) break;
  }
  std::string detail = std::to_string(total_bytes()) + " bytes for " + this->shape().to_string();
  if (!memory_) {
    vkDestroyBuffer(dev, buffer_, nullptr);
    if (last == VK_ERROR_DEVICE_LOST) ctx_->mark_lost("vkAllocateMemory", detail);
    throw_result(last < 0 ? last : VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkAllocateMemory", case_id, detail);
  }
  VkResult r = vkBindBufferMemory(dev, buffer_, memory_, 0);
  if (r != VK_SUCCESS) {
    vkFreeMemory(dev, memory_, nullptr);  // not kept: binding it failed
    vkDestroyBuffer(dev, buffer_, nullptr);
    ctx_->check(r, "vkBindBufferMemory", case_id, detail);
  }
  if (mapped_) {
    std::memset(mapped_, kCanaryByte, kCanaryBytes);
    std::memset(mapped_ + back_canary_offset(), kCanaryByte, back_canary_bytes());
    armed_.store(true);
  }
}

VulkanBuffer::~VulkanBuffer() {
  if (pending_in_) pending_in_->forget(*this);
  CallGuard guard(ctx_->validation_enabled());
  vkDestroyBuffer(ctx_->device(), buffer_, nullptr);
  ctx_->memory_pool().give(memory_type_, memory_size_, {memory_, mapped_});  // mapped or not, as it is
}

std::optional<std::string> VulkanBuffer::describe_canary_damage(const std::uint8_t* front,
                                                                const std::uint8_t* back) const {
  long first = 0, last = 0;
  bool any = false;
  auto scan = [&](const std::uint8_t* region, long base, VkDeviceSize size) {
    for (long i = 0; i < static_cast<long>(size); ++i) {
      if (region[i] == kCanaryByte) continue;
      long off = base + i;
      if (!any) first = off;
      last = off;
      any = true;
    }
  };
  // Offsets relative to the data: negative before it, >= data size after it.
  scan(front, -static_cast<long>(kCanaryBytes), kCanaryBytes);
  scan(back, static_cast<long>(bytes()), back_canary_bytes());
  if (!any) return std::nullopt;
  return "buffer #" + std::to_string(id_) + " (" + dtype_name(dtype()).data() + " " + shape().to_string() + ", " +
         std::to_string(bytes()) + " bytes): canary bytes changed at offsets " + std::to_string(first) + ".." +
         std::to_string(last) + " relative to the data start";
}

std::optional<std::string> VulkanBuffer::check_mapped_canaries() {
  if (!mapped_) return std::nullopt;
  auto* front = reinterpret_cast<std::uint8_t*>(mapped_);
  auto* back = front + back_canary_offset();
  auto damage = describe_canary_damage(front, back);
  if (damage) {
    std::memset(front, kCanaryByte, kCanaryBytes);
    std::memset(back, kCanaryByte, back_canary_bytes());
  }
  return damage;
}

VkDeviceSize VulkanBuffer::canary_position_for_testing(long offset) const {
  long pos = static_cast<long>(kCanaryBytes) + offset;
  bool in_data = offset >= 0 && offset < static_cast<long>(bytes());
  if (in_data || pos < 0 || pos >= static_cast<long>(total_bytes()))
    throw Error("corrupt_canary_for_testing: offset outside the canaries");
  return static_cast<VkDeviceSize>(pos);
}

VulkanBuffer& as_vulkan(DeviceBuffer& b) {
  auto* v = dynamic_cast<VulkanBuffer*>(&b);
  if (!v) throw Error("vulkan backend: buffer was not allocated by a Vulkan backend");
  return *v;
}
const VulkanBuffer& as_vulkan(const DeviceBuffer& b) { return as_vulkan(const_cast<DeviceBuffer&>(b)); }

}  // namespace gp::vk
