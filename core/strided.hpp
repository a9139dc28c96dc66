// Strided inputs (docs/strided-inputs.md): an input a kernel reads through strides rather than
// as a contiguous row-major tensor, as a framework hands a transposed, sliced or broadcast-expanded
// view to a library without copying it. The input's values (what the reference sees) are its
// logical tensor; its buffer holds the storage the strides walk, with elements no index reaches
// in between. Outputs, cotangents and gradients stay contiguous.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/shape.hpp"
#include "core/tensor.hpp"

namespace gp {

struct OpCall;

// Element (i0, ..., ir-1) of the logical tensor lies at buffer element offset + Σ i_d·strides[d].
// A stride may be 0 (an expanded dimension: every index reads one element). Where a layout makes
// elements share a place in other ways, the functions below treat them alike: the last element
// written in row-major order is the one every sharer reads.
struct StridedLayout {
  std::vector<std::int64_t> strides;  // one per dimension, in elements, each >= 0
  std::int64_t offset = 0;            // of element (0, ..., 0), in elements
  bool operator==(const StridedLayout&) const = default;
};

// "strides=1x16,offset=0" for messages.
std::string describe(const StridedLayout& layout);
// Why `layout` does not describe a view of `shape`, or nothing: a stride count other than the
// rank, a negative stride or offset.
std::optional<std::string> layout_problem(const Shape& shape, const StridedLayout& layout);
// The elements a buffer holding `shape` as `layout` needs (0 for an empty shape).
std::int64_t storage_elements(const Shape& shape, const StridedLayout& layout);

// Input k's layout, or nullptr where it is contiguous.
const StridedLayout* input_layout(const OpCall& call, std::size_t k);
bool has_strided_input(const OpCall& call);
// The shape of the buffer input k is given in: [storage_elements] for a strided input, else its shape.
Shape input_buffer_shape(const OpCall& call, std::size_t k);

// Copies the logical tensor of `shape` out of `storage` (elements of `element_bytes` bytes) into
// the contiguous `dst`; `scatter_strided` is its inverse, writing each logical element to its
// place (where dimensions alias, the last index in row-major order wins).
void gather_strided(const std::byte* storage, std::byte* dst, std::size_t element_bytes, const Shape& shape,
                    const StridedLayout& layout);
void scatter_strided(const std::byte* src, std::byte* storage, std::size_t element_bytes, const Shape& shape,
                     const StridedLayout& layout);

// The storage of `logical` as `layout`: `background` (storage_elements long, e.g. poison), with
// every logical element written to its place.
HostTensor to_storage(const HostTensor& logical, const StridedLayout& layout, HostTensor background);
HostTensor from_storage(const HostTensor& storage, const Shape& shape, const StridedLayout& layout);
// `logical` as the view can hold it: where dimensions alias (a stride of 0), every index reads
// the element the last of them wrote. A tensor a strided input can be given is its own view.
HostTensor as_viewed(const HostTensor& logical, const StridedLayout& layout);
// The same for values in double, one per element of `shape` (a finite-difference direction).
void keep_viewable(std::vector<double>& values, const Shape& shape, const StridedLayout& layout);

}  // namespace gp
