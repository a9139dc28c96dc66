// The backend object: context, lazily built programs (with the on-disk cache), support
// decisions, buffer allocation and the canary violation log.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>

#include "backends/opencl/detail.hpp"
#include "backends/opencl/program_cache.hpp"

namespace gp::opencl {

namespace {

// Released buffers' memory kept for reuse (ClBufferPool), as the Vulkan backend keeps 256 MiB.
constexpr std::size_t kPooledBytes = std::size_t{256} << 20;
constexpr DType kVariantDtypes[4] = {DType::f32, DType::f16, DType::bf16, DType::f64};

std::string variant_define(DType d) {
  switch (d) {
    case DType::f16:
      return "GP_STORE_F16";
    case DType::bf16:
      return "GP_STORE_BF16";
    case DType::f64:
      return "GP_STORE_F64";
    default:
      return "GP_STORE_F32";
  }
}

std::string build_options(DType d, bool generic_elementwise) {
  std::string o = "-cl-std=CL1.2 -D" + variant_define(d) + " -DGP_WG=" + std::to_string(kWorkGroup) +
                  " -DGP_TILE=" + std::to_string(kTile) + " -DGP_EW_ITEMS=" + std::to_string(kElementwiseItems);
  if (generic_elementwise) o += " -DGP_GENERIC_ELEMENTWISE";
  // Without this, a literal such as 0.5 would promote float arithmetic to double.
  if (d != DType::f64) o += " -cl-single-precision-constant";
  return o;
}

const std::string& embedded_source() {
  static const std::string src = [] {
    std::string s;
    for (const auto& [name, text] : kernel_sources()) {
      s += "// ---- ";
      s += name;
      s += " ----\n";
      s += text;
      s += "\n";
    }
    return s;
  }();
  return src;
}

const std::string& program_source() {
  if (!testing::program_source_override.empty()) return testing::program_source_override;
  return embedded_source();
}

std::string build_log(const cl::Program& p, const cl::Device& d) {
  try {
    return p.getBuildInfo<CL_PROGRAM_BUILD_LOG>(d);
  } catch (...) {
    return "(no build log)";
  }
}

}  // namespace

ClBackend::ClBackend(cl::Platform platform, cl::Device device, DeviceInfo info, const BackendOptions& opts,
                     std::shared_ptr<const KernelDir> files)
    : platform_(std::move(platform)), device_(std::move(device)), info_(std::move(info)) {
  context_ = cl::Context(device_);
  std::string ext = device_.getInfo<CL_DEVICE_EXTENSIONS>();
  has_fp64_ = ext.find("cl_khr_fp64") != std::string::npos;
  generic_elementwise_ = (device_.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
  if (const char* env = std::getenv("GP_CL_GENERIC"); env && (!std::strcmp(env, "0") || !std::strcmp(env, "1")))
    generic_elementwise_ = env[0] == '1';
  std::size_t align = device_.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8;
  guard_bytes_ = std::max<std::size_t>(256, align);
  cache_dir_ = opts.cache_dir.empty() ? default_cache_dir() : opts.cache_dir + "/opencl";
  guard_image_.resize(guard_bytes_);
  for (std::size_t k = 0; k < guard_bytes_; ++k) guard_image_[k] = guard_pattern(k);
  pool_ = std::make_shared<ClBufferPool>(kPooledBytes);
  if (files) files_ = std::make_unique<const KernelDirPrograms>(*files, context_, device_);
}

ClBackend::~ClBackend() = default;

int ClBackend::variant_index(DType dtype) {
  for (int i = 0; i < 4; ++i)
    if (kVariantDtypes[i] == dtype) return i;
  throw Error("opencl: no program variant for dtype " + std::string(dtype_name(dtype)));
}

const cl::Program& ClBackend::program(DType dtype, const std::string& case_id) {
  Variant& v = variants_[static_cast<std::size_t>(variant_index(dtype))];
  std::lock_guard lock(v.mutex);
  if (!v.built) {
    v.program = build_variant(dtype, case_id);
    v.built = true;
  }
  return v.program;
}

void ClBackend::warm_up(DType dtype) {
  translate_errors("", [&] { program(dtype, ""); });
}

cl::Program ClBackend::build_variant(DType dtype, const std::string& case_id) {
  auto t0 = std::chrono::steady_clock::now();
  const std::string options = build_options(dtype, generic_elementwise_);
  const std::string& src = program_source();
  const std::string key =
      "gradparity-opencl-cache v1\ndevice=" + device_.getInfo<CL_DEVICE_NAME>() +
      "\ndevice_version=" + device_.getInfo<CL_DEVICE_VERSION>() + "\ndriver=" + device_.getInfo<CL_DRIVER_VERSION>() +
      "\nplatform=" + platform_.getInfo<CL_PLATFORM_NAME>() + " " + platform_.getInfo<CL_PLATFORM_VERSION>() +
      "\noptions=" + options + "\nsource=" + hex64(fnv1a64(src.data(), src.size())) + "\n";
  auto finish_stats = [&](int ProgramStats::*counter) {
    std::lock_guard lock(stats_mutex_);
    stats_.*counter += 1;
    stats_.build_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };

  CacheLookup cached = cache_load(cache_dir_, key);
  if (cached.status == CacheLookup::Status::ok) {
    try {
      cl::Program p(context_, {device_}, cl::Program::Binaries{cached.binary});
      p.build({device_}, options.c_str());
      finish_stats(&ProgramStats::loaded_from_cache);
      return p;
    } catch (const cl::Error&) {
      cached.status = CacheLookup::Status::rejected;  // the driver refused it: rebuild below
    }
  }
  if (cached.status == CacheLookup::Status::rejected) {
    std::lock_guard lock(stats_mutex_);
    stats_.cache_rejected += 1;
  }

  cl::Program p(context_, src);
  try {
    p.build({device_}, options.c_str());
  } catch (const cl::Error& e) {
    if (e.err() == CL_BUILD_PROGRAM_FAILURE)
      throw DeviceError("clBuildProgram", "CL_BUILD_PROGRAM_FAILURE", case_id,
                        "options '" + options + "', build log:\n" + build_log(p, device_));
    rethrow_device_error(e, case_id, build_log(p, device_));
  }
  bool cpu = (device_.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
  if (!cache_dir_.empty() && binary_cache_capture_enabled(cpu)) {
    try {
      auto binaries = p.getInfo<CL_PROGRAM_BINARIES>();
      if (!binaries.empty()) cache_store(cache_dir_, key, binaries.front());
    } catch (const cl::Error&) {
      // A device without program binaries simply is not cached.
    }
  }
  finish_stats(&ProgramStats::built_from_source);
  return p;
}

bool binary_cache_capture_enabled(bool cpu_device) {
  if (testing::force_binary_cache.load()) return true;
  if (const char* env = std::getenv("GP_OPENCL_BINARY_CACHE"); env && *env) return std::string(env) != "0";
  return !cpu_device;
}

ProgramStats ClBackend::program_stats() const {
  std::lock_guard lock(stats_mutex_);
  return stats_;
}

cl::Kernel& ClBackend::shared_kernel(DType dtype, const std::string& name, const std::string& case_id) {
  const cl::Program& p = program(dtype, case_id);
  std::lock_guard lock(shared_kernels_mutex_);
  auto key = std::make_pair(variant_index(dtype), name);
  auto it = shared_kernels_.find(key);
  if (it == shared_kernels_.end()) it = shared_kernels_.emplace(key, cl::Kernel(p, name.c_str())).first;
  return it->second;
}

Support ClBackend::supports(const OpCall& call) const {
  if (std::optional<std::string> problem = call_problem(call)) return Support::no("invalid call: " + *problem);
  if (call.dtype == DType::f64 && !has_fp64_) return Support::no("device lacks cl_khr_fp64");
  if (!is_float(call.dtype)) return Support::no("dtype must be floating point");
  for (std::size_t k = 0; k < call.input_shapes.size(); ++k) {
    if (!input_layout(call, k)) continue;
    if (call.input_dtypes[k] != call.dtype)
      return Support::no("a strided " + std::string(dtype_name(call.input_dtypes[k])) + " input (gathered in " +
                         std::string(dtype_name(call.dtype)) + "'s program)");
    if (input_buffer_shape(call, k).numel() > std::numeric_limits<std::int32_t>::max())
      return Support::no("a strided input's storage too large for 32-bit gather indices");
  }
  if (files_) return supports_kernel_files(*files_, call);
  // The kernels take int counts with headroom for their index arithmetic, except the unary ones
  // and the binary ones without a broadcast input, which index in 64 bits (kernels/unary.cl,
  // binary.cl): tensors past 2^31 elements run there.
  constexpr std::int64_t kMaxElements = std::numeric_limits<std::int32_t>::max() / 2;
  const OpFamily family = op_family(call.kind);
  const bool wide_indices = family == OpFamily::unary ||
                            (family == OpFamily::binary &&
                             std::all_of(call.input_shapes.begin(), call.input_shapes.end(),
                                         [&](const Shape& s) { return s.numel() == call.output_shape.numel(); }));
  auto too_big = [&](const Shape& s) { return !wide_indices && s.numel() > kMaxElements; };
  if (too_big(call.output_shape)) return Support::no("tensor too large for 32-bit kernel indices");
  for (const auto& s : call.input_shapes)
    if (too_big(s)) return Support::no("tensor too large for 32-bit kernel indices");
  std::size_t max_wg = device_.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  OpFamily f = op_family(call.kind);
  if (f == OpFamily::linalg && call.kind != OpKind::transpose && max_wg < std::size_t(kTile * kTile))
    return Support::no("device work-group limit below the matmul tile");
  if (max_wg < std::size_t(std::max(kWorkGroup, kElementwiseLocal)))
    return Support::no("device work-group limit below " + std::to_string(std::max(kWorkGroup, kElementwiseLocal)));
  return Support::yes();
}

std::unique_ptr<DeviceBuffer> ClBackend::allocate(DType dtype, const Shape& shape) {
  try {
    return translate_errors("", [&] {
      try {
        return std::make_unique<ClBuffer>(*this, dtype, shape);
      } catch (const cl::Error& e) {
        if (!is_out_of_memory(e.err())) throw;
        pool_->clear();  // the pool's memory may be what is missing
        return std::make_unique<ClBuffer>(*this, dtype, shape);
      }
    });
  } catch (const DeviceError& e) {
    // Larger than the device's largest allocation: for the case that asked, that is out of memory.
    if (e.error_name() == "CL_INVALID_BUFFER_SIZE")
      throw OutOfMemory(e.api_call(), e.error_name(), "",
                        std::to_string(shape.numel() * static_cast<std::int64_t>(dtype_size(dtype))) +
                            " bytes exceed the device's maximum allocation");
    throw;
  }
}

std::unique_ptr<Queue> ClBackend::create_queue() {
  return translate_errors("", [&] { return std::make_unique<ClQueue>(*this); });
}

void ClBackend::report_violation(std::string text) {
  std::lock_guard lock(violations_mutex_);
  violations_.push_back(std::move(text));
}

std::vector<std::string> ClBackend::take_canary_violations() {
  std::lock_guard lock(violations_mutex_);
  return std::exchange(violations_, {});
}

}  // namespace gp::opencl
