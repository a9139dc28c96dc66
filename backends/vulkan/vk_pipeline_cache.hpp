// A VkPipelineCache persisted on disk, one file per device + driver (the driver's
// pipelineCacheUUID is part of the file name and is checked again in the header).
//
// File format: "GPVKPC01", u64 payload size, u64 FNV-1a hash of the payload, payload = the data
// of vkGetPipelineCacheData. A file whose magic, size, hash or Vulkan header (header version,
// vendorID, deviceID, pipelineCacheUUID) does not match is ignored, so a torn or corrupt file
// costs a cold start, never a crash. Saving writes a temporary file and renames it over the
// old one (atomic on POSIX), so concurrent processes never read half a file.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

#include "vk_context.hpp"

namespace gp::vk {

// BackendOptions::cache_dir if set, else $XDG_CACHE_HOME/gradparity/vulkan, else
// ~/.cache/gradparity/vulkan.
std::string default_cache_dir(const std::string& configured);

class PipelineCache {
 public:
  PipelineCache(Context& ctx, const std::string& cache_dir);
  ~PipelineCache();  // saves; never throws
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  VkPipelineCache handle() const { return cache_; }
  const std::string& path() const { return path_; }
  bool loaded() const { return loaded_; }
  // Why the file was not used ("no file", "hash mismatch", ...); empty when it was loaded.
  const std::string& load_note() const { return note_; }
  // Writes the cache file now; returns false (and keeps going) when the disk refuses.
  bool save() noexcept;

 private:
  Context& ctx_;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::string dir_, path_, note_;
  bool loaded_ = false;
};

}  // namespace gp::vk
