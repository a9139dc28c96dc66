// Internal declarations of the OpenCL backend (never included outside backends/opencl/): the
// classes behind the public interfaces, error translation and the per-family dispatchers.
#pragma once

#include <CL/opencl.hpp>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/kernel_files/params.hpp"
#include "backends/opencl/kernel_dir.hpp"
#include "backends/opencl/opencl_backend.hpp"
#include "core/error.hpp"

namespace gp::opencl {

// What the OpenCL C specification allows the built-ins (math_profile.cpp).
const MathProfile& opencl_math_profile();

// Launch geometry shared with the kernels (passed as -D options, one source of truth).
inline constexpr int kWorkGroup = 128;         // row / reduction kernels (GP_WG)
inline constexpr int kTile = 16;               // matmul tile edge (GP_TILE)
inline constexpr int kElementwiseLocal = 256;  // 64 left an H200 launch-bound at ~0.8 TB/s
inline constexpr int kElementwiseItems = 4;    // elements per work item of the wide kernels (GP_EW_ITEMS)
inline constexpr int kKernelFileLocal = 64;    // work-group size of a user's kernel (docs/kernel-files.md)

// --- errors ----------------------------------------------------------------------------------
const char* cl_error_name(cl_int code);
bool is_out_of_memory(cl_int code);
// Rethrows a cl::Error as gp::DeviceError (gp::OutOfMemory for allocation failures).
[[noreturn]] void rethrow_device_error(const cl::Error& e, const std::string& case_id, const std::string& detail = {});

template <typename F>
decltype(auto) translate_errors(const std::string& case_id, F&& fn) {
  try {
    return fn();
  } catch (const cl::Error& e) {
    rethrow_device_error(e, case_id);
  }
}

// --- program sources and cache -----------------------------------------------------------------
const std::vector<std::pair<std::string_view, std::string_view>>& kernel_sources();  // generated

std::uint64_t fnv1a64(const void* data, std::size_t n, std::uint64_t h = 1469598103934665603ull);
std::string hex64(std::uint64_t v);

// --- buffers with canary guards ------------------------------------------------------------------
class ClBackend;

// One device allocation [guard | data | guard] and its data region as a sub-buffer.
struct ClAllocation {
  cl::Buffer whole, data;
  std::size_t data_bytes = 0;
  bool guards_written = false;  // a new allocation's guards are written at its first use
};

// Allocations of released buffers, kept for the next buffer of the same size (at most
// max_bytes in all). A model allocates its buffers anew for every graph run: creating each one,
// its guards and fill waited for, was 44 % of the host time of NVIDIA's OpenCL calls in the
// models. Shared by the backend and its buffers, which may outlive it.
class ClBufferPool {
 public:
  explicit ClBufferPool(std::size_t max_bytes) : max_bytes_(max_bytes) {}
  std::optional<ClAllocation> take(std::size_t data_bytes);
  void give_back(ClAllocation allocation) noexcept;
  void clear() noexcept;

 private:
  std::mutex mutex_;
  std::multimap<std::size_t, ClAllocation> free_;
  std::size_t kept_bytes_ = 0;
  const std::size_t max_bytes_;
};

// A buffer is made ready by the queue that first uses it (ClQueue::prepare): the guard pattern
// of a new allocation and the NaN fill of its data are commands of that queue, with no wait of
// their own.
class ClBuffer final : public DeviceBuffer {
 public:
  ClBuffer(ClBackend& backend, DType dtype, const Shape& shape);
  ~ClBuffer() override;
  ClBuffer(const ClBuffer&) = delete;
  ClBuffer& operator=(const ClBuffer&) = delete;
  const cl::Buffer& mem() const { return allocation_.data; }  // the data region (a sub-buffer)
  const cl::Buffer& whole() const { return allocation_.whole; }
  std::size_t guard_bytes() const { return guard_; }
  std::size_t data_bytes() const { return allocation_.data_bytes; }
  std::string describe() const;

