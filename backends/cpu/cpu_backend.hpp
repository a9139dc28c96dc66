// The CPU backend: every op of the catalog on the host, in the case dtype (f32 in float, f64
// in double; f16/bf16 as storage for the elementwise families, computed in float). It is a
// system under test like the GPU backends, written as a production op library would be; it
// never uses the reference.
//
// Thread-safety contract (how this backend meets backends/backend.hpp):
//   * CpuBackend is immutable after construction apart from the canary log, which a mutex
//     guards. info(), supports(), allocate(), create_queue() and take_canary_violations() may
//     be called by any number of threads at once.
//   * CpuQueue keeps no state of its own besides a reference to its backend: it runs every
//     command synchronously on the calling thread (a long call's blocks on threads of its own,
//     joined before the command returns: kernels/threaded.hpp), so finish() has nothing to wait for and
//     download() sees every earlier command's result. One queue belongs to one thread at a
//     time (as the interface requires); any number of queues may run at once.
//   * CpuBuffer is plain host memory: two queues must not write one buffer at the same time,
//     and no buffer is shared between commands running concurrently unless all only read it.
//   * The backend must outlive its queues and buffers.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/registry.hpp"

namespace gp::cpu {

// glibc's libm accuracy, as the error model sees it (math_profile.cpp).
const MathProfile& glibc_math_profile();

// What discover() and CpuBackend::info() report: name from /proc/cpuinfo, driver "Eigen x.y.z".
DeviceInfo cpu_device_info();

class CpuBackend final : public Backend {
 public:
  CpuBackend();

  const DeviceInfo& info() const override { return info_; }
  // f32 and f64: every op. f16 and bf16: the unary and binary families and gumbel_softmax.
  Support supports(const OpCall& call) const override;
  std::unique_ptr<DeviceBuffer> allocate(DType dtype, const Shape& shape) override;
  std::unique_ptr<Queue> create_queue() override;
  std::vector<std::string> take_canary_violations() override;

  // Called by queues when a buffer's guard was found damaged.
  void record_canary_violation(std::string text);

 private:
  const DeviceInfo info_;
  std::mutex canary_mutex_;
  std::vector<std::string> canary_log_;  // guarded by canary_mutex_
};

}  // namespace gp::cpu

namespace gp {
// Provider "cpu": one device, always available.
BackendProvider make_cpu_provider();
}  // namespace gp
