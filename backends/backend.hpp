// The backend interface: a device, its buffers and its queues.
//
// Thread-safety contract (every backend must make it true and say how in its own header):
//   * Backend: shared. Every const method and allocate() / create_queue() may be called by many
//     threads at once on one instance.
//   * DeviceBuffer: created by any thread; used by one queue at a time. Destroying a buffer
//     while work that uses it is in flight is not allowed (call Queue::finish first).
//   * Queue: owned and used by one thread at a time. Work enqueued on one queue runs in order;
//     download() returns only after all earlier work of that queue has finished. A backend may
//     hold enqueued work back until then (Vulkan submits a graph's calls together), so a device
//     error of a call may surface at the next download() or finish().
//   * Several queues of one backend may run at once, from different threads; the backend
//     serialises whatever its API requires (a shared VkQueue, a cl_kernel's arguments).
// A backend never throws from a destructor; a device error is a gp::DeviceError naming the API
// call, the error and the OpCall's case id.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/math_profile.hpp"
#include "core/op.hpp"
#include "core/tensor.hpp"

namespace gp {

struct DeviceInfo {
  std::string backend;  // "cpu", "opencl", "vulkan"
  std::string name;     // device name as the driver reports it
  std::string driver;   // driver / platform version
  std::string api_version;
  std::vector<DType> dtypes;       // dtypes the device can run at all
  std::vector<std::string> notes;  // extensions, features worth showing in reports
  // Whether a kernel's float results below the smallest normal number may become zero (Vulkan
  // shaders without the DenormPreserve execution mode; OpenCL float without CL_FP_DENORM). The
  // tolerance model then allows an absolute error of the smallest normal number.
  bool may_flush_subnormals = false;
  // The accuracy of the device's math functions, which the error model propagates
  // (core/math_profile.hpp). Every backend sets it; it outlives the backend.
  const MathProfile* math = nullptr;
  // The memory the device reports, 0 where it does not: its global memory (OpenCL), its largest
  // device-local heap (Vulkan), the machine's physical memory (cpu); and its largest single
  // buffer (OpenCL's CL_DEVICE_MAX_MEM_ALLOC_SIZE). A case whose buffers do not fit SKIPs
  // (harness/check/memory_fit.hpp).
  std::int64_t memory_bytes = 0;
  std::int64_t max_buffer_bytes = 0;
  // Its buffers live in the host's memory (the cpu backend, OpenCL and Vulkan CPU devices): a
  // large case's buffers then count against the machine's memory too.
  bool host_memory = false;
};

struct Support {
  bool ok = true;
  std::string reason;  // why not, when !ok: printed as SKIP(reason)
  static Support yes() { return {}; }
  static Support no(std::string why) { return {false, std::move(why)}; }
};

class DeviceBuffer {
 public:
  DeviceBuffer(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {}
  virtual ~DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  std::size_t bytes() const { return static_cast<std::size_t>(shape_.numel()) * dtype_size(dtype_); }

 private:
  DType dtype_;
  Shape shape_;
};

class Queue {
 public:
  virtual ~Queue() = default;
  virtual void upload(DeviceBuffer& dst, const HostTensor& src) = 0;
  // Waits for every earlier command of this queue, then copies dst back.
  virtual HostTensor download(const DeviceBuffer& src) = 0;
  // download() of each buffer, in order: a backend that can copies them all back with one wait.
  virtual std::vector<HostTensor> download_all(std::span<const DeviceBuffer* const> src) {
    std::vector<HostTensor> out;
    out.reserve(src.size());
    for (const DeviceBuffer* b : src) out.push_back(download(*b));
    return out;
  }
  // out = op(inputs). inputs follow call.input_shapes / call.input_dtypes.
  virtual void forward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, DeviceBuffer& out) = 0;
  // Vector-Jacobian product: grads[k] = (d out / d input_k)^T * dout. `out` holds the forward
  // result for these inputs. grads[k] is nullptr for inputs that get no gradient
  // (input_is_differentiable false); every non-null grads[k] is fully overwritten.
  virtual void backward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, const DeviceBuffer& out,
                        const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) = 0;
  // Blocks until all enqueued work has finished; rethrows deferred device errors.
  virtual void finish() = 0;
  // Seconds the device spent on this queue's finished work since the last call, by the API's
  // own timers (OpenCL profiling events, Vulkan timestamps); nothing where the device has none.
  // Call it after the work finished (a download or finish()). Never throws: a timer that cannot
  // be read counts nothing.
  virtual std::optional<double> take_device_seconds() noexcept { return std::nullopt; }
  // Arithmetic-bound work, the compute ceiling `gradparity bench` reads the contractions against:
  // for each of out.numel() elements, independent chains of x -> 0.999999 x + 1e-6 that make
  // `steps` multiply-adds (a multiple of 64) in all, in the arithmetic type the backend uses for
  // out's dtype, their ends summed into the element. Enqueued like a call and timed like one.
  // False where the backend has no such kernel.
  virtual bool arithmetic_probe(DeviceBuffer& out, int steps) { return false; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const DeviceInfo& info() const = 0;
  virtual Support supports(const OpCall& call) const = 0;
  virtual std::unique_ptr<DeviceBuffer> allocate(DType dtype, const Shape& shape) = 0;
  virtual std::unique_ptr<Queue> create_queue() = 0;
  // Out-of-bounds writes seen by canary checks since the last call (offsets described in text);
  // backends without canaries return an empty list.
  virtual std::vector<std::string> take_canary_violations() { return {}; }
  // Messages from a validation layer since the last call (Vulkan); empty elsewhere.
  virtual std::vector<std::string> take_validation_messages() { return {}; }
};

// One device a provider found. `create` makes a new, independent backend instance for it (the
// stress runner creates one per thread); it is empty when the device cannot be used, and then
// `unavailable` says why.
struct DeviceEntry {
  DeviceInfo info;
  std::function<std::unique_ptr<Backend>()> create;
  std::string unavailable;
  // Code gradparity did not build (a plugin) may crash the process it runs in: `run` then runs
  // this device's cases in a child process, so that a crash is one case's ERROR.
  bool run_in_child = false;
};

// Options every provider may honour.
struct BackendOptions {
  std::string cache_dir;           // binary / pipeline caches; empty = the user's cache directory
  bool vulkan_validation = false;  // enable the Khronos validation layer
};

}  // namespace gp
