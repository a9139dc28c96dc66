// The per-thread queue: its own command queue (with profiling) and its own kernel objects;
// upload / download, family dispatch, device timings and canary checks.
#include <limits>
#include <utility>

#include "backends/opencl/detail.hpp"

namespace gp::opencl {

ClQueue::ClQueue(ClBackend& backend)
    : backend_(backend), queue_(backend.context(), backend.device(), CL_QUEUE_PROFILING_ENABLE) {}

ClQueue::~ClQueue() {
  try {
    queue_.finish();
  } catch (...) {
    // Never throw from a destructor; a device error would have surfaced at finish() already.
  }
}

void ClQueue::begin_call(DType dtype, const std::string& case_id) {
  dtype_ = dtype;
  case_id_ = case_id;
  count_finished(false);
  events_.clear();
  events_taken_ = 0;
}

// An event is kept only until its kernel has finished and its time is added to timed_ns_: a queue
// whose time nobody takes (a benchmark's) holds the events of the calls still running, not of
// every call it made.
void ClQueue::count_finished(bool wait) noexcept {
  timed_.insert(timed_.end(), events_.begin() + static_cast<std::ptrdiff_t>(events_taken_), events_.end());
  events_taken_ = events_.size();
  std::erase_if(timed_, [&](cl::Event& ev) {
    try {
      if (!wait && ev.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() > CL_COMPLETE) return false;  // still running
      ev.wait();
      timed_ns_ += ev.getProfilingInfo<CL_PROFILING_COMMAND_END>() - ev.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    } catch (...) {  // a failed kernel counts nothing: its error surfaces at the next download or finish
    }
    return true;
  });
}

std::optional<double> ClQueue::take_device_seconds() noexcept {
  count_finished(true);
  return static_cast<double>(std::exchange(timed_ns_, 0)) * 1e-9;
}

cl::Kernel& ClQueue::kernel(const char* name) {
  const KernelDirPrograms* files = backend_.kernel_files();
  if (!files && testing::share_kernels_unsafely.load(std::memory_order_relaxed))
    return backend_.shared_kernel(dtype_, name, case_id_);
  auto key = std::make_pair(static_cast<int>(dtype_), std::string(name));
  auto it = kernels_.find(key);
  if (it == kernels_.end()) {
    // An op's kernel of a user's directory (supports() made sure it is there); the copy and the
    // arithmetic probe of bench come from the built-in program.
    const KernelDirPrograms::Entry* file = files ? files->find(name) : nullptr;
    it = kernels_.emplace(key, cl::Kernel(file ? file->program : backend_.program(dtype_, case_id_), name)).first;
  }
  return it->second;
}

void ClQueue::enqueue(cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local) {
  // No line to run (a per-group kernel over the rows of an empty tensor): nothing to enqueue.
  // OpenCL before 2.1 calls a global size of 0 an error (CL_INVALID_GLOBAL_WORK_SIZE).
  for (cl::size_type d = 0; d < global.dimensions(); ++d)
    if (global.get()[d] == 0) return;
  cl::Event ev;
  queue_.enqueueNDRangeKernel(k, cl::NullRange, global, local, nullptr, &ev);
  events_.push_back(ev);
}

void ClQueue::set_arg(cl::Kernel& k, cl_uint i, std::int64_t v) {
  if (v < std::numeric_limits<cl_int>::min() || v > std::numeric_limits<cl_int>::max())
    throw Error("opencl: kernel argument " + std::to_string(v) + " exceeds 32 bits [case " + case_id_ + "]");
  k.setArg(i, static_cast<cl_int>(v));
}

void ClQueue::set_arg(cl::Kernel& k, cl_uint i, RealArg v) {
  if (dtype_ == DType::f64)
    k.setArg(i, static_cast<cl_double>(v.v));
  else
    k.setArg(i, static_cast<cl_float>(v.v));
}

cl::Buffer ClQueue::scratch(std::size_t count) {
  // Released at the end of the call; OpenCL keeps it alive until the kernels using it finish.
  return cl::Buffer(backend_.context(), CL_MEM_READ_WRITE, std::max<std::size_t>(count, 1) * real_size());
}

cl::Buffer ClQueue::int_scratch(std::size_t count) {
  return cl::Buffer(backend_.context(), CL_MEM_READ_WRITE, std::max<std::size_t>(count, 1) * sizeof(cl_int));
}

void ClQueue::upload(DeviceBuffer& dst, const HostTensor& src) {
  translate_errors("", [&] {
    ClBuffer& d = as_cl(&dst);
    if (src.dtype() != d.dtype() || src.bytes() != d.bytes())
      throw Error("opencl upload: host tensor " + std::string(dtype_name(src.dtype())) + "[" + src.shape().to_string() +
                  "] does not fit buffer " + d.describe());
    prepare(d, true);
    if (src.bytes() >= kBlockingUploadBytes) {  // written before this returns, from src itself
      queue_.enqueueWriteBuffer(d.mem(), CL_TRUE, 0, src.bytes(), src.data());
    } else if (src.bytes() > 0) {
      const HostTensor& copy = uploading_.emplace_back(src);
      queue_.enqueueWriteBuffer(d.mem(), CL_FALSE, 0, copy.bytes(), copy.data());
    }
  });
}

HostTensor ClQueue::download(const DeviceBuffer& src) {
  const DeviceBuffer* one[] = {&src};
  return std::move(download_all(one).front());
}

std::vector<HostTensor> ClQueue::download_all(std::span<const DeviceBuffer* const> src) {
  return translate_errors(case_id_, [&] {
    std::vector<HostTensor> out;
    out.reserve(src.size());
    for (const DeviceBuffer* b : src) {
      const ClBuffer& s = as_cl(b);
      HostTensor& t = out.emplace_back(s.dtype(), s.shape());
      prepare(s);
      if (t.bytes() > 0) queue_.enqueueReadBuffer(s.mem(), CL_FALSE, 0, t.bytes(), t.data());
    }
    queue_.finish();
    uploading_.clear();
    gathered_.clear();
    check_guards();
    return out;
  });
}

void ClQueue::finish() {
  translate_errors(case_id_, [&] {
    queue_.finish();
    uploading_.clear();
    gathered_.clear();
    check_guards();
  });
}

std::uint64_t ClQueue::last_device_time_ns() {
  return translate_errors(case_id_, [&] {
    std::uint64_t total = 0;
    for (auto& ev : events_) {
      ev.wait();
      total += ev.getProfilingInfo<CL_PROFILING_COMMAND_END>() - ev.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    }
    return total;
  });
}

namespace {
void check_buffers(const OpCall& call, Inputs inputs) {
  if (inputs.size() != call.input_shapes.size())
    throw Error("opencl: " + std::string(op_name(call.kind)) + " got " + std::to_string(inputs.size()) +
                " buffers for " + std::to_string(call.input_shapes.size()) + " inputs [case " + call.case_id + "]");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const ClBuffer& b = as_cl(inputs[i]);
    const Shape expected = input_buffer_shape(call, i);
    if (b.shape().numel() != expected.numel() || b.dtype() != call.input_dtypes[i])
      throw Error("opencl: input " + std::to_string(i) + " buffer " + b.describe() + " does not match " +
                  std::string(dtype_name(call.input_dtypes[i])) + "[" + expected.to_string() + "] [case " +
                  call.case_id + "]");
  }
}

enum class Dispatch { elementwise, rows, linalg, optimizer };

Dispatch dispatch_of(OpKind k) {
  switch (op_family(k)) {
    case OpFamily::unary:
    case OpFamily::binary:
      return Dispatch::elementwise;
    case OpFamily::reduction:
    case OpFamily::rowwise:
    case OpFamily::loss:
      return Dispatch::rows;
    case OpFamily::linalg:
    case OpFamily::layout:
      return Dispatch::linalg;
    case OpFamily::optimizer:
      return Dispatch::optimizer;
  }
  return Dispatch::elementwise;
}
}  // namespace

