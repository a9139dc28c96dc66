// A process-wide lock around the Khronos validation layer's shared state.
//
// Validation layer 1.3.239 (Debian 12) keeps the state of every instance and device in one
// process-wide map. It looks the map up on every call and inserts or erases entries in
// vkCreate/DestroyInstance and vkCreate/DestroyDevice, without a lock
// (KhronosGroup/Vulkan-ValidationLayers#4391). A thread that creates a device while another
// records commands can find its own entry missing mid-rehash; the layer then makes an empty one
// and dereferences null. The stress runner's per-thread mode (each thread its own instance and
// device, 16 threads x 100 iterations on lavapipe) crashed so in 4 of 25 runs; 0 of 40 with
// this lock.
//
// So the backend brackets its Vulkan work:
// - CallGuard, shared, around every entry point that calls into a device with the layer on
//   (a no-op without validation). It nests within a thread.
// - LifecycleGuard, exclusive, around creating and destroying instances and devices, with or
//   without validation (those calls are rare, and the loader's own device list has had the same
//   kind of race, KhronosGroup/Vulkan-Loader#2018). A thread holding a CallGuard must not take
//   it: that would wait for itself, so it aborts with a message instead.
#pragma once

namespace gp::vk {

class CallGuard {
 public:
  explicit CallGuard(bool validation);
  ~CallGuard();
  CallGuard(const CallGuard&) = delete;
  CallGuard& operator=(const CallGuard&) = delete;

 private:
  bool active_;
};

class LifecycleGuard {
 public:
  LifecycleGuard();
  ~LifecycleGuard();
  LifecycleGuard(const LifecycleGuard&) = delete;
  LifecycleGuard& operator=(const LifecycleGuard&) = delete;
};

}  // namespace gp::vk
