// Element slices: what one element of an op's output, or of one input's gradient, is computed
// from. A slice is a call of the same op at small shapes, fed a gather of the full inputs and
// cotangent, whose output or gradient holds that element's value from the same terms in the same
// order: its Tracked bound is bit for bit the full evaluation's there (tests/unit/
// test_element_slice.cpp). The large tier (docs/scale.md) evaluates its sampled elements so: a
// GEMM element is one dot product, not the whole product.
#pragma once

#include <cstdint>
#include <vector>

#include "core/op.hpp"

namespace gp::ref {

// The output (kOutputTensor) or input k's gradient (k).
inline constexpr int kOutputTensor = -1;

struct ElementSlice {
  OpCall call;                                    // the op at the slice's shapes
  std::vector<std::vector<std::int64_t>> inputs;  // per input of `call`: flat indices into the full input
  std::vector<std::int64_t> cotangent;            // flat indices into the full cotangent
  std::int64_t element = 0;                       // the element in the slice's own output / gradient
};

// Which slice holds an element and where: elements with one `line` share their slice (a row of
// a softmax, the line of a reduction), so that a sample evaluates each line once.
struct SliceKey {
  std::int64_t line = 0;
  std::int64_t element = 0;  // ElementSlice::element
};

// Whether the call has a slicing rule (a large case without one cannot be checked): matmul and
// linear, the unary and binary ops (a broadcast input's gradient element: the op over the output
// elements that read it), the reductions and softmax / log_softmax over one axis, layer_norm and
// rms_norm, the losses.
bool has_element_slices(const OpCall& call);
// The key of element `index` of `tensor`, without gathering anything.
SliceKey slice_key(const OpCall& call, int tensor, std::int64_t index);
// The slice of element `index` of `tensor` (kOutputTensor or an input's number) of `call`.
// Throws gp::Error for an op without a rule or an index outside the tensor.
ElementSlice element_slice(const OpCall& call, int tensor, std::int64_t index);

// The elementwise tensors (every tensor of a unary op; a binary op's output and the gradient of
// an input that is not broadcast): element i is computed from output element i alone, so any set
// of elements has one slice, the op over their gather, element k of it at position k.
bool has_elementwise_slices(const OpCall& call, int tensor);
// That slice of the elements `index` of `tensor`.
ElementSlice elementwise_slice(const OpCall& call, int tensor, const std::vector<std::int64_t>& index);

}  // namespace gp::ref
