#include "vk_context.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "vk_errors.hpp"
#include "vk_layer_lock.hpp"
#include "vk_pipelines.hpp"    // kMaxBindings
#include "vulkan_backend.hpp"  // vk_testing: fault-injection hooks

namespace gp::vk {

std::string version_string(std::uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

namespace {

// The loader loads the drivers with each instance and unloads them with the last one. The
// NVIDIA driver's libnvidia-tls takes static TLS at every load, and glibc's surplus runs out
// after some dozens of cycles: the next vkCreateInstance then finds "no drivers" (H100, driver
// 580.159.04: in the 16th test of gp_test_vulkan_backend). One instance without layers, created
// with the first and never destroyed, keeps the drivers loaded for the life of the process.
// (Destroying it at exit could run after the drivers' own exit handlers; held in a global, it is
// reachable, not leaked, for LeakSanitizer.)
VkInstance driver_anchor = VK_NULL_HANDLE;

void keep_drivers_loaded(std::uint32_t api_version) {
  static std::once_flag once;
  std::call_once(once, [&] {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "gradparity driver anchor";
    app.apiVersion = api_version;
    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    // A failure here is reported by the instance that follows.
    if (vkCreateInstance(&ci, nullptr, &driver_anchor) != VK_SUCCESS) driver_anchor = VK_NULL_HANDLE;
  });
}

}  // namespace

Instance::Instance(bool validation, ValidationLog* log) {
  std::uint32_t loader = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion(&loader) != VK_SUCCESS) loader = VK_API_VERSION_1_0;
  api_version_ = std::min<std::uint32_t>(loader, VK_API_VERSION_1_3);
  if (api_version_ < VK_API_VERSION_1_1)
    throw DeviceError("vkEnumerateInstanceVersion", "VK_ERROR_INCOMPATIBLE_DRIVER", "", "loader older than Vulkan 1.1");

  if (validation && !validation_layer_available()) {
    warn_validation_layer_missing_once();
    validation = false;
  }
  validation_ = validation && log != nullptr;

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "gradparity";
  app.apiVersion = api_version_;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;

  const char* layers[] = {kValidationLayer};
  const char* extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
  VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enables;
  VkDebugUtilsMessengerCreateInfoEXT messenger_info{};
  if (validation_) {
    messenger_info = messenger_create_info(log);
    features.pNext = &messenger_info;  // also reports problems of vkCreate/DestroyInstance
    ci.pNext = &features;
    ci.enabledLayerCount = 1;
    ci.ppEnabledLayerNames = layers;
    ci.enabledExtensionCount = 2;
    ci.ppEnabledExtensionNames = extensions;
  }
  LifecycleGuard lifecycle;  // held until the messenger exists
  keep_drivers_loaded(api_version_);
  check(vkCreateInstance(&ci, nullptr, &instance_), "vkCreateInstance", "");
  if (validation_) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    VkResult r = create ? create(instance_, &messenger_info, nullptr, &messenger_) : VK_ERROR_EXTENSION_NOT_PRESENT;
    if (r != VK_SUCCESS) {
      vkDestroyInstance(instance_, nullptr);
      throw_result(r, "vkCreateDebugUtilsMessengerEXT", "");
    }
  }
}

Instance::~Instance() {
  LifecycleGuard lifecycle;
  if (messenger_) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(instance_, messenger_, nullptr);
  }
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

