#include "vk_layer_lock.hpp"

#include <cstdio>
#include <cstdlib>
#include <shared_mutex>

namespace gp::vk {

namespace {

std::shared_mutex& layer_state_mutex() {
  static std::shared_mutex mutex;
  return mutex;
}

thread_local int call_depth = 0;  // CallGuards this thread holds (only the outermost locks)

}  // namespace

CallGuard::CallGuard(bool validation) : active_(validation) {
  if (active_ && call_depth++ == 0) layer_state_mutex().lock_shared();
}

CallGuard::~CallGuard() {
  if (active_ && --call_depth == 0) layer_state_mutex().unlock_shared();
}

LifecycleGuard::LifecycleGuard() {
  if (call_depth > 0) {
    std::fprintf(stderr,
                 "gradparity: internal error: a Vulkan instance or device is created or destroyed inside a "
                 "backend call (it would wait for its own lock)\n");
    std::abort();
  }
  layer_state_mutex().lock();
}

LifecycleGuard::~LifecycleGuard() { layer_state_mutex().unlock(); }

}  // namespace gp::vk
