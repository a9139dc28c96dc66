// Work-group kernels: reductions over one axis, softmax / log_softmax / gumbel_softmax,
// layer_norm and the losses. Geometry comes from core/op.hpp split_at_axis. bspline_basis (a row
// per value, nothing to reduce) runs one work item per value.
#include <limits>

#include "backends/opencl/detail.hpp"

namespace gp::opencl {

namespace {

// reduce_fwd_NAME / reduce_bwd_NAME of reduction.cl.
std::string reduce_kernel(const char* direction, OpKind k) { return std::string(direction) + std::string(op_name(k)); }

constexpr int kRowSoftmax = 0, kRowLogSoftmax = 1;  // ROW_* in rowwise.cl

struct SoftmaxArgs {
  AxisSplit split;
  int mode;  // kRowSoftmax, kRowLogSoftmax
  bool has_noise;
  double inv_tau;
};

SoftmaxArgs softmax_args(const OpCall& call) {
  if (call.kind == OpKind::gumbel_softmax)
    return {split_at_axis(call.input_shapes[0], -1), 0, true, 1.0 / call.attrs.tau};
  return {split_at_axis(call.input_shapes[0], call.attrs.axis),
          call.kind == OpKind::log_softmax ? kRowLogSoftmax : kRowSoftmax, false, 1.0};
}

// Lines longer than this are split into chunks of kChunk elements, one work-group each
// (reduction.cl, "Long lines"); shorter ones keep one group per line.
constexpr std::int64_t kLongLine = 32768, kChunk = 4096;
constexpr int kStatSum = 0, kStatArgmax = 1, kStatExpRest = 2, kStatSqDev = 3;   // STAT_* in reduction.cl
constexpr int kRedSum = 0, kRedMean = 1, kRedMax = 2, kRedLse = 3, kRedVar = 4;  // RED_*

int reduction_mode(OpKind k) {
  switch (k) {
    case OpKind::sum:
      return kRedSum;
    case OpKind::mean:
      return kRedMean;
    case OpKind::max:
      return kRedMax;
    case OpKind::logsumexp:
      return kRedLse;
    case OpKind::variance:
      return kRedVar;
    default:
      throw Error("opencl: no reduction mode for " + std::string(op_name(k)));
  }
}

// A long line's statistics, each from its chunks' partials: s1 the sum (sum, mean, variance) or
// the maximum with its index (max, logsumexp), s2 the second phase's sum (logsumexp, variance).
struct LineStats {
  cl::Buffer s1, s1_index, s2;
};

LineStats long_line_stats(ClQueue& q, const ClBuffer& x, const AxisSplit& sp, OpKind k, bool forward) {
  if (sp.n > std::numeric_limits<std::int32_t>::max())
    throw Error("opencl: a reduction line of " + std::to_string(sp.n) + " elements (at most 2^31 - 1)");
  const std::int64_t lines = sp.outer * sp.inner;
  const int chunks = static_cast<int>((sp.n + kChunk - 1) / kChunk);
  const auto count = static_cast<std::size_t>(lines);
  LineStats st{q.scratch(count), q.int_scratch(count), q.scratch(count)};
  const bool by_max = k == OpKind::max || k == OpKind::logsumexp;
  // The backward of sum and mean reads no statistic of the line; max's its first maximum's index.
  if (!forward && (k == OpKind::sum || k == OpKind::mean)) return st;
  cl::Buffer part_v = q.scratch(count * static_cast<std::size_t>(chunks));
  cl::Buffer part_i = q.int_scratch(count * static_cast<std::size_t>(chunks));
  auto phase = [&](int stat, const cl::Buffer& out) {
    q.run_per_group("reduce_chunk", lines * chunks, x, part_v, part_i, st.s1, st.s1_index, LongArg{sp.n},
                    LongArg{sp.inner}, LongArg{kChunk}, chunks, stat);
    q.run_per_group("reduce_combine", lines, part_v, part_i, out, st.s1_index, chunks, stat);
  };
  phase(by_max ? kStatArgmax : kStatSum, st.s1);
  if (k == OpKind::logsumexp) phase(kStatExpRest, st.s2);
  if (k == OpKind::variance) phase(kStatSqDev, st.s2);
  return st;
}

void forward_long_lines(ClQueue& q, const OpCall& call, const ClBuffer& x, const AxisSplit& sp, ClBuffer& out) {
  const LineStats st = long_line_stats(q, x, sp, call.kind, true);
  const std::int64_t lines = sp.outer * sp.inner;
  q.run_elementwise("reduce_finish", lines, st.s1, st.s2, out, LongArg{lines}, LongArg{sp.n}, call.attrs.correction,
                    reduction_mode(call.kind));
}

void backward_long_lines(ClQueue& q, const OpCall& call, const ClBuffer& x, const AxisSplit& sp, const ClBuffer& out,
                         const ClBuffer& dout, ClBuffer& dx) {
  const LineStats st = long_line_stats(q, x, sp, call.kind, false);
  const std::int64_t total = sp.outer * sp.n * sp.inner;
  q.run_elementwise("reduce_bwd_long", total, x, out, dout, dx, st.s1, st.s1_index, st.s2, LongArg{total},
                    LongArg{sp.n}, LongArg{sp.inner}, call.attrs.correction, reduction_mode(call.kind));
}

// softmax and log_softmax over long lines (rowwise.cl, "softmax and log_softmax over a long
// line"): the line's maximum and the sum of the other exponentials are logsumexp's statistics;
// the backward adds the sum of g p (softmax) or of g (log_softmax), chunked the same way.
void softmax_long_lines(ClQueue& q, const ClBuffer& x, const AxisSplit& sp, int mode, ClBuffer& out) {
  const LineStats st = long_line_stats(q, x, sp, OpKind::logsumexp, true);
  const std::int64_t total = sp.outer * sp.n * sp.inner;
  q.run_elementwise("softmax_long_fwd", total, x, out, st.s1, st.s2, LongArg{total}, LongArg{sp.n}, LongArg{sp.inner},
                    mode);
}

void softmax_long_lines_bwd(ClQueue& q, const ClBuffer& x, const ClBuffer& dout, const AxisSplit& sp, int mode,
                            ClBuffer& dx) {
  const LineStats st = long_line_stats(q, x, sp, OpKind::logsumexp, true);
  const std::int64_t lines = sp.outer * sp.inner, total = lines * sp.n;
  const int chunks = static_cast<int>((sp.n + kChunk - 1) / kChunk);
  const auto parts = static_cast<std::size_t>(lines) * static_cast<std::size_t>(chunks);
  cl::Buffer part_v = q.scratch(parts), part_i = q.int_scratch(parts), dot = q.scratch(static_cast<std::size_t>(lines));
  if (mode == kRowSoftmax)
    q.run_per_group("softmax_dot_chunk", lines * chunks, x, dout, part_v, st.s1, st.s2, LongArg{sp.n},
                    LongArg{sp.inner}, LongArg{kChunk}, chunks);
  else
    q.run_per_group("reduce_chunk", lines * chunks, dout, part_v, part_i, st.s1, st.s1_index, LongArg{sp.n},
                    LongArg{sp.inner}, LongArg{kChunk}, chunks, kStatSum);
  q.run_per_group("reduce_combine", lines, part_v, part_i, dot, st.s1_index, chunks, kStatSum);
  q.run_elementwise("softmax_long_bwd", total, x, dout, dx, st.s1, st.s2, dot, LongArg{total}, LongArg{sp.n},
                    LongArg{sp.inner}, mode);
}

constexpr int kLossMse = 0, kLossBce = 1;  // LOSS_* in loss.cl

double loss_scale(const OpCall& call) {
  double n = static_cast<double>(call.input_shapes[0].numel());
  if (call.kind == OpKind::mse_loss && call.attrs.reduction == LossReduction::sum) return 1.0;
  return 1.0 / n;
}

void forward_loss(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out) {
  const ClBuffer& a = as_cl(in[0]);
  const ClBuffer& b = as_cl(in[1]);
  if (call.kind == OpKind::cross_entropy) {
    const std::int64_t B = call.input_shapes[0][0], C = call.input_shapes[0][1];
    cl::Buffer rows = q.scratch(static_cast<std::size_t>(B));
    if (C > kLongLine) {
      const LineStats st = long_line_stats(q, a, AxisSplit{B, C, 1}, OpKind::logsumexp, true);
      q.run_elementwise("ce_long_rows", B, a, b, st.s1, st.s2, rows, static_cast<int>(B), LongArg{C});
    } else {
      q.run_per_group("ce_rows", B, a, b, rows, B, C);
    }
    q.run_per_group("sum_partials", 1, rows, out, B, RealArg{1.0 / static_cast<double>(B)});
    return;
  }
  const std::int64_t n = call.input_shapes[0].numel();
  const std::int64_t groups = std::min<std::int64_t>((n + kWorkGroup - 1) / kWorkGroup, 256);
  cl::Buffer partial = q.scratch(static_cast<std::size_t>(groups));
  q.run_per_group("loss_partial", groups, a, b, partial, n, call.kind == OpKind::mse_loss ? kLossMse : kLossBce);
  q.run_per_group("sum_partials", 1, partial, out, groups, RealArg{loss_scale(call)});
}

void backward_loss(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& dout, Grads grads) {
  const ClBuffer& a = as_cl(in[0]);
  const ClBuffer& b = as_cl(in[1]);
  if (call.kind == OpKind::cross_entropy) {
    if (!grads[0]) return;
    const std::int64_t B = call.input_shapes[0][0], C = call.input_shapes[0][1];
    if (C > kLongLine) {
      const LineStats st = long_line_stats(q, a, AxisSplit{B, C, 1}, OpKind::logsumexp, true);
      q.run_elementwise("ce_long_bwd", B * C, a, b, dout, as_cl(grads[0]), st.s1, st.s2, LongArg{B * C}, LongArg{C},
                        static_cast<int>(B));
      return;
    }
    q.run_per_group("ce_bwd", B, a, b, dout, as_cl(grads[0]), B, C);
    return;
  }
  const std::int64_t n = call.input_shapes[0].numel();
  // A missing gradient gets a read-only input as placeholder; want_* = 0 keeps it unwritten.
  const ClBuffer& da = grads[0] ? as_cl(grads[0]) : a;
  const ClBuffer& db = grads[1] ? as_cl(grads[1]) : a;
  q.run_elementwise("loss_bwd", n, a, b, dout, da, db, n, call.kind == OpKind::mse_loss ? kLossMse : kLossBce,
                    RealArg{loss_scale(call)}, grads[0] ? 1 : 0, grads[1] ? 1 : 0);
}

void forward_layer_norm(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out) {
  const Shape& s = call.input_shapes[0];
  const std::int64_t n = s[s.rank() - 1], rows = s.numel() / n;
  const bool centred = call.kind == OpKind::layer_norm;  // rms_norm: no mean, no bias
  q.run_per_group("layer_norm_fwd", rows, as_cl(in[0]), as_cl(in[1]), as_cl(in[centred ? 2 : 1]), out, rows, n,
                  RealArg{call.attrs.eps}, centred ? 1 : 0);
}

void backward_layer_norm(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& dout, Grads grads) {
  const Shape& s = call.input_shapes[0];
  const std::int64_t n = s[s.rank() - 1], rows = s.numel() / n;
  const ClBuffer& x = as_cl(in[0]);
  cl::Buffer stats = q.scratch(static_cast<std::size_t>(2 * rows));
  // The x-gradient kernel also produces the row statistics, so it runs even when dx is unwanted.
  cl::Buffer dx_spare;
  if (!grads[0]) dx_spare = q.scratch(static_cast<std::size_t>(rows * n));
  const cl::Buffer& dx = grads[0] ? as_cl(grads[0]).mem() : dx_spare;
  const bool centred = call.kind == OpKind::layer_norm;  // rms_norm: no mean, no bias
  q.run_per_group("layer_norm_bwd_x", rows, x, as_cl(in[1]), dout, dx, stats, rows, n, RealArg{call.attrs.eps},
                  centred ? 1 : 0);
  const bool db_wanted = centred && grads[2];
  if (!grads[1] && !db_wanted) return;
  cl::Buffer spare = q.scratch(static_cast<std::size_t>(n));
  const cl::Buffer& dw = grads[1] ? as_cl(grads[1]).mem() : spare;
  const cl::Buffer& db = db_wanted ? as_cl(grads[2]).mem() : spare;
  q.run_per_group("layer_norm_bwd_wb", n, x, dout, stats, dw, db, rows, n);
}

}  // namespace

void sum_axis(ClQueue& q, const ClBuffer& src, std::int64_t outer, std::int64_t n, std::int64_t inner, ClBuffer& dst) {
  q.run_per_group("reduce_fwd_sum", outer * inner, src, dst, outer, n, inner, 0);
}

// Reductions name their ops in reduction.cl (GP_REDUCE_OPS); the row-wise ops and the losses
// are named here, each in its case (checked at build time: CMakeLists.txt).
void forward_rows(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out) {
  const ClBuffer& x = as_cl(in[0]);
  if (op_family(call.kind) == OpFamily::reduction) {
    AxisSplit sp = split_at_axis(call.input_shapes[0], call.attrs.axis);
    if (sp.n > kLongLine) return forward_long_lines(q, call, x, sp, out);
    q.run_per_group(reduce_kernel("reduce_fwd_", call.kind).c_str(), sp.outer * sp.inner, x, out, sp.outer, sp.n,
                    sp.inner, call.attrs.correction);
    return;
  }
  switch (call.kind) {
    case OpKind::mse_loss:
    case OpKind::cross_entropy:
    case OpKind::bce_with_logits:
      return forward_loss(q, call, in, out);
    case OpKind::layer_norm:
    case OpKind::rms_norm:
      return forward_layer_norm(q, call, in, out);
    case OpKind::bspline_basis: {
      const BsplineGeometry g = bspline_geometry(call);
      const std::int64_t n = call.input_shapes[0].numel();
      q.run_elementwise("bspline_fwd", n, x, out, n, g.order, g.grid);
      return;
    }
    case OpKind::log_softmax: {
      const AxisSplit s = softmax_args(call).split;
      if (s.n > kLongLine) return softmax_long_lines(q, x, s, softmax_args(call).mode, out);
      q.run_per_group("log_softmax_fwd", s.outer * s.inner, x, out, s.outer, s.n, s.inner);
      return;
    }
    case OpKind::softmax:
    case OpKind::gumbel_softmax: {
      const SoftmaxArgs a = softmax_args(call);
      if (!a.has_noise && a.split.n > kLongLine) return softmax_long_lines(q, x, a.split, a.mode, out);
      const ClBuffer& noise = a.has_noise ? as_cl(in[1]) : x;
      q.run_per_group("softmax_fwd", a.split.outer * a.split.inner, x, noise, out, a.split.outer, a.split.n,
                      a.split.inner, a.has_noise ? 1 : 0, RealArg{a.inv_tau});
      return;
    }
    default:
      throw Error("opencl: no row-wise kernel for " + std::string(op_name(call.kind)));
  }
}

void backward_rows(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& out, const ClBuffer& dout, Grads grads) {
  const ClBuffer& x = as_cl(in[0]);
  if (op_family(call.kind) == OpFamily::reduction) {
    if (!grads[0]) return;
    AxisSplit sp = split_at_axis(call.input_shapes[0], call.attrs.axis);
    if (sp.n > kLongLine) return backward_long_lines(q, call, x, sp, out, dout, as_cl(grads[0]));
    q.run_per_group(reduce_kernel("reduce_bwd_", call.kind).c_str(), sp.outer * sp.inner, x, out, dout, as_cl(grads[0]),
                    sp.outer, sp.n, sp.inner, call.attrs.correction);
    return;
  }
  switch (call.kind) {
    case OpKind::mse_loss:
    case OpKind::cross_entropy:
    case OpKind::bce_with_logits:
      return backward_loss(q, call, in, dout, grads);
    case OpKind::layer_norm:
    case OpKind::rms_norm:
      return backward_layer_norm(q, call, in, dout, grads);
    case OpKind::bspline_basis: {
      if (!grads[0]) return;
      const BsplineGeometry g = bspline_geometry(call);
      const std::int64_t n = call.input_shapes[0].numel();
      q.run_elementwise("bspline_bwd", n, x, dout, as_cl(grads[0]), n, g.order, g.grid);
      return;
    }
    case OpKind::softmax:
    case OpKind::log_softmax:
    case OpKind::gumbel_softmax: {
      if (!grads[0]) return;
      const SoftmaxArgs a = softmax_args(call);
      if (!a.has_noise && a.split.n > kLongLine)
        return softmax_long_lines_bwd(q, x, dout, a.split, a.mode, as_cl(grads[0]));
      const ClBuffer& noise = a.has_noise ? as_cl(in[1]) : x;
      q.run_per_group("softmax_bwd", a.split.outer * a.split.inner, x, noise, dout, as_cl(grads[0]), a.split.outer,
                      a.split.n, a.split.inner, a.mode, a.has_noise ? 1 : 0, RealArg{a.inv_tau});
      return;
    }
    default:
      throw Error("opencl: no row-wise kernel for " + std::string(op_name(call.kind)));
  }
}

}  // namespace gp::opencl
