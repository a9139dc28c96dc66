#include "reference/element_slice.hpp"

#include <numeric>
#include <string>

#include "core/error.hpp"
#include "reference/broadcast_slice.hpp"

namespace gp::ref {

namespace {

[[noreturn]] void refuse(const OpCall& call, const std::string& why) {
  throw Error(std::string(op_name(call.kind)) + " (" + call.case_id + "): " + why);
}

bool binary_call(const OpCall& call) { return op_family(call.kind) == OpFamily::binary; }

// Whether element i of `tensor` (kOutputTensor or an input's gradient) is computed from output
// element i alone: every element of a unary op, a binary op's output and the gradient of an input
// that is not broadcast. Any set of such elements is one slice, the op over their gather.
bool pointwise_tensor(const OpCall& call, int tensor) {
  const OpFamily f = op_family(call.kind);
  if (f == OpFamily::unary) return true;
  if (f != OpFamily::binary) return false;
  return tensor == kOutputTensor || !broadcast_input(call, tensor);
}

ElementSlice gathered_elements(const OpCall& call, const std::vector<std::int64_t>& index) {
  ElementSlice s;
  const Shape shape{static_cast<std::int64_t>(index.size())};
  s.call =
      make_call(call.kind, call.attrs, call.dtype, std::vector<Shape>(call.input_shapes.size(), shape), call.case_id);
  for (int k = 0; k < static_cast<int>(call.input_shapes.size()); ++k)
    s.inputs.push_back(input_elements(call, k, index));
  s.cotangent = index;
  return s;
}

// matmul and linear (reference/linalg.cpp): every element is one dot product, a row of one
// operand against a column of the other (the bias one more term), and each gradient element is
// one too. The slice keeps the operand order of each product and the order of the terms.
//   C[b,i,j] = sum_p A[b,i,p] B[b,p,j]          slice A[b,i,:] (1 x k), B[b,:,j] (k x 1)
//   dA[b,i,p] = sum_j dC[b,i,j] B[b,p,j]        slice A[b,i,p] (1 x 1), B[b,p,:] (1 x n), dC[b,i,:]
//   dB[b,p,j] = sum_i A[b,i,p] dC[b,i,j]        slice A[b,:,p] (m x 1), B[b,p,j] (1 x 1), dC[b,:,j]
// linear's W is n x k (W[j,p] in place of B[p,j]) and its bias gradient sums a column of dY.
ElementSlice linalg_slice(const OpCall& call, int tensor, std::int64_t index) {
  const MatmulDims d = matmul_dims(call);
  const bool linear = call.kind == OpKind::linear;
  auto a_at = [&](std::int64_t b, std::int64_t i, std::int64_t p) { return (b * d.m + i) * d.k + p; };
  auto b_at = [&](std::int64_t b, std::int64_t p, std::int64_t j) {
    return linear ? j * d.k + p : (b * d.k + p) * d.n + j;
  };
  auto c_at = [&](std::int64_t b, std::int64_t i, std::int64_t j) { return (b * d.m + i) * d.n + j; };
  std::vector<std::int64_t> a, w, bias, c;
  Shape sa, sb;
  if (tensor == kOutputTensor) {
    const std::int64_t b = index / (d.m * d.n), i = index / d.n % d.m, j = index % d.n;
    for (std::int64_t p = 0; p < d.k; ++p) {
      a.push_back(a_at(b, i, p));
      w.push_back(b_at(b, p, j));
    }
    sa = Shape{1, d.k};
    sb = linear ? Shape{1, d.k} : Shape{d.k, 1};
    bias = {j};
    c = {c_at(b, i, j)};
  } else if (tensor == 0) {
    const std::int64_t b = index / (d.m * d.k), i = index / d.k % d.m, p = index % d.k;
    a = {a_at(b, i, p)};
    for (std::int64_t j = 0; j < d.n; ++j) {
      w.push_back(b_at(b, p, j));
      c.push_back(c_at(b, i, j));
      bias.push_back(j);
    }
    sa = Shape{1, 1};
    sb = linear ? Shape{d.n, 1} : Shape{1, d.n};
  } else if (tensor == 1) {
    std::int64_t b = 0, p = 0, j = 0;
    if (linear) {
      j = index / d.k;
      p = index % d.k;
    } else {
      b = index / (d.k * d.n);
      p = index / d.n % d.k;
      j = index % d.n;
    }
    for (std::int64_t i = 0; i < d.m; ++i) {
      a.push_back(a_at(b, i, p));
      c.push_back(c_at(b, i, j));
    }
    w = {b_at(b, p, j)};
    bias = {j};
    sa = Shape{d.m, 1};
    sb = Shape{1, 1};
  } else if (tensor == 2 && linear) {
    const std::int64_t j = index;
    for (std::int64_t i = 0; i < d.m; ++i) {
      a.push_back(a_at(0, i, 0));
      c.push_back(c_at(0, i, j));
    }
    w = {b_at(0, 0, j)};
    bias = {j};
    sa = Shape{d.m, 1};
    sb = Shape{1, 1};
  } else {
    refuse(call, "no tensor " + std::to_string(tensor));
  }
  ElementSlice s;
  std::vector<Shape> shapes = {sa, sb};
  s.inputs = {std::move(a), std::move(w)};
  if (linear) {
    shapes.push_back(Shape{static_cast<std::int64_t>(bias.size())});
    s.inputs.push_back(std::move(bias));
  }
  s.call = make_call(call.kind, call.attrs, call.dtype, std::move(shapes), call.case_id);
  s.cotangent = std::move(c);
  return s;
}

// The reductions and softmax / log_softmax (reference/reduction.cpp, rowwise.cpp): each line
// along attrs.axis is evaluated alone, from the same gathered row. The slice is the op over that
// line as a 1-D tensor (axis 0); a reduction's output element is its line's one value and its
// cotangent one element, a row-wise op's are the line itself.
bool reduces(OpKind op) { return op_family(op) == OpFamily::reduction; }

SliceKey axis_key(const OpCall& call, int tensor, std::int64_t index) {
  const AxisSplit s = split_at_axis(call.input_shapes[0], call.attrs.axis);
  if (tensor == kOutputTensor && reduces(call.kind)) return {index, 0};
  const std::int64_t o = index / (s.n * s.inner), j = index / s.inner % s.n, i = index % s.inner;
  return {o * s.inner + i, j};
}

ElementSlice axis_slice(const OpCall& call, int tensor, std::int64_t index) {
  const AxisSplit s = split_at_axis(call.input_shapes[0], call.attrs.axis);
  const SliceKey key = axis_key(call, tensor, index);
  const std::int64_t o = key.line / s.inner, i = key.line % s.inner;
  std::vector<std::int64_t> line(static_cast<std::size_t>(s.n));
  for (std::int64_t j = 0; j < s.n; ++j) line[static_cast<std::size_t>(j)] = (o * s.n + j) * s.inner + i;
  ElementSlice slice;
  OpAttrs attrs = call.attrs;
  attrs.axis = 0;
  slice.call = make_call(call.kind, attrs, call.dtype, {Shape{s.n}}, call.case_id);
  slice.cotangent = reduces(call.kind) ? std::vector<std::int64_t>{key.line} : line;
  slice.inputs = {std::move(line)};
  slice.element = key.element;
  return slice;
}

bool axis_op(OpKind op) { return reduces(op) || op == OpKind::softmax || op == OpKind::log_softmax; }

// layer_norm and rms_norm (reference/layer_norm.cpp) over rows of the last axis: an output or
// input gradient element is its row's (the op over that row as a 1 x N tensor, with the whole
// weight and bias); a weight or bias gradient element sums a column over every row, each term
// from its row's statistics, so its slice is the whole call, one line for the whole tensor.
bool norm_op(OpKind op) { return op == OpKind::layer_norm || op == OpKind::rms_norm; }

// The flat indices first, first + 1, ..., first + count - 1.
std::vector<std::int64_t> consecutive(std::int64_t first, std::int64_t count) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(count));
  std::iota(v.begin(), v.end(), first);
  return v;
}

