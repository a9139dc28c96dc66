#include "reference/broadcast_slice.hpp"

#include <utility>

namespace gp::ref {

// Whether input k of a binary call is broadcast: its gradient element then sums the terms of
// every output element that reads it (reference/binary.cpp), not one term.
bool broadcast_input(const OpCall& call, int k) {
  return call.input_shapes.at(static_cast<std::size_t>(k)).numel() != call.output_shape.numel();
}

// Output element o reads element a_index(o) of a broadcast binary call's first input and
// b_index(o) of its second (the unary ops: element o of their one input).
std::vector<std::int64_t> input_elements(const OpCall& call, int k, const std::vector<std::int64_t>& outputs) {
  if (op_family(call.kind) != OpFamily::binary) return outputs;
  const BroadcastPlan plan = broadcast_plan(call.input_shapes[0], call.input_shapes[1]);
  std::vector<std::int64_t> in(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) in[i] = k == 0 ? plan.a_index(outputs[i]) : plan.b_index(outputs[i]);
  return in;
}

// The output elements that read element j of broadcast input k, in increasing order: the
// input's coordinates held, its broadcast dimensions counted through row-major (the order in
// which reference/binary.cpp adds their terms).
std::vector<std::int64_t> readers_of(const OpCall& call, int k, std::int64_t j) {
  const BroadcastPlan plan = broadcast_plan(call.input_shapes[0], call.input_shapes[1]);
  const Shape& in = call.input_shapes.at(static_cast<std::size_t>(k));
  std::int64_t in_dims[kMaxRank], coord[kMaxRank], out_stride[kMaxRank];
  for (int d = 0; d < kMaxRank; ++d) {
    const int at_in = d - (kMaxRank - in.rank());  // shapes are padded on the left, as broadcast_plan's
    in_dims[d] = at_in >= 0 ? in[at_in] : 1;
  }
  for (int d = kMaxRank - 1; d >= 0; --d) {
    coord[d] = j % in_dims[d];
    j /= in_dims[d];
    out_stride[d] = d == kMaxRank - 1 ? 1 : out_stride[d + 1] * plan.out_dims[d + 1];
  }
  std::vector<std::int64_t> out{0};
  for (int d = 0; d < kMaxRank; ++d) {
    const bool spread = in_dims[d] == 1 && plan.out_dims[d] > 1;
    std::vector<std::int64_t> next;
    next.reserve(out.size() * static_cast<std::size_t>(spread ? plan.out_dims[d] : 1));
    for (std::int64_t base : out)
      for (std::int64_t c = spread ? 0 : coord[d]; c < (spread ? plan.out_dims[d] : coord[d] + 1); ++c)
        next.push_back(base + c * out_stride[d]);
    out = std::move(next);
  }
  return out;
}

// A broadcast input's gradient element: the op over the output elements that read it, the
// input as a one-element tensor broadcast against the other's gather, so that its one gradient
// element sums the same terms in the same order.
ElementSlice broadcast_gradient_slice(const OpCall& call, int k, std::int64_t j) {
  const std::vector<std::int64_t> readers = readers_of(call, k, j);
  const int other = 1 - k;
  ElementSlice s;
  std::vector<Shape> shapes(2);
  shapes[static_cast<std::size_t>(k)] = Shape{1};
  shapes[static_cast<std::size_t>(other)] = Shape{static_cast<std::int64_t>(readers.size())};
  s.inputs.resize(2);
  s.inputs[static_cast<std::size_t>(k)] = {j};
  s.inputs[static_cast<std::size_t>(other)] = input_elements(call, other, readers);
  s.call = make_call(call.kind, call.attrs, call.dtype, std::move(shapes), call.case_id);
  s.cotangent = readers;
  return s;
}

}  // namespace gp::ref
