// The lock that keeps instance/device creation away from calls through the validation layer
// (backends/vulkan/vk_layer_lock.hpp): the stress runner's per-thread mode crashed without it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "backends/vulkan/vk_layer_lock.hpp"

namespace gp::vk {
namespace {

using namespace std::chrono_literals;

// Starts a thread that takes the LifecycleGuard; the future is ready once it has it.
std::future<void> take_lifecycle_guard_async() {
  return std::async(std::launch::async, [] { LifecycleGuard lifecycle; });
}

TEST(VulkanLayerLock, LifecycleWaitsForCallsWithValidation) {
  std::future<void> lifecycle;
  {
    CallGuard call(true);
    lifecycle = take_lifecycle_guard_async();
    EXPECT_EQ(lifecycle.wait_for(100ms), std::future_status::timeout);
  }
  EXPECT_EQ(lifecycle.wait_for(10s), std::future_status::ready);
}

TEST(VulkanLayerLock, CallsWithoutValidationTakeNoLock) {
  CallGuard call(false);
  EXPECT_EQ(take_lifecycle_guard_async().wait_for(10s), std::future_status::ready);
}

TEST(VulkanLayerLock, CallsShareTheLockAcrossThreads) {
  CallGuard call(true);
  auto other = std::async(std::launch::async, [] { CallGuard inner(true); });
  EXPECT_EQ(other.wait_for(10s), std::future_status::ready);
}

// Nested guards lock once: the inner one neither waits behind the queued writer (a
// writer-preferring lock would deadlock there) nor lets it in when it ends.
TEST(VulkanLayerLock, NestedCallsLockOnceUntilTheOutermostEnds) {
  std::future<void> lifecycle;
  std::atomic<bool> nested_done{false};
  {
    CallGuard outer(true);
    lifecycle = take_lifecycle_guard_async();
    std::this_thread::sleep_for(50ms);  // let the writer queue up
    {
      CallGuard nested(true);
      nested_done = true;
    }
    EXPECT_EQ(lifecycle.wait_for(50ms), std::future_status::timeout);
  }
  EXPECT_TRUE(nested_done);
  EXPECT_EQ(lifecycle.wait_for(10s), std::future_status::ready);
}

TEST(VulkanLayerLockDeathTest, LifecycleInsideACallAbortsWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        CallGuard call(true);
        LifecycleGuard lifecycle;
      },
      "created or destroyed inside a backend call");
}

}  // namespace
}  // namespace gp::vk