bool row_of_norm(int tensor) { return tensor == kOutputTensor || tensor == 0; }

SliceKey norm_key(const OpCall& call, int tensor, std::int64_t index) {
  const std::int64_t n = call.input_shapes[0][call.input_shapes[0].rank() - 1];
  return row_of_norm(tensor) ? SliceKey{index / n, index % n} : SliceKey{0, index};
}

ElementSlice norm_slice(const OpCall& call, int tensor, std::int64_t index) {
  const std::int64_t n = call.input_shapes[0][call.input_shapes[0].rank() - 1];
  const SliceKey key = norm_key(call, tensor, index);
  ElementSlice slice;
  std::vector<Shape> shapes = call.input_shapes;
  const bool row = row_of_norm(tensor);
  if (row) shapes[0] = Shape{1, n};
  const std::int64_t x_count = row ? n : call.input_shapes[0].numel();
  slice.inputs.push_back(consecutive(row ? key.line * n : 0, x_count));
  for (std::size_t k = 1; k < call.input_shapes.size(); ++k) slice.inputs.push_back(consecutive(0, n));
  slice.cotangent = consecutive(row ? key.line * n : 0, x_count);
  slice.call = make_call(call.kind, call.attrs, call.dtype, std::move(shapes), call.case_id);
  slice.element = key.element;
  return slice;
}

