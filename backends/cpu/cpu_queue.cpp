#include "backends/cpu/cpu_queue.hpp"

#include <Eigen/Core>
#include <cstring>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/cpu_buffer.hpp"
#include "backends/cpu/kernels/kernel_args.hpp"
#include "backends/cpu/staging.hpp"
#include "core/host_bytes.hpp"

namespace gp::cpu {

namespace {

std::string describe(const DeviceBuffer& b) { return std::string(dtype_name(b.dtype())) + " " + b.shape().to_string(); }

// Every buffer handed to this backend must be one of its own, of the dtype and shape the call
// expects.
const CpuBuffer& checked(const OpCall& call, const DeviceBuffer* b, DType dtype, const Shape& shape,
                         const std::string& role) {
  const auto* cpu = dynamic_cast<const CpuBuffer*>(b);
  if (!cpu) fail(call, role + " is " + (b ? "not a CPU buffer" : "missing"));
  if (cpu->dtype() != dtype || cpu->shape() != shape)
    fail(call,
         role + " is " + describe(*cpu) + ", expected " + std::string(dtype_name(dtype)) + " " + shape.to_string());
  return *cpu;
}

CpuBuffer& writable(const CpuBuffer& b) { return const_cast<CpuBuffer&>(b); }

// The buffers of one command, checked; `roles` names them in canary reports.
struct Bound {
  std::vector<const CpuBuffer*> inputs;
  std::vector<CpuBuffer*> grads;  // backward only; nullptr where no gradient is wanted
  std::vector<std::pair<CpuBuffer*, std::string>> watched;
  std::vector<std::unique_ptr<CpuBuffer>> gathered;  // contiguous copies of strided inputs
};

Bound bind_inputs(const CpuBackend& backend, const OpCall& call, std::span<const DeviceBuffer* const> inputs) {
  if (Support s = backend.supports(call); !s.ok) fail(call, "not supported: " + s.reason);
  if (inputs.size() != call.input_shapes.size())
    fail(call,
         std::to_string(inputs.size()) + " input buffers for " + std::to_string(call.input_shapes.size()) + " inputs");
  Bound b;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    std::string role = "input " + std::to_string(k);
    const CpuBuffer& in = checked(call, inputs[k], call.input_dtypes[k], input_buffer_shape(call, k), role);
    b.watched.emplace_back(&writable(in), role);
    if (const StridedLayout* layout = input_layout(call, k)) {
      // A strided input is gathered into a contiguous copy first, as a framework's .contiguous().
      auto& copy = b.gathered.emplace_back(std::make_unique<CpuBuffer>(in.dtype(), call.input_shapes[k]));
      gather_strided(in.data(), copy->data(), dtype_size(in.dtype()), call.input_shapes[k], *layout);
      b.inputs.push_back(copy.get());
    } else {
      b.inputs.push_back(&in);
    }
  }
  return b;
}

// Checks the guards of every buffer of the command and records what is damaged.
void check_canaries(CpuBackend& backend, const OpCall& call, Bound& b) {
  for (auto& [buffer, role] : b.watched)
    if (auto damage = buffer->check_guards())
      backend.record_canary_violation("case " + call.case_id + ": " + std::string(op_name(call.kind)) + " " + role +
                                      " (" + describe(*buffer) + ", " + std::to_string(buffer->bytes()) +
                                      " bytes): " + *damage);
}

// Runs `body`, then checks the canaries even when the body threw, so an out-of-bounds write
// before a failure is still reported.
template <typename Body>
void run_checked(CpuBackend& backend, const OpCall& call, Bound& b, Body&& body) {
  try {
    body();
  } catch (...) {
    check_canaries(backend, call, b);
    throw;
  }
  check_canaries(backend, call, b);
}

template <typename T>
void run_forward(const OpCall& call, const Bound& b, CpuBuffer& out) {
  Staging<T> staging;
  ForwardArgs<T> args{call};
  for (const CpuBuffer* in : b.inputs) {
    bool labels = in->dtype() == DType::i32;
    args.x.push_back(labels ? nullptr : staging.input(*in));
    if (labels) args.labels = reinterpret_cast<const std::int32_t*>(in->data());
  }
  args.y = staging.output(out);
  dispatch_forward(args);
  staging.commit();
}

template <typename T>
void run_backward(const OpCall& call, const Bound& b, const CpuBuffer& out, const CpuBuffer& dout) {
  Staging<T> staging;
  BackwardArgs<T> args{call};
  for (std::size_t k = 0; k < b.inputs.size(); ++k) {
    const CpuBuffer* in = b.inputs[k];
    CpuBuffer* grad = b.grads[k];
    bool labels = in->dtype() == DType::i32;
    args.x.push_back(labels ? nullptr : staging.input(*in));
    if (labels) args.labels = reinterpret_cast<const std::int32_t*>(in->data());
    // Inputs without a gradient (i32 targets, gumbel noise) still get fully written buffers.
    bool differentiable = !labels && input_is_differentiable(call.kind, static_cast<int>(k));
    if (grad && !differentiable) std::memset(grad->data(), 0, grad->bytes());
    args.dx.push_back(grad && differentiable ? staging.output(*grad) : nullptr);
  }
  args.y = staging.input(out);
  args.dy = staging.input(dout);
  dispatch_backward(args);
  staging.commit();
}

}  // namespace

