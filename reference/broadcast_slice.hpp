// Element slices of binary ops with a broadcast input (reference/element_slice.hpp): output
// element o reads one element of each input, and a broadcast input's gradient element sums a term
// of every output element that reads it, in the order reference/binary.cpp adds them.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/element_slice.hpp"

namespace gp::ref {

// Whether input k of a binary call is broadcast (fewer elements than the output).
bool broadcast_input(const OpCall& call, int k);
// The elements of input k that the output elements `outputs` read (the unary ops: the same).
std::vector<std::int64_t> input_elements(const OpCall& call, int k, const std::vector<std::int64_t>& outputs);
// The output elements that read element j of broadcast input k, in increasing order.
std::vector<std::int64_t> readers_of(const OpCall& call, int k, std::int64_t j);
// The slice of element j of broadcast input k's gradient.
ElementSlice broadcast_gradient_slice(const OpCall& call, int k, std::int64_t j);

}  // namespace gp::ref
