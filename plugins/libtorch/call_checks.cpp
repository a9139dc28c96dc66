// What the plugin decides before PyTorch sees a call: which row maps the op, PyTorch's view of
// the host buffers, and the calls the catalog refuses although PyTorch would run them
// (docs/invalid-calls.md): PyTorch promotes mixed dtypes, and gives NaN or -inf where a
// reduction over no element has no value; everything else it refuses itself (supports' dry run).
#include <cstddef>
#include <stdexcept>

#include "torch_ops.hpp"

namespace gp_libtorch {

const OpRow* find_row(std::string_view op) {
  for (auto rows : {elementwise_rows(), structured_rows(), optimizer_rows()})
    for (const OpRow& row : rows)
      if (row.op == op) return &row;
  return nullptr;
}

at::ScalarType scalar_type(gp_dtype dtype) {
  switch (dtype) {
    case GP_DTYPE_F16:
      return at::kHalf;
    case GP_DTYPE_BF16:
      return at::kBFloat16;
    case GP_DTYPE_F32:
      return at::kFloat;
    case GP_DTYPE_F64:
      return at::kDouble;
    case GP_DTYPE_I32:
      return at::kInt;
    default:
      throw std::invalid_argument("unknown gp_dtype " + std::to_string(dtype));
  }
}

std::vector<int64_t> sizes_of(const gp_tensor_desc& t) { return {t.dims, t.dims + t.rank}; }

at::Tensor wrap(const gp_tensor_desc& t, const void* data) {
  // from_blob never frees nor writes through the pointer unless the caller writes to the tensor.
  return at::from_blob(const_cast<void*>(data), sizes_of(t), at::TensorOptions().dtype(scalar_type(t.dtype)));
}

at::Tensor wrap_input(const gp_op_call& call, int k, const void* data) {
  const bool has_layouts = call.struct_size >= offsetof(gp_op_call, input_layouts) + sizeof call.input_layouts;
  if (!has_layouts || !call.input_layouts) return wrap(call.inputs[k], data);
  // A strided input is PyTorch's own strided view of the buffer: its kernels read it as they read
  // a transposed, sliced or expanded tensor of a model, without a copy.
  const gp_tensor_desc& t = call.inputs[k];
  const gp_tensor_layout& layout = call.input_layouts[k];
  const auto options = at::TensorOptions().dtype(scalar_type(t.dtype));
  const auto* start = static_cast<const char*>(data) +
                      layout.offset * static_cast<int64_t>(c10::elementSize(options.dtype().toScalarType()));
  return at::from_blob(const_cast<char*>(start), sizes_of(t),
                       std::vector<int64_t>(layout.strides, layout.strides + t.rank), options);
}

// gp_op_attrs has no member for the optimizers' attributes: they arrive in attrs_text only,
// printed with six significant digits; the catalog's optimizer attributes have fewer, so strtod
// reads back the catalog's double.
double text_attribute(const gp_op_call& c, std::string_view key) {
  std::string_view text = c.attrs_text;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const size_t equals = item.find('=');
    if (equals != std::string_view::npos && item.substr(0, equals) == key)
      return std::stod(std::string(item.substr(equals + 1)));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  throw std::invalid_argument(std::string(c.op) + ": no attribute " + std::string(key) + " in \"" + c.attrs_text +
                              "\"");
}

namespace {

bool op_is(const gp_op_call& c, std::string_view name) { return c.op == name; }

gp_dtype expected_input_dtype(const gp_op_call& c, int k) {
  const bool class_indices = (op_is(c, "cross_entropy") && k == 1) || (op_is(c, "tt_embedding") && k == 0);
  return class_indices ? GP_DTYPE_I32 : c.dtype;
}

// The length of the reduced axis (a rank-0 input counts as rank 1).
int64_t axis_length(const gp_op_call& c) {
  const gp_tensor_desc& x = c.inputs[0];
  if (x.rank == 0) return 1;
  const int axis = c.attrs.axis < 0 ? c.attrs.axis + x.rank : c.attrs.axis;
  return axis >= 0 && axis < x.rank ? x.dims[axis] : 1;  // out of range: PyTorch refuses it
}

int64_t numel(const gp_tensor_desc& t) {
  int64_t n = 1;
  for (int d = 0; d < t.rank; ++d) n *= t.dims[d];
  return n;
}

}  // namespace

std::optional<std::string> refused_by_catalog(const gp_op_call& c) {
  // Before anything reads an input: a wrong count would have it read past the host's array.
  const int inputs = find_row(c.op)->inputs;
  if (inputs == kTwoOrMore ? c.input_count < 2 : c.input_count != inputs)
    return std::string(c.op) + " takes " + (inputs == kTwoOrMore ? "2 or more" : std::to_string(inputs)) +
           " inputs, not " + std::to_string(c.input_count);
  if (c.dtype == GP_DTYPE_I32) return "the call's dtype i32 is not floating point";
  if (c.output.dtype != c.dtype) return "the output's dtype differs from the call's";
  for (int k = 0; k < c.input_count; ++k)
    if (c.inputs[k].dtype != expected_input_dtype(c, k))
      return "input " + std::to_string(k) + " has another dtype than the op takes there";
  const bool empty_axis = c.input_count > 0 && axis_length(c) == 0;
  if (empty_axis && (op_is(c, "mean") || op_is(c, "max") || op_is(c, "logsumexp")))
    return std::string(c.op) + " over an empty axis has no value";
  if (op_is(c, "variance") && c.input_count > 0 && axis_length(c) <= c.attrs.correction)
    return "variance over n <= correction elements has no value";
  const bool empty_rows = c.input_count > 0 && c.inputs[0].rank > 0 && c.inputs[0].dims[c.inputs[0].rank - 1] == 0;
  if (empty_rows && (op_is(c, "layer_norm") || op_is(c, "rms_norm") || op_is(c, "cross_entropy")))
    return std::string(c.op) + " over rows of no element has no value";
  const bool mean_loss =
      (op_is(c, "mse_loss") && c.attrs.loss_reduction == 0) || op_is(c, "bce_with_logits") || op_is(c, "cross_entropy");
  if (mean_loss && c.input_count > 0 && numel(c.inputs[0]) == 0) return "the mean of no element has no value";
  // torch::optim takes a learning rate of 0 (and SGD a negative weight decay); the catalog does not.
  if ((op_is(c, "sgd_step") || op_is(c, "adamw_step")) && (text_attribute(c, "lr") <= 0 || text_attribute(c, "wd") < 0))
    return std::string(c.op) + " needs lr > 0 and weight decay >= 0";
  return std::nullopt;
}

}  // namespace gp_libtorch