 private:
  friend class ClQueue;
  std::shared_ptr<ClBufferPool> pool_;
  ClAllocation allocation_;
  std::size_t guard_ = 0;
  // The device state a queue's prepare() brings about; used by one queue at a time (the contract).
  mutable bool guards_written_ = false;
  mutable bool filled_ = false;  // the data holds NaN or what a queue wrote
};

// Byte k of a guard region (k counts from the start of that region).
inline std::uint8_t guard_pattern(std::size_t k) { return static_cast<std::uint8_t>((k * 131u + 0x5Au) & 0xFFu); }

// --- the backend -------------------------------------------------------------------------------
class ClBackend final : public OpenclBackend {
 public:
  // With `files`, the backend runs that directory's kernels instead of its own (opencl-src),
  // each file built for this device now.
  ClBackend(cl::Platform platform, cl::Device device, DeviceInfo info, const BackendOptions& opts,
            std::shared_ptr<const KernelDir> files = nullptr);
  ~ClBackend() override;

  const DeviceInfo& info() const override { return info_; }
  Support supports(const OpCall& call) const override;
  std::unique_ptr<DeviceBuffer> allocate(DType dtype, const Shape& shape) override;
  std::unique_ptr<Queue> create_queue() override;
  std::vector<std::string> take_canary_violations() override;
  ProgramStats program_stats() const override;
  std::string cache_directory() const override { return cache_dir_; }
  void warm_up(DType dtype) override;

  const cl::Context& context() const { return context_; }
  const cl::Device& device() const { return device_; }
  bool has_fp64() const { return has_fp64_; }
  // Elementwise ops through one kernel per direction that takes the op as an argument
  // (GP_GENERIC_ELEMENTWISE): on CPU devices, where every kernel costs a compile at its first
  // launch. GP_CL_GENERIC=0 or 1 overrides the choice.
  bool generic_elementwise() const { return generic_elementwise_; }
  std::size_t guard_bytes() const { return guard_bytes_; }
  // The built program of dtype's variant (built or loaded on first use).
  const cl::Program& program(DType dtype, const std::string& case_id);
  // Kernel set shared by all queues: only for testing::share_kernels_unsafely.
  cl::Kernel& shared_kernel(DType dtype, const std::string& name, const std::string& case_id);
  // The bytes of a guard, the source of the writes that arm a buffer's guards.
  const std::vector<std::uint8_t>& guard_image() const { return guard_image_; }
  const std::shared_ptr<ClBufferPool>& pool() const { return pool_; }
  void report_violation(std::string text);
  // The user's kernels of an opencl-src backend; nullptr for the built-in ones.
  const KernelDirPrograms* kernel_files() const { return files_.get(); }

 private:
  struct Variant {
    std::mutex mutex;
    bool built = false;
    cl::Program program;
  };
  static int variant_index(DType dtype);
  cl::Program build_variant(DType dtype, const std::string& case_id);

  cl::Platform platform_;
  cl::Device device_;
  cl::Context context_;
  DeviceInfo info_;
  bool has_fp64_ = false;
  bool generic_elementwise_ = false;
  std::size_t guard_bytes_ = 256;
  std::string cache_dir_;
  std::array<Variant, 4> variants_;
  mutable std::mutex stats_mutex_;
  ProgramStats stats_;
  std::vector<std::uint8_t> guard_image_;
  std::shared_ptr<ClBufferPool> pool_;
  std::mutex violations_mutex_;
  std::vector<std::string> violations_;
  std::mutex shared_kernels_mutex_;
  std::map<std::pair<int, std::string>, cl::Kernel> shared_kernels_;
  std::unique_ptr<const KernelDirPrograms> files_;
};

using Inputs = std::span<const DeviceBuffer* const>;
using Grads = std::span<DeviceBuffer* const>;

// --- the queue ---------------------------------------------------------------------------------

// A floating-point kernel argument: passed as float or double by the program variant.
struct RealArg {
  double v;
};
// A 64-bit kernel argument (`long`): sizes and indices of kernels that address past 2^31
// elements. A plain std::int64_t argument is passed as `int` and must fit in it.
struct LongArg {
  std::int64_t v;
};

class ClQueue final : public OpenclQueue {
 public:
  explicit ClQueue(ClBackend& backend);
  ~ClQueue() override;

