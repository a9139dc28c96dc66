// Vulkan backend benchmarks: representative ops per family, forward and backward, plus a copy
// compute shader, timed with device timestamps around each command buffer (UseManualTime).
// Reports bytes/s (tensor bytes read + written) and FLOP/s where meaningful.
//
// Sizes: --vk_mib=N or GP_VK_BENCH_MIB=N sets the main tensor size in MiB (default 1, lavapipe is
// a CPU). 256 or more on a GPU: e.g. bench_vulkan --vk_mib=256 --benchmark_filter=copy.
// --vk_repeat=N (GP_VK_BENCH_REPEAT) records each call N times into one command buffer and
// reports the mean: the steady state, without the gaps between submits.
// Registers nothing when no Vulkan device exists. Not run by ctest.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/vulkan/vulkan_backend.hpp"
#include "core/op.hpp"

namespace gp {
namespace {

std::unique_ptr<VulkanBackend> g_backend;
std::uint32_t g_repeat = 1;

std::unique_ptr<Queue> timed_queue() {
  auto q = g_backend->create_queue();
  vulkan_set_timestamps(*q, true);
  vulkan_set_repeat(*q, g_repeat);
  return q;
}

struct Spec {
  std::string name;
  OpKind kind;
  OpAttrs attrs;
  std::vector<Shape> shapes;
  double bytes_fwd, bytes_bwd;  // tensor bytes moved per call (minimum traffic)
  double flops_fwd, flops_bwd;
};

HostTensor filled(DType dt, const Shape& s, double lo, double hi) {
  HostTensor t(dt, s);
  std::uint64_t x = 88172645463325252ull;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    t.set(i, lo + (hi - lo) * static_cast<double>(x >> 11) / 9007199254740992.0);
  }
  return t;
}

void run_op(benchmark::State& state, const Spec& spec, DType dt, bool backward) {
  OpCall call = make_call(spec.kind, spec.attrs, dt, spec.shapes, spec.name);
  if (Support s = g_backend->supports(call); !s.ok) {
    state.SkipWithError(s.reason.c_str());
    return;
  }
  auto q = timed_queue();
  std::vector<std::unique_ptr<DeviceBuffer>> in, grads;
  std::vector<const DeviceBuffer*> in_ptrs;
  std::vector<DeviceBuffer*> grad_ptrs;
  for (std::size_t k = 0; k < call.input_shapes.size(); ++k) {
    in.push_back(g_backend->allocate(call.input_dtypes[k], call.input_shapes[k]));
    q->upload(*in.back(), filled(call.input_dtypes[k], call.input_shapes[k], 0.1, 2.0));
    in_ptrs.push_back(in.back().get());
    grads.push_back(g_backend->allocate(dt, call.input_shapes[k]));
    grad_ptrs.push_back(grads.back().get());
  }
  auto out = g_backend->allocate(dt, call.output_shape);
  auto dout = g_backend->allocate(dt, call.output_shape);
  q->upload(*dout, filled(dt, call.output_shape, -1, 1));
  q->forward(call, in_ptrs, *out);  // warm-up: pipeline creation
  for (auto _ : state) {
    if (backward)
      q->backward(call, in_ptrs, *out, *dout, grad_ptrs);
    else
      q->forward(call, in_ptrs, *out);
    state.SetIterationTime(vulkan_last_device_seconds(*q));
  }
  double scale = static_cast<double>(dtype_size(dt)) / 4.0;  // specs count f32 bytes
  state.SetBytesProcessed(
      static_cast<std::int64_t>(state.iterations() * (backward ? spec.bytes_bwd : spec.bytes_fwd) * scale));
  double flops = backward ? spec.flops_bwd : spec.flops_fwd;
  if (flops > 0)
    state.counters["FLOP/s"] =
        benchmark::Counter(flops * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// The copy compute shader (the bandwidth baseline) or, for comparison, vkCmdCopyBuffer.
void run_copy(benchmark::State& state, std::int64_t n, bool shader) try {
  auto q = timed_queue();
  auto src = g_backend->allocate(DType::f32, {n});
  auto dst = g_backend->allocate(DType::f32, {n});
  q->upload(*src, filled(DType::f32, {n}, 0, 1));
  auto copy = shader ? vulkan_copy_shader : vulkan_copy_transfer;
  copy(*q, *src, *dst);
  for (auto _ : state) {
    copy(*q, *src, *dst);
    state.SetIterationTime(vulkan_last_device_seconds(*q));
  }
  state.SetBytesProcessed(state.iterations() * n * 8);  // read + write
} catch (const std::exception& e) {
  state.SkipWithError(e.what());
}

void register_all(double mib) {
  const auto n = static_cast<std::int64_t>(mib * 1024 * 1024 / 4);  // f32 elements of the main tensor
  const auto cols = std::int64_t{1024}, rows = std::max<std::int64_t>(1, n / cols);
  const auto side = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
  const double B = 4.0 * static_cast<double>(n), Bm = 4.0 * static_cast<double>(rows * cols);
  const double S = static_cast<double>(side);
  std::vector<Spec> specs = {
      {"exp", OpKind::exp, {}, {{n}}, 2 * B, 3 * B, 0, 0},
      {"gelu", OpKind::gelu, {}, {{n}}, 2 * B, 3 * B, 0, 0},
      {"add_bias", OpKind::add, {}, {{rows, cols}, {cols}}, 2 * Bm, 2 * Bm, Bm / 4, 0},
      {"sum_rows", OpKind::sum, {}, {{rows, cols}}, Bm, 2 * Bm, Bm / 4, 0},
      {"softmax", OpKind::softmax, {}, {{rows, cols}}, 2 * Bm, 4 * Bm, 0, 0},
      {"layer_norm", OpKind::layer_norm, {}, {{rows, cols}, {cols}, {cols}}, 2 * Bm, 4 * Bm, 0, 0},
      {"matmul",
       OpKind::matmul,
       {},
       {{side, side}, {side, side}},
       12 * S * S,
       20 * S * S,
       2 * S * S * S,
       4 * S * S * S},
      {"transpose", OpKind::transpose, {}, {{side, side}}, 8 * S * S, 8 * S * S, 0, 0},
  };
  for (DType dt : {DType::f32, DType::f64, DType::f16}) {
    for (const auto& spec : specs) {
      for (bool bwd : {false, true}) {
        std::string name = "vulkan/" + spec.name + "/" + std::string(dtype_name(dt)) + (bwd ? "/backward" : "/forward");
        benchmark::RegisterBenchmark(name.c_str(), [spec, dt, bwd](benchmark::State& s) { run_op(s, spec, dt, bwd); })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
  for (bool shader : {true, false}) {
    std::string name = std::string("vulkan/") + (shader ? "copy_shader" : "copy_transfer") + "/f32/" +
                       std::to_string(static_cast<long>(mib)) + "MiB";
    benchmark::RegisterBenchmark(name.c_str(), [n, shader](benchmark::State& s) { run_copy(s, n, shader); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace
}  // namespace gp

int main(int argc, char** argv) {
  double mib = 1;
  if (const char* env = std::getenv("GP_VK_BENCH_MIB")) mib = std::atof(env);
  if (const char* env = std::getenv("GP_VK_BENCH_REPEAT")) gp::g_repeat = static_cast<std::uint32_t>(std::atoi(env));
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--vk_mib=", 9) == 0)
      mib = std::atof(argv[i] + 9);
    else if (std::strncmp(argv[i], "--vk_repeat=", 12) == 0)
      gp::g_repeat = static_cast<std::uint32_t>(std::atoi(argv[i] + 12));
    else
      args.push_back(argv[i]);
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  try {
    gp::BackendOptions opts;
    auto entries = gp::make_vulkan_provider().discover(opts);
    if (!entries.empty() && entries[0].create) gp::g_backend = std::make_unique<gp::VulkanBackend>(opts, 0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_vulkan: %s\n", e.what());
  }
  if (gp::g_backend)
    gp::register_all(mib > 0 ? mib : 1);
  else
    std::fprintf(stderr, "bench_vulkan: no Vulkan device, nothing registered\n");
  benchmark::RunSpecifiedBenchmarks();
  gp::g_backend.reset();
  benchmark::Shutdown();
  return 0;
}
