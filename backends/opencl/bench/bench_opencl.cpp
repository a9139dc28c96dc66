// OpenCL backend benchmarks (Google Benchmark, never run by ctest): per op family a
// representative op forward and backward, plus a pure copy kernel as the bandwidth yardstick.
// Times are device times (CL_PROFILING_COMMAND_START/END summed over the kernels of one call),
// reported with UseManualTime; counters give bytes/s and FLOP/s.
// Sizes: 1 MiB steps x4 up to GP_BENCH_MAX_MIB (default 4, small enough for PoCL on 2 cores;
// use e.g. GP_BENCH_MAX_MIB=1024 on a GPU). GP_BENCH_DEVICE picks the OpenCL device index.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/opencl/opencl_backend.hpp"

namespace gp {
namespace {

struct BenchOp {
  std::string name;
  OpKind kind;
  OpAttrs attrs;
  std::function<std::vector<Shape>(std::int64_t elems)> shapes;
  std::function<double(std::int64_t elems)> flops;  // per forward call; backward counts 2x
};

std::int64_t row_len(std::int64_t elems) { return std::min<std::int64_t>(1024, elems); }

std::vector<BenchOp> bench_ops() {
  auto rows = [](std::int64_t e) { return std::vector<Shape>{Shape{e / row_len(e), row_len(e)}}; };
  auto per_elem = [](double f) { return [f](std::int64_t e) { return f * static_cast<double>(e); }; };
  OpAttrs last;
  last.axis = -1;
  std::vector<BenchOp> ops = {
      {"exp", OpKind::exp, {}, [](std::int64_t e) { return std::vector<Shape>{Shape{e}}; }, per_elem(1)},
      {"add_bias",
       OpKind::add,
       {},
       [](std::int64_t e) {
         return std::vector<Shape>{Shape{e / row_len(e), row_len(e)}, Shape{row_len(e)}};
       },
       per_elem(1)},
      {"sum_rows", OpKind::sum, last, rows, per_elem(1)},
      {"softmax_rows", OpKind::softmax, last, rows, per_elem(5)},
      {"layer_norm",
       OpKind::layer_norm,
       {},
       [](std::int64_t e) {
         return std::vector<Shape>{Shape{e / row_len(e), row_len(e)}, Shape{row_len(e)}, Shape{row_len(e)}};
       },
       per_elem(8)},
      {"matmul_square",
       OpKind::matmul,
       {},
       [](std::int64_t e) {
         std::int64_t n = std::max<std::int64_t>(16, static_cast<std::int64_t>(std::sqrt(double(e))) / 16 * 16);
         return std::vector<Shape>{Shape{n, n}, Shape{n, n}};
       },
       [](std::int64_t e) {
         double n = std::max<std::int64_t>(16, static_cast<std::int64_t>(std::sqrt(double(e))) / 16 * 16);
         return 2 * n * n * n;
       }},
      {"mse_loss",
       OpKind::mse_loss,
       {},
       [](std::int64_t e) {
         return std::vector<Shape>{Shape{e}, Shape{e}};
       },
       per_elem(3)},
  };
  return ops;
}

// Buffers for one op call, filled once with values inside every op's domain.
struct Prepared {
  OpCall call;
  std::vector<std::unique_ptr<DeviceBuffer>> inputs, grads;
  std::unique_ptr<DeviceBuffer> out, dout;
  std::vector<const DeviceBuffer*> in_ptrs;
  std::vector<DeviceBuffer*> grad_ptrs;
  std::size_t bytes_forward = 0, bytes_backward = 0;
};

Prepared prepare(Backend& be, Queue& q, const BenchOp& op, std::int64_t elems) {
  Prepared p;
  p.call = make_call(op.kind, op.attrs, DType::f32, op.shapes(elems), "bench-" + op.name);
  auto fill = [&](const Shape& s) {
    HostTensor t(DType::f32, s);
    for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, 0.5 + 0.001 * static_cast<double>(i % 997));
    auto b = be.allocate(DType::f32, s);
    q.upload(*b, t);
    return b;
  };
  for (const auto& s : p.call.input_shapes) {
    p.inputs.push_back(fill(s));
    p.in_ptrs.push_back(p.inputs.back().get());
    p.grads.push_back(be.allocate(DType::f32, s));
    p.grad_ptrs.push_back(p.grads.back().get());
    p.bytes_forward += p.inputs.back()->bytes();
    p.bytes_backward += 2 * p.inputs.back()->bytes();  // read input, write gradient
  }
  p.out = be.allocate(DType::f32, p.call.output_shape);
  p.dout = fill(p.call.output_shape);
  p.bytes_forward += p.out->bytes();
  p.bytes_backward += 2 * p.out->bytes();  // out and dout
  return p;
}

opencl::OpenclBackend* backend() {
  static std::unique_ptr<opencl::OpenclBackend> be = [] {
    const char* dev = std::getenv("GP_BENCH_DEVICE");
    try {
      return opencl::create_backend(dev ? std::strtoul(dev, nullptr, 10) : 0);
    } catch (const std::exception&) {
      return std::unique_ptr<opencl::OpenclBackend>{};
    }
  }();
  return be.get();
}

void run_op(benchmark::State& state, const BenchOp& op, std::int64_t elems, bool backward) {
  auto q = backend()->create_queue();
  auto* oq = static_cast<opencl::OpenclQueue*>(q.get());
  oq->set_canary_checks(false);
  Prepared p = prepare(*backend(), *q, op, elems);
  for (auto _ : state) {
    if (backward)
      q->backward(p.call, p.in_ptrs, *p.out, *p.dout, p.grad_ptrs);
    else
      q->forward(p.call, p.in_ptrs, *p.out);
    state.SetIterationTime(static_cast<double>(oq->last_device_time_ns()) * 1e-9);
  }
  double bytes = static_cast<double>(backward ? p.bytes_backward : p.bytes_forward);
  double flops = op.flops(elems) * (backward ? 2 : 1);
  state.counters["bytes/s"] = benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["FLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

void run_copy(benchmark::State& state, std::int64_t elems) {
  auto q = backend()->create_queue();
  auto* oq = static_cast<opencl::OpenclQueue*>(q.get());
  oq->set_canary_checks(false);
  auto src = backend()->allocate(DType::f32, Shape{elems});
  auto dst = backend()->allocate(DType::f32, Shape{elems});
  for (auto _ : state) {
    oq->copy(*src, *dst);
    state.SetIterationTime(static_cast<double>(oq->last_device_time_ns()) * 1e-9);
  }
  state.counters["bytes/s"] =
      benchmark::Counter(2.0 * static_cast<double>(src->bytes()), benchmark::Counter::kIsIterationInvariantRate);
}

void register_all() {
  if (!backend()) return;  // no OpenCL device: nothing to measure
  const char* max_env = std::getenv("GP_BENCH_MAX_MIB");
  const std::int64_t max_mib = max_env ? std::max(1L, std::strtol(max_env, nullptr, 10)) : 4;
  std::vector<std::int64_t> sizes;
  for (std::int64_t mib = 1; mib <= max_mib; mib *= 4) sizes.push_back(mib);
  for (std::int64_t mib : sizes) {
    const std::int64_t elems = mib * (1 << 20) / 4;
    const std::string sfx = "/" + std::to_string(mib) + "MiB";
    benchmark::RegisterBenchmark(("copy" + sfx).c_str(), [elems](benchmark::State& s) {
      run_copy(s, elems);
    })->UseManualTime();
    for (const auto& op : bench_ops())
      for (bool bwd : {false, true})
        benchmark::RegisterBenchmark((op.name + (bwd ? "/backward" : "/forward") + sfx).c_str(),
                                     [op, elems, bwd](benchmark::State& s) { run_op(s, op, elems, bwd); })
            ->UseManualTime();
  }
}

}  // namespace
}  // namespace gp

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  gp::register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
