// transpose, reshape, concat, slice and their gradients: strided copies (layout.comp); transpose
// through shared-memory tiles.
#include "core/error.hpp"
#include "dispatch.hpp"
#include "shaders/op_codes.h"

namespace gp::vk {

namespace {

struct CopyPush {
  std::uint32_t mode, count, src_base, dst_base;
  std::uint32_t dims[4], src_stride[4], dst_stride[4];
};

Spec spec_of(const CopyPush& p) { return {0, p.mode}; }

// Iterates over [outer, n, inner]; `strided` side moves through a [outer, total, inner] tensor
// starting at `start` along the axis with `step`, the other side is contiguous.
CopyPlan axis_plan(const AxisSplit& part, std::int64_t total, std::int64_t start, std::int64_t step,
                   bool strided_is_src) {
  CopyPlan p;
  p.count = u32(part.outer * part.n * part.inner);
  std::uint32_t dims[4] = {1, u32(part.outer), u32(part.n), u32(part.inner)};
  std::uint32_t contiguous[4] = {0, u32(part.n * part.inner), u32(part.inner), 1};
  std::uint32_t strided[4] = {0, u32(total * part.inner), u32(step * part.inner), 1};
  for (int i = 0; i < 4; ++i) {
    p.dims[i] = dims[i];
    p.src_stride[i] = strided_is_src ? strided[i] : contiguous[i];
    p.dst_stride[i] = strided_is_src ? contiguous[i] : strided[i];
  }
  (strided_is_src ? p.src_base : p.dst_base) = u32(start * part.inner);
  return p;
}

// True when both sides walk memory in iteration order, so dst[i] = src[i] after the bases.
bool is_contiguous(const CopyPlan& p) {
  std::uint32_t expect = 1;
  for (int i = 3; i >= 0; --i) {
    if (p.dims[i] != 1 && (p.src_stride[i] != expect || p.dst_stride[i] != expect)) return false;
    expect *= p.dims[i];
  }
  return true;
}

// `s` (rank 2 or 3) into its transpose (last two axes swapped), through shared-memory tiles.
void record_transpose(Recorder& rec, DType dtype, const VulkanBuffer& src, const VulkanBuffer& dst, const Shape& s) {
  const std::int64_t b = s.rank() == 3 ? s[0] : 1, r = s[s.rank() - 2], c = s[s.rank() - 1];
  CopyPush p{};
  p.mode = CMODE_TRANSPOSE;
  p.count = u32(b * r * c);
  p.dims[0] = 1, p.dims[1] = u32(b), p.dims[2] = u32(r), p.dims[3] = u32(c);
  const std::int64_t tiles = ((r + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE) * ((c + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE);
  rec.dispatch_groups("layout", dtype, {{0, &src}, {1, &dst}}, p, static_cast<std::uint64_t>(b * tiles));
}

// Calls f(k, part, total, offset) for each input k of a concat: its extent along the axis and
// where it starts in the output's `total`; the forward copies in, the backward copies out.
template <class F>
void for_each_concat_part(const OpCall& call, F&& f) {
  const int axis = call.output_shape.axis(call.attrs.axis);
  const std::int64_t total = call.output_shape[axis];
  std::int64_t offset = 0;
  for (std::size_t k = 0; k < call.input_shapes.size(); ++k) {
    const AxisSplit part = split_at_axis(call.input_shapes[k], axis);
    f(k, part, total, offset);
    offset += part.n;
  }
}

}  // namespace

CopyPlan flat_plan(std::int64_t n) {
  CopyPlan p;
  p.count = u32(n);
  p.dims[3] = u32(n);
  p.src_stride[3] = p.dst_stride[3] = 1;
  return p;
}

void record_copy(Recorder& rec, DType dtype, const VulkanBuffer& src, const VulkanBuffer& dst, const CopyPlan& plan) {
  CopyPush p{};
  p.mode = is_contiguous(plan) ? CMODE_CONTIGUOUS : CMODE_COPY;
  p.count = plan.count;
  p.src_base = plan.src_base;
  p.dst_base = plan.dst_base;
  for (int i = 0; i < 4; ++i)
    p.dims[i] = plan.dims[i], p.src_stride[i] = plan.src_stride[i], p.dst_stride[i] = plan.dst_stride[i];
  rec.dispatch_items("layout", dtype, {{0, &src}, {1, &dst}}, p, p.count);
}

void record_fill_zero(Recorder& rec, DType dtype, const VulkanBuffer& dst, std::uint32_t count) {
  CopyPlan plan = flat_plan(count);
  CopyPush p{};
  p.mode = CMODE_FILL_ZERO;
  p.count = count;
  for (int i = 0; i < 4; ++i) p.dims[i] = plan.dims[i], p.dst_stride[i] = plan.dst_stride[i];
  rec.dispatch_items("layout", dtype, {{1, &dst}}, p, count);
}

std::vector<const VulkanBuffer*> record_gather_strided(Recorder& rec, const OpCall& call, Inputs in) {
  std::vector<const VulkanBuffer*> out(in.begin(), in.end());
  for (std::size_t k = 0; k < in.size(); ++k) {
    const StridedLayout* layout = input_layout(call, k);
    if (!layout) continue;
    const Shape& shape = call.input_shapes[k];
    CopyPlan plan = flat_plan(shape.numel());
    plan.src_base = u32(layout->offset);
    std::int64_t contiguous = 1;
    for (int d = shape.rank() - 1; d >= 0; --d) {
      const int at = 4 - shape.rank() + d;
      plan.dims[at] = u32(shape[d]);
      plan.src_stride[at] = u32(layout->strides[static_cast<std::size_t>(d)]);
      plan.dst_stride[at] = u32(contiguous);
      contiguous *= shape[d];
    }
    VulkanBuffer& copy = rec.scratch(call.input_dtypes[k], shape.numel());
    record_copy(rec, call.input_dtypes[k], *in[k], copy, plan);
    out[k] = &copy;
  }
  return out;
}

void forward_layout(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out) {
  DType dt = call.dtype;
  switch (call.kind) {
    case OpKind::transpose:
      record_transpose(rec, dt, *in[0], out, call.input_shapes[0]);
      return;
    case OpKind::reshape:
      record_copy(rec, dt, *in[0], out, flat_plan(call.output_shape.numel()));
      return;
    case OpKind::concat:
      for_each_concat_part(call, [&](std::size_t k, const AxisSplit& part, std::int64_t total, std::int64_t offset) {
        record_copy(rec, dt, *in[k], out, axis_plan(part, total, offset, 1, false));
      });
      return;
    case OpKind::slice: {
      AxisSplit whole = split_at_axis(call.input_shapes[0], call.attrs.axis);
      AxisSplit part = split_at_axis(call.output_shape, call.attrs.axis);
      record_copy(rec, dt, *in[0], out, axis_plan(part, whole.n, call.attrs.start, call.attrs.step, true));
      return;
    }
    default:
      throw Error("vulkan backend: " + std::string(op_name(call.kind)) + " is not a layout op");
  }
}

void backward_layout(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& dout, Grads grads) {
  DType dt = call.dtype;
  switch (call.kind) {
    case OpKind::transpose:
      if (grads[0]) record_transpose(rec, dt, dout, *grads[0], call.output_shape);
      return;
    case OpKind::reshape:
      if (grads[0]) record_copy(rec, dt, dout, *grads[0], flat_plan(call.output_shape.numel()));
      return;
    case OpKind::concat:
      for_each_concat_part(call, [&](std::size_t k, const AxisSplit& part, std::int64_t total, std::int64_t offset) {
        if (grads[k]) record_copy(rec, dt, dout, *grads[k], axis_plan(part, total, offset, 1, true));
      });
      return;
    case OpKind::slice: {  // zeros, then the slice of g scattered back
      if (!grads[0]) return;
      AxisSplit whole = split_at_axis(call.input_shapes[0], call.attrs.axis);
      AxisSplit part = split_at_axis(call.output_shape, call.attrs.axis);
      record_fill_zero(rec, dt, *grads[0], u32(call.input_shapes[0].numel()));
      record_copy(rec, dt, dout, *grads[0], axis_plan(part, whole.n, call.attrs.start, call.attrs.step, false));
      return;
    }
    default:
      throw Error("vulkan backend: " + std::string(op_name(call.kind)) + " is not a layout op");
  }
}

}  // namespace gp::vk
