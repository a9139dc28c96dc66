// Unary and binary elementwise ops: host-side geometry and launches of the kernels instantiated
// in unary.cl / binary.cl.
#include "backends/opencl/detail.hpp"

namespace gp::opencl {

namespace {

// The kernel of `family` ("unary_fwd", "binary_bwd", ...) for an op, and its `op` argument: the
// generic kernel and the op's code (gp_op_codes.h), or the op's own kernel.
struct ElementwiseKernel {
  std::string name;
  int op = 0;
};
ElementwiseKernel elementwise_kernel(const ClQueue& q, std::string_view family, OpKind kind) {
  if (q.generic_elementwise()) return {std::string(family) + "_any", static_cast<int>(kind)};
  return {std::string(family) + "_" + std::string(op_name(kind)), 0};
}

cl_int4 int4_of(const std::int64_t* v) {
  cl_int4 r;
  for (int i = 0; i < 4; ++i) r.s[i] = static_cast<cl_int>(v[i]);
  return r;
}

// The shape padded on the left to rank 4 with ones.
cl_int4 padded_dims(const Shape& s) {
  std::int64_t d[4] = {1, 1, 1, 1};
  for (int i = 0; i < s.rank(); ++i) d[4 - s.rank() + i] = s[i];
  return int4_of(d);
}

void forward_unary(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out) {
  const std::int64_t n = call.output_shape.numel() + testing::unary_overrun_elements.load();
  auto k = elementwise_kernel(q, "unary_fwd", call.kind);
  const UnaryScalars s = unary_scalars(call);
  q.run_elementwise_wide(k.name.c_str(), n, as_cl(in[0]), out, LongArg{n}, RealArg{s.p}, RealArg{s.a}, k.op);
}

void backward_unary(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& out, const ClBuffer& dout, Grads grads) {
  if (!grads[0]) return;
  const std::int64_t n = call.output_shape.numel();
  auto k = elementwise_kernel(q, "unary_bwd", call.kind);
  const UnaryScalars s = unary_scalars(call);
  q.run_elementwise_wide(k.name.c_str(), n, as_cl(in[0]), out, dout, as_cl(grads[0]), LongArg{n}, RealArg{s.p},
                         RealArg{s.a}, k.op);
}

void forward_binary(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out) {
  BroadcastPlan p = broadcast_plan(call.input_shapes[0], call.input_shapes[1]);
  auto k = elementwise_kernel(q, "binary_fwd", call.kind);
  q.run_elementwise_wide(k.name.c_str(), p.numel, as_cl(in[0]), as_cl(in[1]), out, int4_of(p.out_dims),
                         int4_of(p.a_stride), int4_of(p.b_stride), p.numel, k.op);
}

// Both gradients at once in the storage type when neither input is broadcast; else both partial
// gradients at output size in `real`, then each either converted (input not broadcast) or
// summed over its broadcast dims by a work-group reduction.
void backward_binary(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& dout, Grads grads) {
  BroadcastPlan p = broadcast_plan(call.input_shapes[0], call.input_shapes[1]);
  if (grads[0] && grads[1] && call.input_shapes[0].numel() == p.numel && call.input_shapes[1].numel() == p.numel) {
    auto k = elementwise_kernel(q, "binary_bwd_same", call.kind);
    q.run_elementwise_wide(k.name.c_str(), p.numel, as_cl(in[0]), as_cl(in[1]), dout, as_cl(grads[0]), as_cl(grads[1]),
                           p.numel, k.op);
    return;
  }
  cl::Buffer partial[2] = {q.scratch(static_cast<std::size_t>(p.numel)), q.scratch(static_cast<std::size_t>(p.numel))};
  auto k = elementwise_kernel(q, "binary_bwd", call.kind);
  q.run_elementwise_wide(k.name.c_str(), p.numel, as_cl(in[0]), as_cl(in[1]), dout, partial[0], partial[1],
                         int4_of(p.out_dims), int4_of(p.a_stride), int4_of(p.b_stride), p.numel, k.op);
  for (int k = 0; k < 2; ++k) {
    if (!grads[k]) continue;
    ClBuffer& g = as_cl(grads[k]);
    const std::int64_t in_numel = call.input_shapes[k].numel();
    if (in_numel == p.numel)
      q.run_elementwise("cast_real", in_numel, partial[k], g, in_numel, RealArg{1.0});
    else
      q.run_per_group("bcast_reduce", in_numel, partial[k], g, int4_of(p.out_dims), padded_dims(call.input_shapes[k]),
                      in_numel);
  }
}

}  // namespace

void forward_elementwise(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out) {
  if (op_family(call.kind) == OpFamily::binary)
    forward_binary(q, call, in, out);
  else
    forward_unary(q, call, in, out);
}

void backward_elementwise(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& out, const ClBuffer& dout,
                          Grads grads) {
  if (op_family(call.kind) == OpFamily::binary)
    backward_binary(q, call, in, dout, grads);
  else
    backward_unary(q, call, in, out, dout, grads);
}

}  // namespace gp::opencl
