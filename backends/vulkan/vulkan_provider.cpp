// The "vulkan" provider: lists physical devices with a short-lived instance (destroyed before
// discover returns) and creates a VulkanBackend per device on demand. Never throws.
#include <exception>

#include "core/error.hpp"
#include "shader_dir.hpp"
#include "vk_context.hpp"
#include "vulkan_backend.hpp"

namespace gp {

namespace {

DeviceEntry unavailable(const std::string& why) {
  DeviceEntry e;
  e.info.backend = "vulkan";
  e.info.name = why;
  e.unavailable = why;
  return e;
}

std::vector<DeviceEntry> discover(const BackendOptions& opts) {
  std::vector<DeviceEntry> out;
  try {
    std::uint32_t version = 0;
    if (vkEnumerateInstanceVersion(&version) != VK_SUCCESS) return {unavailable("no Vulkan loader")};
    std::vector<vk::DeviceFacts> devices;
    {
      vk::Instance instance(false, nullptr);
      devices = vk::describe_devices(instance);
    }
    for (std::uint32_t i = 0; i < devices.size(); ++i) {
      DeviceEntry e;
      e.info = devices[i].info;
      if (devices[i].usable) {
        e.create = [opts, i]() -> std::unique_ptr<Backend> { return std::make_unique<VulkanBackend>(opts, i); };
      } else {
        e.unavailable = devices[i].unusable_reason;
      }
      out.push_back(std::move(e));
    }
  } catch (const std::exception& ex) {
    return {unavailable(std::string("no Vulkan device (") + ex.what() + ")")};
  }
  if (out.empty()) out.push_back(unavailable("no Vulkan device"));
  return out;
}

}  // namespace

// "vulkan-spirv:DIR[:DEVICE]": every Vulkan device, each running the directory's shaders. The
// shaders are read, compiled and checked here, so that one that breaks the convention stops the
// run before it starts (gp::UsageError).
BackendProvider make_vulkan_spirv_provider() {
  BackendProvider p;
  p.name = "vulkan-spirv";
  p.loaded_math = &vk::vulkan_spec_math_profile();
  p.discover = [](const BackendOptions&) {
    return name_one_to_load("vulkan-spirv", "a directory of compute shaders",
                            "name a directory: --backend vulkan-spirv:DIR[:DEVICE] (docs/kernel-files.md)");
  };
  p.load = [](const std::string& dir, const BackendOptions& opts) {
    const std::shared_ptr<const vk::ShaderDir> files = vk::read_shader_dir(dir);
    std::vector<DeviceEntry> entries = discover(opts);
    for (std::uint32_t i = 0; i < entries.size(); ++i) {
      DeviceEntry& e = entries[i];
      vk::describe_kernel_files(e.info, *files);
      if (!e.create) continue;
      e.create = [opts, i, files]() -> std::unique_ptr<Backend> {
        return std::make_unique<VulkanBackend>(opts, i, files);
      };
      e.run_in_child = true;  // code gradparity did not build: a crash is one case's ERROR
    }
    return entries;
  };
  return p;
}

BackendProvider make_vulkan_provider() {
  BackendProvider p{"vulkan", &vk::vulkan_math_profile(), discover};
  p.faults = {{"vulkan-unlocked-queue", "vkQueueSubmit without the queue's mutex",
               [](bool on) { vk_testing::submit_without_queue_lock = on; }},
              {"vulkan-no-barrier", "no barrier between dependent dispatches of one command buffer",
               [](bool on) { vk_testing::skip_dependent_barriers = on; }}};
  return p;
}

}  // namespace gp
