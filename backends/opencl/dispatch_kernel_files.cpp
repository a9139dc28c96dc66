// A user's kernel directory (opencl-src): one kernel per op, pass and dtype, its buffers in the
// convention's order and the parameter block last (backends/kernel_files/).
#include "backends/kernel_files/params.hpp"
#include "backends/opencl/detail.hpp"

namespace gp::opencl {

namespace kf = kernel_files;

namespace {

std::string name_of(const OpCall& call, kf::Pass pass) { return kf::kernel_name({call.kind, pass, call.dtype}); }

kf::ParamBlock block_of(const OpCall& call, kf::Pass pass) {
  kf::Params p = kf::make_params(call, pass);
  if (!p.block) throw Error("opencl-src: " + p.refusal + " [case " + call.case_id + "]");  // supports() said no
  return *p.block;
}

}  // namespace

Support supports_kernel_files(const KernelDirPrograms& files, const OpCall& call) {
  const auto why = kf::refusal(
      call, [&](const std::string& name) { return files.find(name) != nullptr; }, files.dir());
  return why ? Support::no(*why) : Support::yes();
}

void forward_kernel_files(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out) {
  const kf::ParamBlock block = block_of(call, kf::Pass::forward);
  std::vector<cl::Buffer> buffers;
  for (const DeviceBuffer* b : in) buffers.push_back(as_cl(b).mem());
  buffers.push_back(out.mem());
  q.run_file_kernel(name_of(call, kf::Pass::forward), buffers, q.params_buffer_for(block), block.count[0]);
}

void backward_kernel_files(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& out, const ClBuffer& dout,
                           Grads grads) {
  const kf::ParamBlock block = block_of(call, kf::Pass::backward);
  std::vector<cl::Buffer> buffers;
  for (const DeviceBuffer* b : in) buffers.push_back(as_cl(b).mem());
  buffers.push_back(out.mem());
  buffers.push_back(dout.mem());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!input_is_differentiable(call.kind, static_cast<int>(i))) continue;
    // A gradient the caller does not want still has its place in the kernel's arguments.
    buffers.push_back(grads[i] ? as_cl(grads[i]).mem()
                               : q.scratch((in[i]->bytes() + q.real_size() - 1) / q.real_size()));
  }
  q.run_file_kernel(name_of(call, kf::Pass::backward), buffers, q.params_buffer_for(block), block.count[0]);
}

void ClQueue::run_file_kernel(const std::string& name, const std::vector<cl::Buffer>& buffers, const cl::Buffer& params,
                              std::uint32_t count) {
  if (count == 0) return;
  cl::Kernel& k = kernel(name.c_str());
  cl_uint index = 0;
  for (const cl::Buffer& b : buffers) k.setArg(index++, b);
  k.setArg(index, params);
  enqueue(k, cl::NDRange(round_up(count, kKernelFileLocal)), cl::NDRange(kKernelFileLocal));
}

cl::Buffer ClQueue::params_buffer_for(const kf::ParamBlock& block) {
  // Copied at creation: the block may go out of scope before the kernel runs.
  return cl::Buffer(backend_.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof block,
                    const_cast<kf::ParamBlock*>(&block));
}

}  // namespace gp::opencl