  void upload(DeviceBuffer& dst, const HostTensor& src) override;
  HostTensor download(const DeviceBuffer& src) override;
  // Every read enqueued, then one wait and one guard check for all of them.
  std::vector<HostTensor> download_all(std::span<const DeviceBuffer* const> src) override;
  void forward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, DeviceBuffer& out) override;
  void backward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, const DeviceBuffer& out,
                const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) override;
  void finish() override;
  std::optional<double> take_device_seconds() noexcept override;
  std::uint64_t last_device_time_ns() override;
  void set_canary_checks(bool on) override { canaries_ = on; }
  void copy(const DeviceBuffer& src, DeviceBuffer& dst) override;
  bool arithmetic_probe(DeviceBuffer& out, int steps) override;

  // --- used by the dispatchers ---
  DType dtype() const { return dtype_; }
  bool generic_elementwise() const { return backend_.generic_elementwise(); }
  const std::string& case_id() const { return case_id_; }
  std::size_t real_size() const { return dtype_ == DType::f64 ? 8 : 4; }
  // A device buffer of `count` reals (the arithmetic type) for intermediate results.
  cl::Buffer scratch(std::size_t count);
  cl::Buffer int_scratch(std::size_t count);  // `count` ints
  // Sets the arguments and enqueues kernel `name` of the current dtype over an N-D range whose
  // global size is rounded up to a multiple of the local size.
  template <typename... Args>
  void run(const char* name, cl::NDRange global, cl::NDRange local, const Args&... args) {
    cl::Kernel& k = kernel(name);
    cl_uint index = 0;
    (set_arg(k, index++, args), ...);
    enqueue(k, global, local);
  }
  // 1-D elementwise launch over n items.
  template <typename... Args>
  void run_elementwise(const char* name, std::int64_t n, const Args&... args) {
    run(name, cl::NDRange(round_up(n, kElementwiseLocal)), cl::NDRange(kElementwiseLocal), args...);
  }
  // 1-D launch over n elements of a wide kernel (kElementwiseItems elements per work item).
  template <typename... Args>
  void run_elementwise_wide(const char* name, std::int64_t n, const Args&... args) {
    const std::int64_t items = (std::max<std::int64_t>(n, 1) + kElementwiseItems - 1) / kElementwiseItems;
    run(name, cl::NDRange(round_up(items, kElementwiseLocal)), cl::NDRange(kElementwiseLocal), args...);
  }
  // One work-group of kWorkGroup items per line.
  template <typename... Args>
  void run_per_group(const char* name, std::int64_t groups, const Args&... args) {
    run(name, cl::NDRange(static_cast<std::size_t>(groups) * kWorkGroup), cl::NDRange(kWorkGroup), args...);
  }
  // A kernel of the user's directory (opencl-src) over `count` work items in groups of
  // kKernelFileLocal: its buffers in order, then the parameter block.
  void run_file_kernel(const std::string& name, const std::vector<cl::Buffer>& buffers, const cl::Buffer& params,
                       std::uint32_t count);
  cl::Buffer params_buffer_for(const kernel_files::ParamBlock& block);
  static std::size_t round_up(std::int64_t n, std::int64_t m) {
    return static_cast<std::size_t>((std::max<std::int64_t>(n, 1) + m - 1) / m * m);
  }

 private:
  cl::Kernel& kernel(const char* name);
  void enqueue(cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local);
  void set_arg(cl::Kernel& k, cl_uint i, const cl::Buffer& b) { k.setArg(i, b); }
  void set_arg(cl::Kernel& k, cl_uint i, const ClBuffer& b) { k.setArg(i, b.mem()); }
  void set_arg(cl::Kernel& k, cl_uint i, int v) { k.setArg(i, static_cast<cl_int>(v)); }
  void set_arg(cl::Kernel& k, cl_uint i, std::int64_t v);
  void set_arg(cl::Kernel& k, cl_uint i, const cl_int4& v) { k.setArg(i, v); }
  void set_arg(cl::Kernel& k, cl_uint i, RealArg v);
  void set_arg(cl::Kernel& k, cl_uint i, LongArg v) { k.setArg(i, static_cast<cl_long>(v.v)); }
  void begin_call(DType dtype, const std::string& case_id);
  void count_finished(bool wait) noexcept;
  // Enqueues what a buffer needs before its first use here: its guards, its NaN fill (not for a
  // buffer the use overwrites whole).
  void prepare(const ClBuffer& buffer, bool overwritten_whole = false);
  void prepare_all(Inputs buffers);
  void arm_guards(const cl::Buffer& whole, std::size_t data_bytes);
  void watch_guards(const ClBuffer& buffer);
  void check_guards();

  struct PendingGuard {
    cl::Buffer whole;
    std::string what;
    std::size_t guard, data_bytes;
    // The guard before the data and the one after, read whole with the data between them when
    // that is small (one read instead of two).
    std::vector<std::uint8_t> bytes;
    cl::Event done;
  };

  ClBackend& backend_;
  cl::CommandQueue queue_;
  std::map<std::pair<int, std::string>, cl::Kernel> kernels_;
  std::vector<cl::Event> events_;
  std::size_t events_taken_ = 0;  // events_ already counted by take_device_seconds()
  std::vector<cl::Event> timed_;  // kernels of earlier calls not yet finished and counted
  std::uint64_t timed_ns_ = 0;    // their device time once finished, until taken
  std::vector<std::unique_ptr<PendingGuard>> pending_;
  // Copies of the uploads not known to have finished: a write is enqueued without waiting (a
  // blocking one waited for every kernel before it, a graph's poisoned outputs once per node),
  // and the host memory it reads must live until it ran. Released after the next wait.
  std::deque<HostTensor> uploading_;
  // From this size a write waits instead: a copy of a 2^31-element tensor costs seconds of one
  // core, more than waiting for the kernels before it.
  static constexpr std::size_t kBlockingUploadBytes = std::size_t{64} << 20;
  // Contiguous copies of a call's strided inputs (core/strided.hpp), kept like uploading_: a
  // pooled buffer given back while its kernels run could go to another queue.
  std::vector<std::unique_ptr<DeviceBuffer>> gathered_;
  // The call's inputs with each strided one gathered into a contiguous copy on the device first,
  // as a framework's .contiguous() does; the kernels then read the copies.
  std::vector<const DeviceBuffer*> gather_strided(const OpCall& call, Inputs inputs);
  bool canaries_ = true;
  DType dtype_ = DType::f32;
  std::string case_id_;
};