namespace {

bool has_extension(VkPhysicalDevice pd, const char* name) {
  std::uint32_t n = 0;
  if (vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> ext(n);
  if (vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, ext.data()) < 0) return false;
  return std::any_of(ext.begin(), ext.end(), [&](const auto& e) { return std::strcmp(e.extensionName, name) == 0; });
}

DeviceFacts describe(VkPhysicalDevice pd, std::uint32_t instance_api) {
  DeviceFacts f;
  f.physical = pd;
  vkGetPhysicalDeviceProperties(pd, &f.props);
  f.api_version = std::min(instance_api, f.props.apiVersion);

  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  bool driver_props = f.api_version >= VK_API_VERSION_1_2 || has_extension(pd, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  if (f.api_version >= VK_API_VERSION_1_1) {
    props2.pNext = &subgroup;
    if (driver_props) subgroup.pNext = &driver;
    vkGetPhysicalDeviceProperties2(pd, &props2);
    f.subgroup_size = subgroup.subgroupSize;
    f.subgroup_arithmetic = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                            (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);

    VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDeviceFeatures2 features2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features2.pNext = &storage16;
    vkGetPhysicalDeviceFeatures2(pd, &features2);
    f.float64 = features2.features.shaderFloat64;
    f.storage16 = storage16.storageBuffer16BitAccess;
  }

  std::uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> families(nq);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, families.data());
  bool compute = false;
  for (std::uint32_t i = 0; i < nq; ++i) {
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      f.queue_family = i;
      f.timestamp_valid_bits = families[i].timestampValidBits;
      compute = true;
      break;
    }
  }
  const std::uint32_t storage_buffers = f.props.limits.maxPerStageDescriptorStorageBuffers;
  f.usable = compute && f.api_version >= VK_API_VERSION_1_1 && f.subgroup_arithmetic && storage_buffers >= kMaxBindings;
  if (!compute)
    f.unusable_reason = "no compute queue";
  else if (f.api_version < VK_API_VERSION_1_1)
    f.unusable_reason = "Vulkan 1.1 required, device has " + version_string(f.api_version);
  else if (!f.subgroup_arithmetic)
    f.unusable_reason = "no subgroup arithmetic in compute shaders (the reductions use it)";
  else if (!f.usable)
    f.unusable_reason = "maxPerStageDescriptorStorageBuffers is " + std::to_string(storage_buffers) +
                        ", the shaders bind " + std::to_string(kMaxBindings);

  DeviceInfo& info = f.info;
  info.backend = "vulkan";
  info.name = f.props.deviceName;
  info.driver = driver_props ? std::string(driver.driverName) + " " + driver.driverInfo : std::string("driver");
  info.driver += " (driverVersion " + std::to_string(f.props.driverVersion) + ")";
  info.api_version = version_string(f.props.apiVersion);
  info.dtypes.push_back(DType::f32);
  // The shaders declare no DenormPreserve execution mode: subnormal results are the driver's
  // choice (lavapipe flushes them).
  info.may_flush_subnormals = true;
  info.math = &vulkan_math_profile();
  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(f.physical, &memory);
  for (std::uint32_t h = 0; h < memory.memoryHeapCount; ++h)
    if (memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      info.memory_bytes = std::max(info.memory_bytes, static_cast<std::int64_t>(memory.memoryHeaps[h].size));
  info.host_memory = f.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (f.float64) info.dtypes.push_back(DType::f64);
  if (f.storage16) {
    info.dtypes.push_back(DType::f16);
    info.dtypes.push_back(DType::bf16);
  }
  static const char* kTypes[] = {"other", "integrated GPU", "discrete GPU", "virtual GPU", "CPU"};
  info.notes.push_back(std::string("type: ") + kTypes[std::min<int>(f.props.deviceType, 4)]);
  info.notes.push_back("subgroup size " + std::to_string(f.subgroup_size));
  info.notes.push_back(std::string("shaderFloat64 ") + (f.float64 ? "yes" : "no"));
  info.notes.push_back(std::string("storageBuffer16BitAccess ") + (f.storage16 ? "yes" : "no"));
  info.notes.push_back("maxStorageBufferRange " + std::to_string(f.props.limits.maxStorageBufferRange));
  info.notes.push_back("timestamp bits " + std::to_string(f.timestamp_valid_bits));
  return f;
}

}  // namespace

std::vector<DeviceFacts> describe_devices(const Instance& instance) {
  std::uint32_t n = 0;
  check(vkEnumeratePhysicalDevices(instance.handle(), &n, nullptr), "vkEnumeratePhysicalDevices", "");
  std::vector<VkPhysicalDevice> devices(n);
  check(vkEnumeratePhysicalDevices(instance.handle(), &n, devices.data()), "vkEnumeratePhysicalDevices", "");
  std::vector<DeviceFacts> out;
  for (auto pd : devices) out.push_back(describe(pd, instance.api_version()));
  return out;
}

