// The catalog ops the libtorch plugin maps onto PyTorch, one row each: a forward written as the
// ATen calls a PyTorch user makes, or the reason PyTorch 1.13 has no such op. Backwards are never
// written here: plugin_table.cpp takes every VJP from autograd over the same forward.
#pragma once

#include <ATen/ATen.h>
#include <gradparity/plugin.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arithmetic_probe.hpp"

namespace gp_libtorch {

using Tensors = std::vector<at::Tensor>;
using ForwardFn = at::Tensor (*)(const gp_op_call& call, const Tensors& inputs);

struct OpRow {
  std::string_view op;
  int inputs;                 // the catalog's input count; kTwoOrMore for concat
  ForwardFn forward;          // null when PyTorch has no such op
  std::string_view absent;    // why not (a SKIP reason), when forward is null
  bool forward_only = false;  // the optimizers: no VJP
};
constexpr int kTwoOrMore = -2;

// The rows of each file; find_row looks through all of them.
std::span<const OpRow> elementwise_rows();  // unary and binary
std::span<const OpRow> structured_rows();   // reductions, rowwise, linalg, layout, losses
std::span<const OpRow> optimizer_rows();    // sgd_step, adamw_step: one step of torch::optim
const OpRow* find_row(std::string_view op);

// PyTorch's dtype of a gradparity dtype.
at::ScalarType scalar_type(gp_dtype dtype);
std::vector<int64_t> sizes_of(const gp_tensor_desc& t);
// A tensor over host memory the plugin does not own (rank 0 is a scalar).
at::Tensor wrap(const gp_tensor_desc& t, const void* data);
// Input k of the call over its buffer: through its layout where the call has one (ABI 5).
at::Tensor wrap_input(const gp_op_call& call, int k, const void* data);

// An attribute from attrs_text ("lr=0.05,momentum=0.9,..."), for those gp_op_attrs has no member
// for (the optimizers'); throws when the call has none of that name.
double text_attribute(const gp_op_call& call, std::string_view key);

// Why the catalog refuses a call that PyTorch would run anyway (a reduction with no value over no
// element, an input of another dtype), or nothing: supports() asks before it tries the call.
std::optional<std::string> refused_by_catalog(const gp_op_call& call);
// The call's axis attribute, unchanged (PyTorch wraps negative axes itself).
inline int64_t axis_of(const gp_op_call& call) { return call.attrs.axis; }

}  // namespace gp_libtorch