const ClBuffer& as_cl(const DeviceBuffer* b);
ClBuffer& as_cl(DeviceBuffer* b);

// Per-family dispatch; the queue has set dtype and case id before calling these.
void forward_elementwise(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out);
void backward_elementwise(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& out, const ClBuffer& dout,
                          Grads grads);
void forward_rows(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out);
void backward_rows(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& out, const ClBuffer& dout, Grads grads);
void forward_linalg(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out);
void backward_linalg(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& out, const ClBuffer& dout, Grads grads);
void forward_tt_embedding(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out);
void backward_tt_embedding(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& dout, Grads grads);
// Optimizer steps: forward only; the backward accepts only calls that ask for no gradient.
void forward_optimizer(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out);
void backward_optimizer(const OpCall& call, Grads grads);
// A user's kernel directory (opencl-src): what it supports, and its forward and backward calls.
Support supports_kernel_files(const KernelDirPrograms& files, const OpCall& call);
void forward_kernel_files(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out);
void backward_kernel_files(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& out, const ClBuffer& dout,
                           Grads grads);
// Sum over axis `axis` of a storage-typed tensor (reduce_fwd mode sum), used for bias gradients.
void sum_axis(ClQueue& q, const ClBuffer& src, std::int64_t outer, std::int64_t n, std::int64_t inner, ClBuffer& dst);

}  // namespace gp::opencl
