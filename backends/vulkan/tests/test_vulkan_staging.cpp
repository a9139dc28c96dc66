// The discrete-GPU path on any device (GP_VK_STAGING=1: every tensor buffer device-local, uploads
// and downloads through staging buffers; GP_VK_TIMESTAMPS=1: every submission timed), validation on: uploads and
// calls ride in the next download's submission instead of one each, in their order, read back what was uploaded, and a
// buffer destroyed before its upload was submitted drops it cleanly.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "backends/vulkan/vk_memory.hpp"
#include "vulkan_test_util.hpp"

namespace gp {
namespace {

using vktest::tensor;

class VulkanStagingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_dir_ = vktest::temp_cache_dir("staging");
    ::setenv("GP_VK_STAGING", "1", 1);
    ::setenv("GP_VK_TIMESTAMPS", "1", 1);  // a discrete GPU's default, here on lavapipe too
    std::string why;
    backend_ = vktest::make_backend(cache_dir_, why);
    ::unsetenv("GP_VK_STAGING");
    ::unsetenv("GP_VK_TIMESTAMPS");
    if (!backend_) GTEST_SKIP() << why;
    queue_ = backend_->create_queue();
  }
  void TearDown() override {
    if (!backend_) return;
    queue_.reset();
    for (const auto& m : backend_->take_validation_messages()) ADD_FAILURE() << "validation: " << m;
    EXPECT_TRUE(backend_->take_canary_violations().empty());
    backend_.reset();
    std::filesystem::remove_all(cache_dir_);
  }
  std::unique_ptr<DeviceBuffer> uploaded(const HostTensor& t) {
    auto b = backend_->allocate(t.dtype(), t.shape());
    queue_->upload(*b, t);
    return b;
  }
  std::string cache_dir_;
  std::unique_ptr<VulkanBackend> backend_;
  std::unique_ptr<Queue> queue_;
};

TEST_F(VulkanStagingTest, UploadsAndCallsRideInTheNextDownload) {
  const OpCall add = make_call(OpKind::add, {}, DType::f32, {Shape{3}, Shape{3}}, "add");
  const OpCall neg = make_call(OpKind::neg, {}, DType::f32, {Shape{3}}, "neg");
  auto out = backend_->allocate(DType::f32, Shape{3});
  auto negated = backend_->allocate(DType::f32, Shape{3});
  const std::uint64_t before = backend_->submissions();
  auto a = uploaded(tensor(DType::f32, Shape{3}, {1, 2, 3}));
  auto b = uploaded(tensor(DType::f32, Shape{3}, {10, 20, 30}));
  EXPECT_EQ(backend_->submissions(), before);
  const DeviceBuffer* in[] = {a.get(), b.get()};
  queue_->forward(add, in, *out);
  const DeviceBuffer* sum_in[] = {out.get()};
  queue_->forward(neg, sum_in, *negated);
  EXPECT_EQ(backend_->submissions(), before);
  const DeviceBuffer* both[] = {out.get(), negated.get()};
  const std::vector<HostTensor> back = queue_->download_all(both);
  EXPECT_EQ(backend_->submissions(), before + 1);  // both copies, both kernels, both downloads
  for (std::int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back[0].get(i), 11.0 * static_cast<double>(i + 1));
    EXPECT_EQ(back[1].get(i), -11.0 * static_cast<double>(i + 1));
  }
  // An upload between two calls comes between them: the second call reads the new values.
  queue_->upload(*a, tensor(DType::f32, Shape{3}, {100, 200, 300}));
  queue_->forward(add, in, *out);
  EXPECT_EQ(queue_->download(*out).get(2), 330.0);
}

