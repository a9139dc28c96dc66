// gp::Queue for Vulkan. Each VulkanQueue owns its command pool, one command buffer, a
// descriptor pool, a fence, a dummy buffer and a timestamp query pool (where the context times
// submissions, Context::time_submissions: every submission is timed); none of
// them is touched by another queue, so the only cross-thread synchronisation is the VkQueue
// submission mutex in Context.
//
// Calls are recorded, not submitted: forward() and backward() record their dispatches into the
// open command buffer, and the first download (or finish()) submits everything recorded since
// the last submission at once and waits for the fence. A model's graph, forward and backward,
// and the copies of its downloads are one submission instead of one per node and download: on
// NVIDIA each submission and fence wait cost the host more than the kernels the device ran. An
// upload into a device-local buffer fills staging memory at once (StagingArena) and records its
// copy before the next recorded call (or the submission), so the order of uploads and calls is
// kept.
// Submissions also happen when the descriptor sets of one submission run out, when a buffer a
// recorded call uses is destroyed (a buffer may not die while work on it is pending: the
// queue submits and waits first), and after every call while a benchmark repeats calls. A buffer
// destroyed before its staged upload was recorded drops that upload (PendingUploads). Errors of a
// submission surface at the download or finish() that made it, naming the last call recorded.
#pragma once

#include <vulkan/vulkan.h>

#include <functional>
#include <memory>
#include <vector>

#include "backends/backend.hpp"
#include "vk_memory.hpp"
#include "vk_recorder.hpp"
#include "vk_shared.hpp"
#include "vk_staging.hpp"

namespace gp::vk {

// vkCmdCopyBuffer of `bytes`, after a barrier against everything recorded before it.
void record_transfer(VkCommandBuffer cmd, const VulkanBuffer& from, const VulkanBuffer& to, VkDeviceSize from_offset,
                     VkDeviceSize to_offset, VkDeviceSize bytes);

class VulkanQueue final : public Queue, private PendingUploads {
 public:
  explicit VulkanQueue(std::shared_ptr<Shared> shared);
  ~VulkanQueue() override;

  void upload(DeviceBuffer& dst, const HostTensor& src) override;
  HostTensor download(const DeviceBuffer& src) override;
  // One submission for the copies of every device-local buffer (and what was recorded before).
  std::vector<HostTensor> download_all(std::span<const DeviceBuffer* const> src) override;
  void forward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, DeviceBuffer& out) override;
  void backward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, const DeviceBuffer& out,
                const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) override;
  void finish() override;
  std::optional<double> take_device_seconds() noexcept override;
  bool arithmetic_probe(DeviceBuffer& out, int steps) override;

  void set_timestamps(bool on);
  // Benchmarks: record each forward/backward/copy `n` times into a submission of its own (with
  // the usual barriers between), so that last_device_seconds() is a steady-state mean per call.
  void set_repeat(std::uint32_t n);
  double last_device_seconds() const { return last_device_seconds_; }
  void copy_shader(const DeviceBuffer& src, DeviceBuffer& dst);
  void copy_transfer(const DeviceBuffer& src, DeviceBuffer& dst);  // vkCmdCopyBuffer, for comparison
  // Test hook: sets one canary byte as an out-of-bounds write would (through the mapping, or
  // with vkCmdUpdateBuffer of its 4-byte word on device-local memory).
  void corrupt_canary(DeviceBuffer& buffer, long offset, std::uint8_t value);

 private:
  static constexpr std::uint32_t kMaxSetsPerCall = 64;  // descriptor sets of one recorded call
  // Descriptor sets of one submission: a model's graph of tens of nodes and their VJPs.
  static constexpr std::uint32_t kSetsPerSubmission = 1024;

  // Records `body` (`reps` times) into the open command buffer, after the uploads staged before
  // it; `uses` are the caller's buffers it reads or writes (kept from dying before the submission).
  void record(const std::string& case_id, const std::function<void(Recorder&)>& body,
              std::span<const VulkanBuffer* const> uses, std::uint32_t reps = 1);
  // Submits everything recorded (with `transfers` last) and waits; then reads the timestamps and
  // checks the canaries of every written buffer. Nothing recorded and no transfers: no submission.
  void submit(const std::string& case_id, const std::function<void(VkCommandBuffer)>& transfers = {});
  // record() and submit(): the benchmarks' and tests' entry points, timed per call.
  void run(const std::string& case_id, const std::function<void(Recorder&)>& body,
           const std::function<void(VkCommandBuffer)>& transfers = {}, std::uint32_t reps = 1);
  bool pending() const { return open_ || !staged_.empty(); }
  void open(const std::string& case_id);
  void record_staged();
  void use(const VulkanBuffer& buffer);
  bool in_use(const VulkanBuffer& buffer) const;
  void clear_recording() noexcept;
  void check_canaries(const std::vector<const VulkanBuffer*>& unmapped);
  void throw_deferred_error();
  void create_descriptor_pool(std::uint32_t sets);
  void release() noexcept;

  // An upload not recorded yet: the staging memory it copies from and where to.
  struct StagedUpload {
    const VulkanBuffer* staging;
    VulkanBuffer* dst;
    VkDeviceSize from, to, bytes;
  };
  // A buffer a recorded call writes, with the call's case id for its canary check.
  struct Written {
    const VulkanBuffer* buffer;
    std::string case_id;
  };
  void forget(const VulkanBuffer& buffer) noexcept override;
  void drop_staged() noexcept;

  std::shared_ptr<Shared> shared_;
  Context& ctx_;
  std::vector<StagedUpload> staged_;
  StagingArena staging_;
  // The open recording: whether the command buffer is recording, its descriptor sets, the
  // buffers its calls write and use, and the scratch buffers of its calls.
  bool open_ = false;
  std::uint32_t sets_ = 0, set_capacity_ = 0;
  std::vector<Written> written_;
  std::vector<const VulkanBuffer*> used_;
  std::vector<std::unique_ptr<VulkanBuffer>> in_flight_;
  std::string last_case_;          // the last call recorded: a failed submission names it
  std::string deferred_error_;     // a submission that failed inside forget(): thrown next
  bool submit_each_call_ = false;  // set_repeat(): benchmarks time every call
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptors_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool timestamps_ = VK_NULL_HANDLE;
  std::unique_ptr<VulkanBuffer> dummy_;
  std::unique_ptr<VulkanBuffer> readback_;  // canaries of device-local outputs, host-visible
  double last_device_seconds_ = 0;
  double device_seconds_ = 0;  // every submission's, since take_device_seconds()
  std::uint32_t repeat_ = 1;
};

}  // namespace gp::vk
