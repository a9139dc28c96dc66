// State shared by a VulkanBackend and everything it creates (queues, buffers keep it alive).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "shader_dir.hpp"
#include "vk_context.hpp"
#include "vk_pipeline_cache.hpp"
#include "vk_pipelines.hpp"

namespace gp::vk {

struct Shared {
  std::shared_ptr<Context> ctx;
  std::unique_ptr<PipelineCache> cache;
  std::unique_ptr<Pipelines> pipelines;
  std::shared_ptr<const ShaderDir> files;  // a user's shaders (vulkan-spirv); null for the built-in ones

  void add_canary_violation(std::string v) {
    std::lock_guard lock(canary_mutex);
    canary_violations.push_back(std::move(v));
  }
  std::vector<std::string> take_canary_violations() {
    std::lock_guard lock(canary_mutex);
    std::vector<std::string> out;
    out.swap(canary_violations);
    return out;
  }

  ~Shared() {
    pipelines.reset();
    cache.reset();  // saves the cache file
  }

 private:
  std::mutex canary_mutex;
  std::vector<std::string> canary_violations;
};

}  // namespace gp::vk