// Freed buffers' memory kept for reuse (vk_memory_pool.hpp): a model's buffers and the staging
// buffers of its uploads and downloads, many times over.
constexpr VkDeviceSize kKeptMemoryBytes = VkDeviceSize{256} << 20;

Context::Context(const BackendOptions& opts, std::uint32_t index)
    : log_(std::make_unique<ValidationLog>()),
      instance_(std::make_unique<Instance>(validation_requested(opts), log_.get())) {
  LifecycleGuard lifecycle;  // the layer's instance state is read here and its device state added
  auto devices = describe_devices(*instance_);
  if (index >= devices.size())
    throw DeviceError("vkEnumeratePhysicalDevices", "VK_ERROR_INITIALIZATION_FAILED", "",
                      "no Vulkan device " + std::to_string(index));
  facts_ = devices[index];
  if (!facts_.usable) throw DeviceError("vkCreateDevice", "VK_ERROR_FEATURE_NOT_PRESENT", "", facts_.unusable_reason);
  vkGetPhysicalDeviceMemoryProperties(facts_.physical, &memory_);

  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = facts_.queue_family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;

  VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  storage16.storageBuffer16BitAccess = facts_.storage16 ? VK_TRUE : VK_FALSE;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &storage16;
  features.features.shaderFloat64 = facts_.float64 ? VK_TRUE : VK_FALSE;

  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.pNext = &features;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  check(vkCreateDevice(facts_.physical, &dci, nullptr, &device_), "vkCreateDevice", "");
  vkGetDeviceQueue(device_, facts_.queue_family, 0, &queue_);
  memory_pool_ = std::make_unique<MemoryPool>(device_, kKeptMemoryBytes);
  const char* staging = std::getenv("GP_VK_STAGING");
  force_staging_ = staging && std::strcmp(staging, "1") == 0;
  const char* timestamps = std::getenv("GP_VK_TIMESTAMPS");
  time_submissions_ = facts_.timestamp_valid_bits > 0 &&
                      (timestamps && *timestamps ? std::strcmp(timestamps, "0") != 0
                                                 : facts_.props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU);
}

Context::~Context() {
  if (device_) {
    {
      CallGuard guard(validation_enabled());
      vkDeviceWaitIdle(device_);  // result ignored: nothing useful to do in a destructor
      memory_pool_.reset();
    }
    LifecycleGuard lifecycle;
    vkDestroyDevice(device_, nullptr);
  }
}

void Context::mark_lost(const std::string& api_call, const std::string& detail) {
  std::lock_guard lock(lost_mutex_);
  if (!lost_.load()) {
    lost_call_ = api_call;
    lost_detail_ = detail;
    lost_.store(true);
  }
}

void Context::ensure_alive(const std::string& case_id) const {
  if (!lost_.load()) return;
  std::lock_guard lock(lost_mutex_);
  throw DeviceLost(lost_call_, "VK_ERROR_DEVICE_LOST", case_id, "device lost earlier: " + lost_detail_);
}

void Context::check(VkResult r, const char* api_call, const std::string& case_id, const std::string& detail) {
  if (r == VK_ERROR_DEVICE_LOST) mark_lost(api_call, "during case " + case_id + (detail.empty() ? "" : ": " + detail));
  vk::check(r, api_call, case_id, detail);
}

void Context::submit(VkCommandBuffer cmd, VkFence fence, const std::string& case_id) {
  ensure_alive(case_id);
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  VkResult r;
  if (vk_testing::submit_without_queue_lock.load(std::memory_order_relaxed)) {
    r = vkQueueSubmit(queue_, 1, &si, fence);  // deliberate race: positive control only
  } else {
    std::lock_guard lock(submit_mutex_);
    r = vkQueueSubmit(queue_, 1, &si, fence);
  }
  check(r, "vkQueueSubmit", case_id);
  ++submissions_;
}

}  // namespace gp::vk
