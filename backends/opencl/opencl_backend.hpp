// The OpenCL backend: every op of core/op_list.hpp, forward and VJP, on any OpenCL 1.2+ device.
//
// Thread-safety (how the contract of backends/backend.hpp is made true here):
//   * OpenclBackend is shared by threads. It owns the cl::Context and the compiled programs.
//     A program (one per storage dtype) is built at most once, under a per-variant mutex, and is
//     immutable afterwards; cl_program, cl_context and buffer creation are thread-safe in
//     OpenCL. allocate() takes a released allocation from the pool (under its mutex) or creates
//     one, and enqueues nothing: the queue that first uses a buffer writes its guards and its NaN
//     fill, as work of that queue (a buffer is used by one queue at a time). supports() and
//     info() only read immutable data.
//   * OpenclQueue is per thread. It owns its cl::CommandQueue and its OWN cl::Kernel objects,
//     created lazily from the shared programs, so clSetKernelArg + clEnqueueNDRangeKernel never
//     race with another thread (docs/devices.md: a cl_kernel shared by threads gives wrong results).
//   * Canary violations are collected in the backend under a mutex (take_canary_violations).
//   * testing::share_kernels_unsafely (off by default, not reachable from BackendOptions) makes
//     every queue use one backend-wide kernel set WITHOUT locking set-arg+enqueue: a fault to
//     prove that the stress runner detects the race. Never set it outside such tests.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "backends/backend.hpp"
#include "backends/registry.hpp"

namespace gp {

// Provider "opencl": every device of every platform; never throws.
BackendProvider make_opencl_provider();
// Provider "opencl-src": a user's directory of OpenCL C kernels run on those devices
// (--backend opencl-src:DIR[:DEVICE], docs/kernel-files.md).
BackendProvider make_opencl_src_provider();

namespace opencl {

// How the programs of one backend instance came to be (for start-up measurements and tests).
struct ProgramStats {
  int built_from_source = 0;  // compiled from the embedded .cl text
  int loaded_from_cache = 0;  // created from a cached device binary
  int cache_rejected = 0;     // cache entries found corrupt, stale or unloadable (then rebuilt)
  double build_seconds = 0;   // wall time spent creating + building programs
};

class OpenclBackend : public Backend {
 public:
  virtual ProgramStats program_stats() const = 0;
  // Folder of the on-disk program cache ("" when caching is off).
  virtual std::string cache_directory() const = 0;
  // Builds (or loads) the program of dtype now instead of at first use.
  virtual void warm_up(DType dtype) = 0;
};

class OpenclQueue : public Queue {
 public:
  // Sum of device execution times (CL_PROFILING_COMMAND_END - START) of the kernels enqueued by
  // the last forward(), backward() or copy() of this queue; waits for them to finish.
  virtual std::uint64_t last_device_time_ns() = 0;
  // Canary checks read the guards back after every forward/backward (at the next download or
  // finish). On by default; benchmarks turn them off.
  virtual void set_canary_checks(bool on) = 0;
  // Pure copy kernel dst = src (same dtype and numel): the bandwidth yardstick of benchmarks.
  virtual void copy(const DeviceBuffer& src, DeviceBuffer& dst) = 0;
};

// Device `index` counts the devices of all platforms in discovery order (as "opencl:N").
// Throws gp::DeviceError when there is no such device or the context cannot be created.
std::unique_ptr<OpenclBackend> create_backend(std::size_t index, const BackendOptions& opts = {});

// Whether built programs are written to the binary cache. Default: yes for GPUs and other
// non-CPU devices; no for CPU devices, because reading a binary back from PoCL compiles every
// kernel of the program at once (tens of seconds for this program on 2 cores), while PoCL
// caches its own builds in POCL_CACHE_DIR anyway. GP_OPENCL_BINARY_CACHE=1 / 0 overrides.
// Cached binaries are always loaded when present.
bool binary_cache_capture_enabled(bool cpu_device);

// The default cache folder: $XDG_CACHE_HOME/gradparity/opencl or ~/.cache/gradparity/opencl.
std::string default_cache_dir();

namespace testing {
// Test-only fault injection; see the thread-safety note above.
inline std::atomic<bool> share_kernels_unsafely{false};
// Test-only: replaces the embedded kernel source (when non-empty) so that cache tests run on a
// tiny program, and forces binary capture on CPU devices. Set before creating a backend.
inline std::string program_source_override;
inline std::atomic<bool> force_binary_cache{false};
// Test-only: unary forward kernels are launched for this many extra elements, a genuine
// out-of-bounds write into the guard region that canary checks must report.
inline std::atomic<int> unary_overrun_elements{0};
}  // namespace testing

}  // namespace opencl
}  // namespace gp
