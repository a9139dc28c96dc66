#include "core/op_work.hpp"

namespace gp {

namespace {

std::int64_t tensor_bytes(const Shape& shape, DType dtype) {
  return shape.numel() * static_cast<std::int64_t>(dtype_size(dtype));
}

std::int64_t inputs_bytes(const OpCall& call) {
  std::int64_t b = 0;
  for (std::size_t i = 0; i < call.input_shapes.size(); ++i)
    b += tensor_bytes(call.input_shapes[i], call.input_dtypes[i]);
  return b;
}

// The VJP of these ops reads the cotangent alone (core/README.md's gradient column).
bool vjp_reads_inputs(OpKind k) {
  switch (k) {
    case OpKind::neg:
    case OpKind::add:
    case OpKind::sub:
    case OpKind::sum:
    case OpKind::mean:
      return false;
    default:
      return op_family(k) != OpFamily::layout;
  }
}

std::int64_t contraction_flops(const OpCall& call) {
  if (call.kind != OpKind::matmul && call.kind != OpKind::linear) return 0;
  const MatmulDims d = matmul_dims(call);
  return 2 * d.batch * d.m * d.n * d.k;
}

}  // namespace

CallWork forward_work(const OpCall& call) {
  CallWork w{inputs_bytes(call) + tensor_bytes(call.output_shape, call.dtype), contraction_flops(call)};
  if (call.kind == OpKind::linear) w.flops += call.output_shape.numel();  // the bias
  return w;
}

CallWork backward_work(const OpCall& call) {
  CallWork w{tensor_bytes(call.output_shape, call.dtype), 2 * contraction_flops(call)};
  for (std::size_t i = 0; i < call.input_shapes.size(); ++i)
    if (input_is_differentiable(call.kind, static_cast<int>(i)))
      w.bytes += tensor_bytes(call.input_shapes[i], call.input_dtypes[i]);
  if (vjp_reads_inputs(call.kind)) w.bytes += inputs_bytes(call);
  if (call.kind == OpKind::linear) w.flops += call.output_shape.numel();  // the bias gradient's sums
  return w;
}

}  // namespace gp