void CpuQueue::upload(DeviceBuffer& dst, const HostTensor& src) {
  auto* cpu = dynamic_cast<CpuBuffer*>(&dst);
  if (!cpu) throw Error("cpu backend: upload into a buffer of another backend");
  if (cpu->dtype() != src.dtype() || cpu->shape() != src.shape())
    throw Error("cpu backend: upload of " + std::string(dtype_name(src.dtype())) + " " + src.shape().to_string() +
                " into a " + describe(*cpu) + " buffer");
  copy_bytes(cpu->data(), src.data(), src.bytes());
}

HostTensor CpuQueue::download(const DeviceBuffer& src) {
  const auto* cpu = dynamic_cast<const CpuBuffer*>(&src);
  if (!cpu) throw Error("cpu backend: download from a buffer of another backend");
  HostTensor t(cpu->dtype(), cpu->shape());
  copy_bytes(t.data(), cpu->data(), t.bytes());
  return t;
}

void CpuQueue::forward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, DeviceBuffer& out) {
  Bound b = bind_inputs(backend_, call, inputs);
  CpuBuffer& y = writable(checked(call, &out, call.dtype, call.output_shape, "output"));
  b.watched.emplace_back(&y, "output");
  run_checked(backend_, call, b, [&] {
    if (call.dtype == DType::f64)
      run_forward<double>(call, b, y);
    else
      run_forward<float>(call, b, y);  // f32, and f16/bf16 staged through float
  });
}

void CpuQueue::backward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, const DeviceBuffer& out,
                        const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
  Bound b = bind_inputs(backend_, call, inputs);
  const CpuBuffer& y = checked(call, &out, call.dtype, call.output_shape, "output");
  const CpuBuffer& dy = checked(call, &dout, call.dtype, call.output_shape, "dout");
  if (grads.size() != inputs.size())
    fail(call, std::to_string(grads.size()) + " gradient slots for " + std::to_string(inputs.size()) + " inputs");
  for (std::size_t k = 0; k < grads.size(); ++k) {
    if (!grads[k]) {
      b.grads.push_back(nullptr);
      continue;
    }
    std::string role = "grad " + std::to_string(k);
    CpuBuffer& g = writable(checked(call, grads[k], call.input_dtypes[k], call.input_shapes[k], role));
    b.grads.push_back(&g);
    b.watched.emplace_back(&g, role);
  }
  b.watched.emplace_back(&writable(y), "output");
  b.watched.emplace_back(&writable(dy), "dout");
  run_checked(backend_, call, b, [&] {
    if (call.dtype == DType::f64)
      run_backward<double>(call, b, y, dy);
    else
      run_backward<float>(call, b, y, dy);
  });
}

namespace {

// Thirty-two independent chains per element, in an Eigen array the compiled SIMD splits into
// eight SSE registers: enough multiply-adds in flight that the loop is bound by their rate, not
// by one chain's latency, and few enough that nothing spills (measured on the 2-core machine:
// 8 chains 5.9 GFLOP/s, 32 chains 36.6, 48 chains 33.8, 64 chains 28.1).
template <typename T>
void arithmetic_chains(T* out, std::int64_t n, int steps) {
  using Lane = Eigen::Array<T, 32, 1>;
  const Lane a = Lane::Constant(T(0.999999)), b = Lane::Constant(T(1e-6));
  for (std::int64_t i = 0; i < n; ++i) {
    Lane x = Lane::LinSpaced(T(1), T(2)) + T(i % 7);
    for (int s = 0; s < steps; s += 32) x = x * a + b;
    out[i] = x.sum();
  }
}

}  // namespace

bool CpuQueue::arithmetic_probe(DeviceBuffer& out, int steps) {
  auto* cpu = dynamic_cast<CpuBuffer*>(&out);
  if (!cpu) throw Error("cpu backend: arithmetic probe into a buffer of another backend");
  const std::int64_t n = cpu->shape().numel();
  if (cpu->dtype() == DType::f64) {
    arithmetic_chains(reinterpret_cast<double*>(cpu->data()), n, steps);
  } else {
    Staging<float> staging;  // 16-bit dtypes compute in float, like every kernel here
    arithmetic_chains(staging.output(*cpu), n, steps);
    staging.commit();
  }
  return true;
}

}  // namespace gp::cpu