// The losses (reference/loss.cpp): the output sums or averages over every element (every row of
// cross_entropy), and a mean scales every gradient element by 1 / n, so no part of the call holds
// an element's terms but the whole call: one line for every element of a tensor.
bool whole_call_op(OpKind op) { return op_family(op) == OpFamily::loss; }

ElementSlice whole_call_slice(const OpCall& call, std::int64_t index) {
  ElementSlice slice;
  slice.call = call;
  for (const Shape& s : call.input_shapes) slice.inputs.push_back(consecutive(0, s.numel()));
  slice.cotangent = consecutive(0, call.output_shape.numel());
  slice.element = index;
  return slice;
}

std::int64_t tensor_size(const OpCall& call, int tensor) {
  return tensor == kOutputTensor ? call.output_shape.numel() : call.input_shapes.at(tensor).numel();
}

void require_element(const OpCall& call, int tensor, std::int64_t index) {
  if (!has_element_slices(call)) refuse(call, "has no element slices");
  if (tensor < kOutputTensor || tensor >= static_cast<int>(call.input_shapes.size()))
    refuse(call, "no tensor " + std::to_string(tensor));
  if (index < 0 || index >= tensor_size(call, tensor))
    refuse(call, "element " + std::to_string(index) + " outside tensor " + std::to_string(tensor));
}

}  // namespace

bool has_element_slices(const OpCall& call) {
  const OpKind op = call.kind;
  return op == OpKind::matmul || op == OpKind::linear || op_family(op) == OpFamily::unary || binary_call(call) ||
         axis_op(op) || norm_op(op) || whole_call_op(op);
}

SliceKey slice_key(const OpCall& call, int tensor, std::int64_t index) {
  require_element(call, tensor, index);
  if (axis_op(call.kind)) return axis_key(call, tensor, index);
  if (norm_op(call.kind)) return norm_key(call, tensor, index);
  if (whole_call_op(call.kind)) return {0, index};
  return {index, 0};  // an element of its own
}

bool has_elementwise_slices(const OpCall& call, int tensor) { return pointwise_tensor(call, tensor); }

ElementSlice elementwise_slice(const OpCall& call, int tensor, const std::vector<std::int64_t>& index) {
  if (!pointwise_tensor(call, tensor)) refuse(call, "tensor " + std::to_string(tensor) + " is not elementwise");
  for (std::int64_t i : index) require_element(call, tensor, i);
  return gathered_elements(call, index);
}

ElementSlice element_slice(const OpCall& call, int tensor, std::int64_t index) {
  require_element(call, tensor, index);
  if (call.kind == OpKind::matmul || call.kind == OpKind::linear) return linalg_slice(call, tensor, index);
  if (axis_op(call.kind)) return axis_slice(call, tensor, index);
  if (norm_op(call.kind)) return norm_slice(call, tensor, index);
  if (whole_call_op(call.kind)) return whole_call_slice(call, index);
  if (!pointwise_tensor(call, tensor)) return broadcast_gradient_slice(call, tensor, index);
  return gathered_elements(call, {index});
}

}  // namespace gp::ref
