#include "vk_pipeline_cache.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "core/atomic_file.hpp"
#include "vk_layer_lock.hpp"

namespace gp::vk {

namespace {

constexpr char kMagic[8] = {'G', 'P', 'V', 'K', 'P', 'C', '0', '1'};

std::uint64_t fnv1a(const std::uint8_t* p, std::size_t n) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

std::string hex(const std::uint8_t* p, std::size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}

// Returns an empty string when `payload` starts with a pipeline-cache header for this device.
std::string header_mismatch(const std::vector<std::uint8_t>& payload, const VkPhysicalDeviceProperties& props) {
  VkPipelineCacheHeaderVersionOne h;
  if (payload.size() < sizeof h) return "payload shorter than a pipeline cache header";
  std::memcpy(&h, payload.data(), sizeof h);
  if (h.headerSize < sizeof h || h.headerSize > payload.size()) return "bad header size";
  if (h.headerVersion != VK_PIPELINE_CACHE_HEADER_VERSION_ONE) return "unknown header version";
  if (h.vendorID != props.vendorID || h.deviceID != props.deviceID) return "other device";
  if (std::memcmp(h.pipelineCacheUUID, props.pipelineCacheUUID, VK_UUID_SIZE) != 0) return "other driver (UUID)";
  return {};
}

}  // namespace

std::string default_cache_dir(const std::string& configured) {
  if (!configured.empty()) return configured;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/gradparity/vulkan";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/gradparity/vulkan";
  return ".gradparity-cache/vulkan";
}

PipelineCache::PipelineCache(Context& ctx, const std::string& cache_dir) : ctx_(ctx), dir_(cache_dir) {
  const auto& props = ctx.facts().props;
  char ids[32];
  std::snprintf(ids, sizeof ids, "%04x-%04x-", props.vendorID, props.deviceID);
  path_ = dir_ + "/pipelines-" + ids + hex(props.pipelineCacheUUID, VK_UUID_SIZE) + ".bin";

  std::vector<std::uint8_t> payload;
  std::ifstream in(path_, std::ios::binary);
  if (!in) {
    note_ = "no cache file";
  } else {
    std::vector<std::uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::uint64_t size = 0, hash = 0;
    if (file.size() < 24 || std::memcmp(file.data(), kMagic, 8) != 0) {
      note_ = "bad magic";
    } else {
      std::memcpy(&size, file.data() + 8, 8);
      std::memcpy(&hash, file.data() + 16, 8);
      if (size != file.size() - 24)
        note_ = "size mismatch";
      else if (hash != fnv1a(file.data() + 24, size))
        note_ = "hash mismatch";
      else
        payload.assign(file.begin() + 24, file.end());
    }
    if (note_.empty()) note_ = header_mismatch(payload, props);
    if (!note_.empty()) payload.clear();
  }

  CallGuard guard(ctx_.validation_enabled());
  VkPipelineCacheCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  ci.initialDataSize = payload.size();
  ci.pInitialData = payload.empty() ? nullptr : payload.data();
  VkResult r = vkCreatePipelineCache(ctx.device(), &ci, nullptr, &cache_);
  if (r != VK_SUCCESS && !payload.empty()) {  // the driver refused the data: start empty
    note_ = "driver rejected the data";
    ci.initialDataSize = 0;
    ci.pInitialData = nullptr;
    r = vkCreatePipelineCache(ctx.device(), &ci, nullptr, &cache_);
  } else if (r == VK_SUCCESS && !payload.empty()) {
    loaded_ = true;
  }
  ctx.check(r, "vkCreatePipelineCache", "");
}

PipelineCache::~PipelineCache() {
  CallGuard guard(ctx_.validation_enabled());
  save();
  vkDestroyPipelineCache(ctx_.device(), cache_, nullptr);
}

bool PipelineCache::save() noexcept {
  try {
    if (ctx_.lost()) return false;
    CallGuard guard(ctx_.validation_enabled());
    std::size_t size = 0;
    if (vkGetPipelineCacheData(ctx_.device(), cache_, &size, nullptr) != VK_SUCCESS || size == 0) return false;
    std::vector<std::uint8_t> data(size);
    if (vkGetPipelineCacheData(ctx_.device(), cache_, &size, data.data()) != VK_SUCCESS) return false;
    data.resize(size);
    const std::uint64_t n = data.size(), h = fnv1a(data.data(), data.size());
    std::string bytes(kMagic, 8);
    bytes.append(reinterpret_cast<const char*>(&n), 8);
    bytes.append(reinterpret_cast<const char*>(&h), 8);
    bytes.append(reinterpret_cast<const char*>(data.data()), data.size());
    return try_write_file_atomically(path_, bytes);
  } catch (...) {
    return false;
  }
}

}  // namespace gp::vk