void ClQueue::forward(const OpCall& call, Inputs inputs, DeviceBuffer& out) {
  translate_errors(call.case_id, [&] {
    begin_call(call.dtype, call.case_id);
    check_buffers(call, inputs);
    ClBuffer& o = as_cl(&out);
    prepare_all(inputs);
    prepare(o);
    const std::vector<const DeviceBuffer*> contiguous = gather_strided(call, inputs);
    inputs = Inputs(contiguous);
    if (backend_.kernel_files()) {
      forward_kernel_files(*this, call, inputs, o);
      watch_guards(o);
      return;
    }
    switch (dispatch_of(call.kind)) {
      case Dispatch::elementwise:
        forward_elementwise(*this, call, inputs, o);
        break;
      case Dispatch::rows:
        forward_rows(*this, call, inputs, o);
        break;
      case Dispatch::linalg:
        forward_linalg(*this, call, inputs, o);
        break;
      case Dispatch::optimizer:
        forward_optimizer(*this, call, inputs, o);
        break;
    }
    watch_guards(o);
  });
}

void ClQueue::backward(const OpCall& call, Inputs inputs, const DeviceBuffer& out, const DeviceBuffer& dout,
                       Grads grads) {
  translate_errors(call.case_id, [&] {
    begin_call(call.dtype, call.case_id);
    check_buffers(call, inputs);
    if (grads.size() != inputs.size())
      throw Error("opencl: backward needs one gradient slot per input [case " + call.case_id + "]");
    const ClBuffer& o = as_cl(&out);
    const ClBuffer& g = as_cl(&dout);
    prepare_all(inputs);
    prepare(o);
    prepare(g);
    prepare_all(Inputs(grads.data(), grads.size()));
    const std::vector<const DeviceBuffer*> contiguous = gather_strided(call, inputs);
    inputs = Inputs(contiguous);
    if (backend_.kernel_files())
      backward_kernel_files(*this, call, inputs, o, g, grads);
    else
      switch (dispatch_of(call.kind)) {
        case Dispatch::elementwise:
          backward_elementwise(*this, call, inputs, o, g, grads);
          break;
        case Dispatch::rows:
          backward_rows(*this, call, inputs, o, g, grads);
          break;
        case Dispatch::linalg:
          backward_linalg(*this, call, inputs, o, g, grads);
          break;
        case Dispatch::optimizer:
          backward_optimizer(call, grads);
          break;
      }
    for (DeviceBuffer* gb : grads)
      if (gb) watch_guards(as_cl(gb));
  });
}

