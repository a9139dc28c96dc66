#include "backends/cpu/cpu_backend.hpp"

#include <Eigen/Core>
#include <fstream>
#include <utility>

#include "backends/cpu/cpu_buffer.hpp"
#include "backends/cpu/cpu_queue.hpp"
#include "core/memory_size.hpp"

namespace gp::cpu {

namespace {

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto begin = line.find_first_not_of(" \t", colon + 1);
    if (begin != std::string::npos) return line.substr(begin);
  }
  return "host CPU";
}

// The families whose staging converts 16-bit storage (computed in f32).
constexpr const char* k16bitStorageOps = "the unary, binary, reduction, rowwise and linalg families";
bool has_16bit_storage(OpKind k) {
  const OpFamily f = op_family(k);
  return f == OpFamily::unary || f == OpFamily::binary || f == OpFamily::reduction || f == OpFamily::rowwise ||
         f == OpFamily::linalg;
}

}  // namespace

DeviceInfo cpu_device_info() {
  DeviceInfo d;
  d.backend = "cpu";
  d.name = cpu_model_name();
  d.driver = "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
             std::to_string(EIGEN_MINOR_VERSION);
  d.api_version = "host C++20";
  d.math = &glibc_math_profile();
  d.dtypes = {DType::f16, DType::bf16, DType::f32, DType::f64};
  d.memory_bytes = host_memory_bytes();
  d.host_memory = true;
  d.notes = {"synchronous: commands run on the calling thread",
             std::string("f16/bf16 are storage only (computed in f32), for ") + k16bitStorageOps,
             "64-byte canary guards around every buffer",
             std::string("Eigen SIMD: ") + Eigen::SimdInstructionSetsInUse()};
  return d;
}

CpuBackend::CpuBackend() : info_(cpu_device_info()) {}

Support CpuBackend::supports(const OpCall& call) const {
  if (std::optional<std::string> problem = call_problem(call)) return Support::no("invalid call: " + *problem);
  switch (call.dtype) {
    case DType::f32:
    case DType::f64:
      return Support::yes();
    case DType::f16:
    case DType::bf16:
      if (has_16bit_storage(call.kind)) return Support::yes();
      return Support::no(std::string(dtype_name(call.dtype)) + " storage is offered for " + k16bitStorageOps +
                         " only, not for " + std::string(family_name(op_family(call.kind))) + " op " +
                         std::string(op_name(call.kind)));
    case DType::i32:
      break;
  }
  return Support::no("dtype " + std::string(dtype_name(call.dtype)) + " is not a floating-point type");
}

std::unique_ptr<DeviceBuffer> CpuBackend::allocate(DType dtype, const Shape& shape) {
  return std::make_unique<CpuBuffer>(dtype, shape);
}

std::unique_ptr<Queue> CpuBackend::create_queue() { return std::make_unique<CpuQueue>(*this); }

std::vector<std::string> CpuBackend::take_canary_violations() {
  std::lock_guard lock(canary_mutex_);
  return std::exchange(canary_log_, {});
}

void CpuBackend::record_canary_violation(std::string text) {
  std::lock_guard lock(canary_mutex_);
  canary_log_.push_back(std::move(text));
}

}  // namespace gp::cpu

namespace gp {

BackendProvider make_cpu_provider() {
  return {"cpu",
          &cpu::glibc_math_profile(),
          [](const BackendOptions&) {
            DeviceEntry entry;
            try {
              entry.info = cpu::cpu_device_info();
              entry.create = [] { return std::unique_ptr<Backend>(std::make_unique<cpu::CpuBackend>()); };
            } catch (const std::exception& e) {  // discover never throws: report instead
              entry.info.backend = "cpu";
              entry.unavailable = e.what();
            }
            return std::vector<DeviceEntry>{entry};
          },
          {},
          {}};
}

}  // namespace gp
