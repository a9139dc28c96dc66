#include "backends/plugin/plugin_call.hpp"

#include <algorithm>

namespace gp::plugin {

gp_dtype to_c(DType t) {
  switch (t) {
    case DType::f16:
      return GP_DTYPE_F16;
    case DType::bf16:
      return GP_DTYPE_BF16;
    case DType::f32:
      return GP_DTYPE_F32;
    case DType::f64:
      return GP_DTYPE_F64;
    case DType::i32:
      return GP_DTYPE_I32;
  }
  return -1;
}

gp_tensor_desc describe(DType t, const Shape& s) {
  static_assert(kMaxRank <= GP_MAX_RANK, "the ABI's tensors hold every catalog rank");
  gp_tensor_desc d{};
  d.dtype = to_c(t);
  d.rank = static_cast<std::int32_t>(s.rank());
  for (int i = 0; i < s.rank(); ++i) d.dims[i] = s[i];
  return d;
}

namespace {

gp_op_attrs attrs_to_c(const OpAttrs& a) {
  gp_op_attrs c{};
  c.p = a.p;
  c.alpha = a.alpha;
  c.gelu_approx = a.gelu == GeluApprox::tanh ? 1 : 0;
  c.axis = a.axis;
  c.keepdim = a.keepdim ? 1 : 0;
  c.correction = a.correction;
  c.eps = a.eps;
  c.reshape_rank = static_cast<std::int32_t>(std::min<std::size_t>(a.shape.size(), GP_MAX_RANK));
  std::copy_n(a.shape.begin(), c.reshape_rank, c.reshape);
  c.slice_start = a.start;
  c.slice_stop = a.stop;
  c.slice_step = a.step;
  c.loss_reduction = a.reduction == LossReduction::sum ? 1 : 0;
  c.tau = a.tau;
  c.order = a.order;
  c.grid = a.grid;
  return c;
}

}  // namespace

CCall::CCall(const OpCall& call)
    : op_(op_name(call.kind)), attrs_text_(attrs_to_string(call.kind, call.attrs)), case_id_(call.case_id) {
  for (std::size_t k = 0; k < call.input_shapes.size(); ++k)
    inputs_.push_back(describe(k < call.input_dtypes.size() ? call.input_dtypes[k] : call.dtype, call.input_shapes[k]));
  call_.struct_size = sizeof(gp_op_call);
  call_.op = op_.c_str();
  call_.dtype = to_c(call.dtype);
  call_.input_count = static_cast<std::int32_t>(inputs_.size());
  call_.inputs = inputs_.data();
  call_.output = describe(call.dtype, call.output_shape);
  call_.attrs = attrs_to_c(call.attrs);
  call_.attrs_text = attrs_text_.c_str();
  call_.case_id = case_id_.c_str();
  if (!has_strided_input(call)) return;  // input_layouts stays NULL
  for (std::size_t k = 0; k < call.input_shapes.size(); ++k) {
    gp_tensor_layout l{};
    const Shape& s = call.input_shapes[k];
    if (const StridedLayout* layout = input_layout(call, k)) {
      l.offset = layout->offset;
      std::copy(layout->strides.begin(), layout->strides.end(), l.strides);
    } else {
      std::int64_t stride = 1;
      for (int d = s.rank() - 1; d >= 0; --d) {
        l.strides[d] = stride;
        stride *= s[d];
      }
    }
    layouts_.push_back(l);
  }
  call_.input_layouts = layouts_.data();
}

}  // namespace gp::plugin
