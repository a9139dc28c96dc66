// The layout ops (transpose, reshape, concat, slice), which only move elements.
#include <algorithm>

#include "backends/cpu/kernels/eigen_maps.hpp"
#include "backends/cpu/kernels/kernel_args.hpp"

namespace gp::cpu {

namespace {

// Swaps the last two axes of src [batch, rows, cols] into dst [batch, cols, rows].
template <typename T>
void transpose_batches(const T* src, T* dst, const Shape& src_shape) {
  int r = src_shape.rank();
  std::int64_t rows = src_shape[r - 2], cols = src_shape[r - 1];
  std::int64_t batch = r == 3 ? src_shape[0] : 1;
  for (std::int64_t b = 0; b < batch; ++b)
    Mat<T>(dst + b * rows * cols, cols, rows) = ConstMat<T>(src + b * rows * cols, rows, cols).transpose();
}

// concat: input k is the block [outer, n_k, inner] of the output [outer, sum n_k, inner].
// visit(k, input_offset, output_offset, count) for each contiguous run of input k.
template <typename Visit>
void for_each_concat_run(const OpCall& call, Visit&& visit) {
  int axis = call.input_shapes[0].axis(call.attrs.axis);
  AxisSplit all = split_at_axis(call.output_shape, axis);
  std::int64_t offset = 0;
  for (std::size_t k = 0; k < call.input_shapes.size(); ++k) {
    AxisSplit part = split_at_axis(call.input_shapes[k], axis);
    std::int64_t run = part.n * part.inner;
    for (std::int64_t o = 0; o < part.outer; ++o) visit(k, o * run, (o * all.n + offset) * all.inner, run);
    offset += part.n;
  }
}

// slice: output element (o, j, i) is input element (o, start + j*step, i). visit(in, out).
template <typename Visit>
void for_each_sliced(const OpCall& call, Visit&& visit) {
  AxisSplit in = split_at_axis(call.input_shapes[0], call.attrs.axis);
  AxisSplit out = split_at_axis(call.output_shape, call.attrs.axis);
  const OpAttrs& at = call.attrs;
  for (std::int64_t o = 0; o < out.outer; ++o)
    for (std::int64_t j = 0; j < out.n; ++j) {
      std::int64_t src = (o * in.n + at.start + j * at.step) * in.inner;
      std::int64_t dst = (o * out.n + j) * out.inner;
      for (std::int64_t i = 0; i < out.inner; ++i) visit(src + i, dst + i);
    }
}

}  // namespace

template <typename T>
void layout_forward(const ForwardArgs<T>& a) {
  const OpCall& call = a.call;
  switch (call.kind) {
    case OpKind::transpose:
      return transpose_batches(a.x[0], a.y, call.input_shapes[0]);
    case OpKind::reshape:
      std::copy_n(a.x[0], call.output_shape.numel(), a.y);
      return;
    case OpKind::concat:
      for_each_concat_run(call, [&](std::size_t k, std::int64_t in, std::int64_t out, std::int64_t count) {
        std::copy_n(a.x[k] + in, count, a.y + out);
      });
      return;
    case OpKind::slice:
      for_each_sliced(call, [&](std::int64_t src, std::int64_t dst) { a.y[dst] = a.x[0][src]; });
      return;
    default:
      fail(call, "is not a layout op");
  }
}

template <typename T>
void layout_backward(const BackwardArgs<T>& a) {
  const OpCall& call = a.call;
  T* dx = a.dx[0];
  switch (call.kind) {
    case OpKind::transpose:
      if (dx) transpose_batches(a.dy, dx, call.output_shape);
      return;
    case OpKind::reshape:
      if (dx) std::copy_n(a.dy, call.output_shape.numel(), dx);
      return;
    case OpKind::concat:  // each input's gradient is its block of dy
      for_each_concat_run(call, [&](std::size_t k, std::int64_t in, std::int64_t out, std::int64_t count) {
        if (a.dx[k]) std::copy_n(a.dy + out, count, a.dx[k] + in);
      });
      return;
    case OpKind::slice:  // scatter into a cleared gradient
      clear_gradient(dx, call.input_shapes[0].numel());
      if (dx) for_each_sliced(call, [&](std::int64_t src, std::int64_t dst) { dx[src] = a.dy[dst]; });
      return;
    default:
      fail(call, "is not a layout op");
  }
}

GP_CPU_INSTANTIATE(layout_forward, layout_backward)

}  // namespace gp::cpu
