// matmul and linear through one tiled kernel (operands described by strides, so transposed
// operands of the backward pass cost no copies), log_matmul_exp and gru_cell one work item per element
// (gru_cell.cl), and the layout ops as index copies; tt_embedding in dispatch_tt_embedding.cpp.
#include "backends/opencl/detail.hpp"
#include "core/inner_split.hpp"

namespace gp::opencl {

namespace {

// A logical [rows, cols] matrix (per batch) inside a buffer: element (r, c) of batch b is at
// b * batch_stride + r * row_stride + c * col_stride.
struct Operand {
  const cl::Buffer& mem;
  std::int64_t row_stride, col_stride, batch_stride;
};

// C[b] = A[b] B[b] (+ bias[col]) with A [M, K], B [K, N], C contiguous [batch, M, N].
struct GemmSize {
  std::int64_t batch, M, N, K;
};
void gemm(ClQueue& q, const Operand& a, const Operand& b, const cl::Buffer& c, const cl::Buffer* bias,
          const GemmSize& size) {
  const auto [batch, M, N, K] = size;
  // Split K (core/inner_split.hpp, kernels/linalg.cl).
  const InnerSplit split = inner_split(batch * ((M + kTile - 1) / kTile) * ((N + kTile - 1) / kTile), K, kTile);
  const cl::Buffer partials = split.slices > 1 ? q.scratch(static_cast<std::size_t>(batch * split.slices * M * N)) : c;
  cl::NDRange global(ClQueue::round_up(N, kTile), ClQueue::round_up(M, kTile),
                     static_cast<std::size_t>(batch * split.slices));
  q.run("matmul_tiled", global, cl::NDRange(kTile, kTile, 1), a.mem, b.mem, c, bias ? *bias : c, partials, M, N, K,
        a.row_stride, a.col_stride, a.batch_stride, b.row_stride, b.col_stride, b.batch_stride, bias ? 1 : 0,
        split.slices, split.slice);
  if (split.slices > 1)
    q.run_elementwise("matmul_sum_slices", batch * M * N, partials, c, bias ? *bias : c, M, N, batch, split.slices,
                      bias ? 1 : 0);
}

// [outer, inner] around axis ax of s (the axis itself excluded).
std::pair<std::int64_t, std::int64_t> outer_inner(const Shape& s, int ax) {
  std::int64_t outer = 1, inner = 1;
  for (int i = 0; i < ax; ++i) outer *= s[i];
  for (int i = ax + 1; i < s.rank(); ++i) inner *= s[i];
  return {outer, inner};
}

struct AxisRange {  // the n positions off, off + step, ... of an axis of length len
  std::int64_t len, off, step;
};

struct AxisBlock {  // [outer, n, inner]: n positions of the axis, everything around it
  std::int64_t outer, n, inner;
};

void axis_copy(ClQueue& q, const cl::Buffer& src, AxisRange from, const cl::Buffer& dst, AxisRange to,
               const AxisBlock& block) {
  const auto [outer, n, inner] = block;
  q.run_elementwise("axis_copy", outer * n * inner, src, dst, outer, n, inner, from.len, from.off, from.step, to.len,
                    to.off, to.step);
}

std::int64_t batch_of(const Shape& s) { return s.rank() == 3 ? s[0] : 1; }

}  // namespace

void forward_linalg(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out) {
  const Shape& s = call.input_shapes[0];
  const cl::Buffer& x = as_cl(in[0]).mem();
  switch (call.kind) {
    case OpKind::matmul: {
      MatmulDims d = matmul_dims(call);
      gemm(q, {x, d.k, 1, d.m * d.k}, {as_cl(in[1]).mem(), d.n, 1, d.k * d.n}, out.mem(), nullptr,
           {d.batch, d.m, d.n, d.k});
      return;
    }
    case OpKind::linear: {  // y = x W^T + b: W [n, k] read as W^T [k, n]
      MatmulDims d = matmul_dims(call);
      const cl::Buffer& bias = as_cl(in[2]).mem();
      gemm(q, {x, d.k, 1, 0}, {as_cl(in[1]).mem(), 1, d.k, 0}, out.mem(), &bias, {1, d.m, d.n, d.k});
      return;
    }
    case OpKind::tt_embedding:
      return forward_tt_embedding(q, call, in, out);
    case OpKind::log_matmul_exp: {
      MatmulDims d = matmul_dims(call);
      q.run_elementwise("log_matmul_exp_forward", d.m * d.n, x, as_cl(in[1]), out, d.m, d.n, d.k);
      return;
    }
    case OpKind::gru_cell: {
      const GruGeometry g = gru_geometry(call);
      q.run_elementwise("gru_cell_forward", g.batch * g.hidden, x, as_cl(in[1]), as_cl(in[2]), as_cl(in[3]),
                        as_cl(in[4]), as_cl(in[5]), out, g.batch, g.input, g.hidden);
      return;
    }
    case OpKind::transpose:
      q.run_elementwise("transpose_last2", s.numel(), x, out, batch_of(s), s[s.rank() - 2], s[s.rank() - 1]);
      return;
    case OpKind::reshape:
      q.run_elementwise_wide("copy_store", s.numel(), x, out, s.numel());
      return;
    case OpKind::concat: {
      const int ax = s.axis(call.attrs.axis);
      auto [outer, inner] = outer_inner(s, ax);
      const std::int64_t total = call.output_shape[ax];
      std::int64_t off = 0;
      for (std::size_t k = 0; k < in.size(); ++k) {
        const std::int64_t nk = call.input_shapes[k][ax];
        axis_copy(q, as_cl(in[k]).mem(), {nk, 0, 1}, out.mem(), {total, off, 1}, {outer, nk, inner});
        off += nk;
      }
      return;
    }
    case OpKind::slice: {
      const int ax = s.axis(call.attrs.axis);
      auto [outer, inner] = outer_inner(s, ax);
      const std::int64_t n = call.output_shape[ax];
      axis_copy(q, x, {s[ax], call.attrs.start, call.attrs.step}, out.mem(), {n, 0, 1}, {outer, n, inner});
      return;
    }
    default:
      throw Error("opencl: no linalg/layout kernel for " + std::string(op_name(call.kind)));
  }
}

void backward_linalg(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& out, const ClBuffer& dout,
                     Grads grads) {
  const Shape& s = call.input_shapes[0];
  const cl::Buffer& x = as_cl(in[0]).mem();
  const cl::Buffer& g = dout.mem();
  switch (call.kind) {
    case OpKind::matmul: {
      MatmulDims d = matmul_dims(call);
      const cl::Buffer& b = as_cl(in[1]).mem();
      // dA [m, k] = G [m, n] B^T;  dB [k, n] = A^T G.
      if (grads[0])
        gemm(q, {g, d.n, 1, d.m * d.n}, {b, 1, d.n, d.k * d.n}, as_cl(grads[0]).mem(), nullptr,
             {d.batch, d.m, d.k, d.n});
      if (grads[1])
        gemm(q, {x, 1, d.k, d.m * d.k}, {g, d.n, 1, d.m * d.n}, as_cl(grads[1]).mem(), nullptr,
             {d.batch, d.k, d.n, d.m});
      return;
    }
    case OpKind::linear: {
      MatmulDims d = matmul_dims(call);
      // dx [m, k] = G [m, n] W [n, k];  dW [n, k] = G^T x;  db [n] = column sums of G.
      if (grads[0])
        gemm(q, {g, d.n, 1, 0}, {as_cl(in[1]).mem(), d.k, 1, 0}, as_cl(grads[0]).mem(), nullptr, {1, d.m, d.k, d.n});
      if (grads[1]) gemm(q, {g, 1, d.n, 0}, {x, d.k, 1, 0}, as_cl(grads[1]).mem(), nullptr, {1, d.n, d.k, d.m});
      if (grads[2]) sum_axis(q, dout, 1, d.m, d.n, as_cl(grads[2]));
      return;
    }
    case OpKind::tt_embedding:
      return backward_tt_embedding(q, call, in, dout, grads);
    case OpKind::log_matmul_exp: {
      MatmulDims d = matmul_dims(call);
      cl::Buffer stats = q.scratch(static_cast<std::size_t>(2 * d.m * d.n));
      q.run_elementwise("log_matmul_exp_stats", d.m * d.n, x, as_cl(in[1]), stats, d.m, d.n, d.k);
      for (int wrt_b : {0, 1})
        if (grads[wrt_b])
          q.run_elementwise("log_matmul_exp_grad", wrt_b ? d.k * d.n : d.m * d.k, x, as_cl(in[1]), stats, dout,
                            as_cl(grads[wrt_b]), d.m, d.n, d.k, wrt_b);
      return;
    }
    case OpKind::gru_cell: {  // the units' gate gradients once, then one pass per gradient
      const GruGeometry d = gru_geometry(call);
      constexpr std::int64_t kGateValues = 7;  // gru_cell.cl's GRU_GATE_VALUES
      cl::Buffer gates = q.scratch(static_cast<std::size_t>(d.batch * d.hidden * kGateValues));
      q.run_elementwise("gru_cell_gates", d.batch * d.hidden, x, as_cl(in[1]), as_cl(in[2]), as_cl(in[3]), as_cl(in[4]),
                        as_cl(in[5]), dout, gates, d.batch, d.input, d.hidden);
      for (std::size_t wrt = 0; wrt < grads.size(); ++wrt)
        if (grads[wrt])
          q.run_elementwise("gru_cell_grad", call.input_shapes[wrt].numel(), x, as_cl(in[1]), as_cl(in[2]),
                            as_cl(in[3]), dout, gates, as_cl(grads[wrt]), d.batch, d.input, d.hidden,
                            static_cast<int>(wrt));
      return;
    }
    case OpKind::concat: {  // each input's gradient is its slice of g
      const int ax = s.axis(call.attrs.axis);
      auto [outer, inner] = outer_inner(s, ax);
      const std::int64_t total = call.output_shape[ax];
      std::int64_t off = 0;
      for (std::size_t k = 0; k < in.size(); ++k) {
        const std::int64_t nk = call.input_shapes[k][ax];
        if (grads[k]) axis_copy(q, g, {total, off, 1}, as_cl(grads[k]).mem(), {nk, 0, 1}, {outer, nk, inner});
        off += nk;
      }
      return;
    }
    default:
      break;
  }
  if (!grads[0]) return;
  const cl::Buffer& dx = as_cl(grads[0]).mem();
  switch (call.kind) {
    case OpKind::transpose:  // g is [batch, cols, rows]
      q.run_elementwise("transpose_last2", s.numel(), g, dx, batch_of(s), s[s.rank() - 1], s[s.rank() - 2]);
      return;
    case OpKind::reshape:
      q.run_elementwise_wide("copy_store", s.numel(), g, dx, s.numel());
      return;
    case OpKind::slice: {
      const int ax = s.axis(call.attrs.axis);
      auto [outer, inner] = outer_inner(s, ax);
      const std::int64_t n = call.output_shape[ax];
      q.run_elementwise("fill_zero", s.numel(), dx, s.numel());
      axis_copy(q, g, {n, 0, 1}, dx, {s[ax], call.attrs.start, call.attrs.step}, {outer, n, inner});
      return;
    }
    default:
      throw Error("opencl: no linalg/layout kernel for " + std::string(op_name(call.kind)));
  }
}

}  // namespace gp::opencl