// The run's profile: the device's own time of each submission since the last take, once.
TEST_F(VulkanStagingTest, DeviceSecondsCountEverySubmissionOnce) {
  const OpCall exp = make_call(OpKind::exp, {}, DType::f32, {Shape{4096}}, "exp");
  auto in = uploaded(tensor(DType::f32, Shape{4096}, std::vector<double>(4096, 0.5)));
  auto out = backend_->allocate(DType::f32, Shape{4096});
  queue_->take_device_seconds();
  const DeviceBuffer* ins[] = {in.get()};
  queue_->forward(exp, ins, *out);
  queue_->finish();
  const double one = vulkan_last_device_seconds(*queue_);
  queue_->forward(exp, ins, *out);
  queue_->finish();
  const double two = one + vulkan_last_device_seconds(*queue_);
  const std::optional<double> taken = queue_->take_device_seconds();
  ASSERT_TRUE(taken.has_value());
  EXPECT_GT(*taken, 0.0);
  EXPECT_NEAR(*taken, two, 1e-12);
  EXPECT_EQ(queue_->take_device_seconds(), 0.0);
}

TEST_F(VulkanStagingTest, ADownloadOrFinishSubmitsWhatWasUploaded) {
  auto a = uploaded(tensor(DType::f32, Shape{4}, {1, 2, 3, 4}));
  auto b = uploaded(tensor(DType::f32, Shape{4}, {5, 6, 7, 8}));
  queue_->upload(*a, tensor(DType::f32, Shape{4}, {-1, -2, -3, -4}));  // the later upload wins
  const HostTensor back = queue_->download(*a);
  for (std::int64_t i = 0; i < 4; ++i) EXPECT_EQ(back.get(i), -static_cast<double>(i + 1));
  queue_->upload(*b, tensor(DType::f32, Shape{4}, {9, 9, 9, 9}));
  const std::uint64_t before = backend_->submissions();
  queue_->finish();
  EXPECT_EQ(backend_->submissions(), before + 1);
  queue_->finish();  // nothing left to submit
  EXPECT_EQ(backend_->submissions(), before + 1);
  EXPECT_EQ(queue_->download(*b).get(3), 9.0);
}

TEST_F(VulkanStagingTest, ABufferDestroyedBeforeItsUploadIsSubmittedDropsIt) {
  auto gone = uploaded(tensor(DType::f32, Shape{1024}, std::vector<double>(1024, 7.0)));
  gone.reset();  // its copy was never submitted: recording it now would use a destroyed VkBuffer
  auto kept = uploaded(tensor(DType::f32, Shape{2}, {4, 5}));
  const HostTensor back = queue_->download(*kept);
  EXPECT_EQ(back.get(0), 4.0);
  EXPECT_EQ(back.get(1), 5.0);
  // And a queue destroyed with an upload pending leaves the buffer usable by the next queue.
  queue_->upload(*kept, tensor(DType::f32, Shape{2}, {6, 7}));
  queue_ = backend_->create_queue();
  kept.reset();
}

// The memory types of an H100's driver: device-local, system memory (uncached and cached), and
// device-local memory the host can map through the PCIe BAR. What the host reads back must not
// land in the BAR (a download's memcpy there read uncached, 0.6 ms a call).
TEST(VulkanMemoryTypes, HostBuffersOfADiscreteGpuLiveInCachedSystemMemory) {
  VkPhysicalDeviceMemoryProperties props{};
  const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                              host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                              cached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  props.memoryTypeCount = 4;
  props.memoryTypes[0].propertyFlags = local;
  props.memoryTypes[1].propertyFlags = host;
  props.memoryTypes[2].propertyFlags = host | cached;
  props.memoryTypes[3].propertyFlags = local | host;
  const auto gpu = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  EXPECT_EQ(vk::candidate_memory_types(props, gpu, 0xF, vk::Placement::host_visible).front(), 2u);
  EXPECT_EQ(vk::candidate_memory_types(props, gpu, 0xB, vk::Placement::host_visible).front(), 1u);  // no cached
  EXPECT_EQ(vk::candidate_memory_types(props, gpu, 0xF, vk::Placement::device_preferred).front(), 0u);
  // A CPU implementation (lavapipe) has one type, device-local and host-visible alike.
  props.memoryTypeCount = 1;
  props.memoryTypes[0].propertyFlags = local | host | cached;
  EXPECT_EQ(vk::candidate_memory_types(props, VK_PHYSICAL_DEVICE_TYPE_CPU, 0x1, vk::Placement::host_visible),
            std::vector<std::uint32_t>{0});
}

}  // namespace
}  // namespace gp
