#include "copy_ops.hpp"

#include <cstring>

#include "status.hpp"

namespace gp_clblast {

namespace {

std::int64_t elements(const gp_tensor_desc& t) {
  std::int64_t n = 1;
  for (int32_t i = 0; i < t.rank; ++i) n *= t.dims[i];
  return n;
}

std::size_t bytes_of(const gp_op_call& call) {
  return static_cast<std::size_t>(elements(call.output)) * (call.dtype == GP_DTYPE_F64 ? 8 : 4);
}

void copy(gp_queue& q, const gp_buffer& from, const gp_buffer& to, std::size_t bytes) {
  if (bytes == 0) return;  // OpenCL refuses empty copies
  check(clEnqueueCopyBuffer(q.queue.get(), from.memory.get(), to.memory.get(), 0, 0, bytes, 0, nullptr, nullptr),
        "clEnqueueCopyBuffer");
}

}  // namespace

bool copies(const gp_op_call& call, std::string& why) {
  if (std::strcmp(call.op, "reshape") != 0) return false;
  if (call.input_count != 1 || elements(call.inputs[0]) != elements(call.output)) {
    why = "reshape: the input and the output must hold as many elements";
    return false;
  }
  return true;
}

void copy_forward(gp_queue& q, const gp_op_call& call, const gp_buffer& input, gp_buffer& out) {
  copy(q, input, out, bytes_of(call));
}

void copy_vjp(gp_queue& q, const gp_op_call& call, const gp_buffer& dout, gp_buffer* grad) {
  if (grad) copy(q, dout, *grad, bytes_of(call));
}

}  // namespace gp_clblast
