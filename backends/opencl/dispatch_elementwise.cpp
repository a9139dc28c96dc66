// Unary and binary elementwise ops: host-side geometry and launches of the kernels instantiated
// in unary.cl / binary.cl.
#include <algorithm>

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

// Neither input broadcast: every operand at the output element's own index.
bool same_shapes(const OpCall& call) {
  return call.input_shapes[0].numel() == call.output_shape.numel() &&
         call.input_shapes[1].numel() == call.output_shape.numel();
}

void forward_binary(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out) {
  BroadcastPlan p = broadcast_plan(call.input_shapes[0], call.input_shapes[1]);
  if (same_shapes(call)) {
    auto k = elementwise_kernel(q, "binary_fwd_same", call.kind);
    q.run_elementwise_wide(k.name.c_str(), p.numel, as_cl(in[0]), as_cl(in[1]), out, LongArg{p.numel}, k.op);
    return;
  }
  auto k = elementwise_kernel(q, "binary_fwd", call.kind);
  q.run_elementwise_wide(k.name.c_str(), p.numel, as_cl(in[0]), as_cl(in[1]), out, int4_of(p.out_dims),
                         int4_of(p.a_stride), int4_of(p.b_stride), p.numel, k.op);
}

// How a broadcast input's gradient is summed (kernels/binary.cl): tiles of 32 consecutive
// elements where the innermost dim is kept (their terms are consecutive output elements), else a
// group per element; a sum too long for about kTargetGroups groups is split into chunks of at
// least kLeastChunk terms, added up in order by a second pass.
struct BcastReduction {
  const char* kernel;
  std::int64_t chunks, chunk_terms, groups;
};
BcastReduction bcast_reduction(const BroadcastPlan& p, const Shape& input) {
  constexpr std::int64_t kColumns = 32, kTargetGroups = 1024, kLeastChunk = 4 * kWorkGroup;
  const cl_int4 in_dims = padded_dims(input);
  const bool columns = in_dims.s[3] == p.out_dims[3] && p.out_dims[3] > 1;
  const std::int64_t in_numel = input.numel(), terms = in_numel == 0 ? 0 : p.numel / in_numel;
  const std::int64_t units = columns ? (in_numel + kColumns - 1) / kColumns : in_numel;
  const std::int64_t most = std::max<std::int64_t>((terms + kLeastChunk - 1) / kLeastChunk, 1);
  const std::int64_t wanted =
      std::clamp<std::int64_t>((kTargetGroups + units - 1) / std::max<std::int64_t>(units, 1), 1, most);
  const std::int64_t chunk_terms = std::max<std::int64_t>((terms + wanted - 1) / wanted, 1);
  const std::int64_t chunks = std::max<std::int64_t>((terms + chunk_terms - 1) / chunk_terms, 1);
  return {columns ? "bcast_reduce_columns" : "bcast_reduce", chunks, chunk_terms, units * chunks};
}

void reduce_broadcast_gradient(ClQueue& q, const BroadcastPlan& p, const Shape& input, const cl::Buffer& partial,
                               ClBuffer& g) {
  const BcastReduction r = bcast_reduction(p, input);
  const std::int64_t in_numel = input.numel();
  const cl::Buffer sums = r.chunks > 1 ? q.scratch(static_cast<std::size_t>(r.chunks * in_numel)) : partial;
  q.run_per_group(r.kernel, r.groups, partial, g, sums, int4_of(p.out_dims), padded_dims(input), in_numel, r.chunks,
                  r.chunk_terms);
  if (r.chunks > 1) q.run_elementwise("bcast_sum_chunks", in_numel, sums, g, in_numel, r.chunks);
}

// Both gradients at once in the storage type when neither input is broadcast; else both partial
// gradients at output size in `real`, then each either converted (input not broadcast) or
// summed over its broadcast dims (reduce_broadcast_gradient).
void backward_binary(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& dout, Grads grads) {
  BroadcastPlan p = broadcast_plan(call.input_shapes[0], call.input_shapes[1]);
  if (same_shapes(call)) {  // a gradient not asked for goes to scratch (reals: room for any storage type)
    auto target = [&](int i) {
      return grads[i] ? as_cl(grads[i]).mem() : q.scratch(static_cast<std::size_t>(p.numel));
    };
    auto k = elementwise_kernel(q, "binary_bwd_same", call.kind);
    q.run_elementwise_wide(k.name.c_str(), p.numel, as_cl(in[0]), as_cl(in[1]), dout, target(0), target(1),
                           LongArg{p.numel}, k.op);
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
      reduce_broadcast_gradient(q, p, call.input_shapes[k], partial[k], g);
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