std::vector<const DeviceBuffer*> ClQueue::gather_strided(const OpCall& call, Inputs inputs) {
  std::vector<const DeviceBuffer*> out(inputs.begin(), inputs.end());
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const StridedLayout* layout = input_layout(call, k);
    if (!layout) continue;
    const Shape& shape = call.input_shapes[k];
    cl_int4 dims{{1, 1, 1, 1}}, strides{{0, 0, 0, 0}};
    for (int d = 0; d < shape.rank(); ++d) {
      const int at = kMaxRank - shape.rank() + d;
      dims.s[at] = static_cast<cl_int>(shape[d]);
      strides.s[at] = static_cast<cl_int>(layout->strides[static_cast<std::size_t>(d)]);
    }
    auto& copy = gathered_.emplace_back(backend_.allocate(call.input_dtypes[k], shape));
    ClBuffer& dst = as_cl(copy.get());
    prepare(dst, true);
    run_elementwise("strided_gather", shape.numel(), as_cl(inputs[k]), dst, shape.numel(), dims, strides,
                    layout->offset);
    out[k] = copy.get();
  }
  return out;
}

void ClQueue::copy(const DeviceBuffer& src, DeviceBuffer& dst) {
  translate_errors("copy", [&] {
    const ClBuffer& s = as_cl(&src);
    ClBuffer& d = as_cl(&dst);
    if (s.bytes() != d.bytes() || s.dtype() != d.dtype()) throw Error("opencl copy: buffers differ in size or dtype");
    begin_call(s.dtype(), "copy");
    prepare(s);
    prepare(d, true);
    run_elementwise_wide("copy_store", s.shape().numel(), s, d, s.shape().numel());
    watch_guards(d);
  });
}

bool ClQueue::arithmetic_probe(DeviceBuffer& out, int steps) {
  translate_errors("arithmetic probe", [&] {
    ClBuffer& o = as_cl(&out);
    begin_call(o.dtype(), "arithmetic probe");
    prepare(o, true);
    const std::int64_t n = o.shape().numel();
    run_elementwise("arithmetic_probe", n, o, n, steps);
    watch_guards(o);
  });
  return true;
}

}  // namespace gp::opencl
