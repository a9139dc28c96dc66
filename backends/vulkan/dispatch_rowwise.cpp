// Reductions over one axis, softmax / log_softmax / gumbel_softmax, layer_norm and the losses
// (rowwise.comp: one work group per row of core's split_at_axis view, or per chunk of a long
// row); bspline_basis, one invocation per value (its row of bases needs no reduction).
#include <vector>

#include "core/error.hpp"
#include "dispatch.hpp"
#include "shaders/op_codes.h"

namespace gp::vk {

namespace {

struct RowPush {
  std::uint32_t op, backward, outer, n, inner;
  std::int32_t correction;
  std::uint32_t mean_reduction, chunk_rows;
  AttrBits eps, tau;
  float eps_f, tau_f;
  std::uint32_t order, grid;            // bspline_basis
  std::uint32_t chunks = 1, phase = 0;  // a long row's groups, and the phase of this dispatch
};

Spec spec_of(const RowPush& p) { return {p.op, p.backward}; }

// The shader's op code: the op's catalog code (gp_op_codes.h).
std::uint32_t row_code(OpKind k) {
  const OpFamily f = op_family(k);
  if (f != OpFamily::reduction && f != OpFamily::rowwise && f != OpFamily::loss)
    throw Error("vulkan backend: " + std::string(op_name(k)) + " is not a row-wise op");
  return static_cast<std::uint32_t>(k);
}

// Scratch values are kept in the compute type: f64 for f64, f32 otherwise.

RowPush row_push(const OpCall& c, bool backward) {
  RowPush p{};
  p.op = row_code(c.kind);
  p.backward = backward ? 1 : 0;
  const Shape& x = c.input_shapes[0];
  AxisSplit s{1, x.numel(), 1};  // losses: one row holding every element
  switch (c.kind) {
    case OpKind::gumbel_softmax:
    case OpKind::layer_norm:
    case OpKind::rms_norm:
      s = split_at_axis(x, -1);
      break;
    case OpKind::cross_entropy:
      s = {x[0], x[1], 1};
      break;
    case OpKind::bspline_basis: {  // outer values, n bases each
      const BsplineGeometry g = bspline_geometry(c);
      s = {x.numel(), g.bases(), 1};
      p.order = static_cast<std::uint32_t>(g.order);
      p.grid = static_cast<std::uint32_t>(g.grid);
      break;
    }
    case OpKind::mse_loss:
    case OpKind::bce_with_logits:
      break;
    default:
      s = split_at_axis(x, c.attrs.axis);
      break;
  }
  p.outer = static_cast<std::uint32_t>(s.outer);
  p.n = static_cast<std::uint32_t>(s.n);
  p.inner = static_cast<std::uint32_t>(s.inner);
  p.correction = c.attrs.correction;
  p.mean_reduction = c.attrs.reduction == LossReduction::mean ? 1 : 0;
  p.eps = double_bits(c.attrs.eps);
  p.tau = double_bits(c.attrs.tau);
  p.eps_f = static_cast<float>(c.attrs.eps);
  p.tau_f = static_cast<float>(c.attrs.tau);
  return p;
}

std::uint64_t rows(const RowPush& p) { return std::uint64_t{p.outer} * p.inner; }
std::uint64_t value_groups(const RowPush& p) { return (std::uint64_t{p.outer} + 255) / 256; }  // WG 256

// Rows up to this many elements are one work group's (128 iterations of its 256 invocations);
// longer ones are split into chunks of at most this many. Every row of the small tier is whole.
constexpr std::uint32_t kChunkElements = 32768;
constexpr std::uint32_t kRowPhases = 5;         // rowwise.comp's PHASE_MAX .. PHASE_WRITES
constexpr std::uint32_t kPartialsPerChunk = 8;  // rowwise.comp's PARTIALS
constexpr std::uint32_t kPartialsBinding = 10;  // rowwise.comp's partials_

// The row-wise dispatch of `p` over every row: one dispatch of whole rows, or one per phase when
// the rows are split (the recorder's barrier between dispatches orders the phases).
void dispatch_rows(Recorder& rec, DType dt, std::initializer_list<Bind> binds, RowPush p) {
  p.chunks = (p.n + kChunkElements - 1) / kChunkElements;
  if (p.chunks <= 1) {
    p.chunks = 1;
    rec.dispatch_groups("rowwise", dt, binds, p, rows(p));
    return;
  }
  const std::uint64_t groups = rows(p) * p.chunks;
  VulkanBuffer& partials = rec.scratch(compute_dtype(dt), static_cast<std::int64_t>(groups * kPartialsPerChunk));
  std::vector<Bind> with_partials(binds);
  with_partials.push_back({kPartialsBinding, &partials});
  for (p.phase = 0; p.phase < kRowPhases; ++p.phase) rec.dispatch_groups("rowwise", dt, with_partials, p, groups);
}

}  // namespace

void forward_rowwise(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out) {
  RowPush p = row_push(call, false);
  DType dt = call.dtype;
  switch (call.kind) {
    case OpKind::gumbel_softmax:
    case OpKind::mse_loss:
    case OpKind::bce_with_logits:
      dispatch_rows(rec, dt, {{0, in[0]}, {1, in[1]}, {3, &out}}, p);
      return;
    case OpKind::layer_norm:
      dispatch_rows(rec, dt, {{0, in[0]}, {1, in[1]}, {2, in[2]}, {3, &out}}, p);
      return;
    case OpKind::rms_norm:
      dispatch_rows(rec, dt, {{0, in[0]}, {1, in[1]}, {3, &out}}, p);
      return;
    case OpKind::bspline_basis:
      rec.dispatch_groups("rowwise", dt, {{0, in[0]}, {3, &out}}, p, value_groups(p));
      return;
    case OpKind::cross_entropy: {
      VulkanBuffer& losses = rec.scratch(compute_dtype(dt), p.outer);
      dispatch_rows(rec, dt, {{0, in[0]}, {8, &losses}, {9, in[1]}}, p);
      RowPush m = p;  // second pass: the mean of the per-row losses
      m.op = ROP_CROSS_ENTROPY_MEAN;
      m.n = p.outer;
      m.outer = m.inner = 1;
      dispatch_rows(rec, dt, {{3, &out}, {8, &losses}}, m);
      return;
    }
    default:
      dispatch_rows(rec, dt, {{0, in[0]}, {3, &out}}, p);
      return;
  }
}

void backward_rowwise(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& out, const VulkanBuffer& dout,
                      Grads grads) {
  RowPush p = row_push(call, true);
  DType dt = call.dtype;
  // Gradients the caller does not want still need a place to be written.
  auto grad_or_scratch = [&](std::size_t k) -> VulkanBuffer& {
    if (k < grads.size() && grads[k]) return *grads[k];
    return rec.scratch(dt, call.input_shapes[k].numel());
  };
  switch (call.kind) {
    case OpKind::gumbel_softmax:
      if (grads[0]) dispatch_rows(rec, dt, {{0, in[0]}, {1, in[1]}, {4, &dout}, {5, grads[0]}}, p);
      return;
    case OpKind::mse_loss:
    case OpKind::bce_with_logits: {
      VulkanBuffer& d0 = grad_or_scratch(0);
      VulkanBuffer& d1 = grad_or_scratch(1);
      dispatch_rows(rec, dt, {{0, in[0]}, {1, in[1]}, {4, &dout}, {5, &d0}, {6, &d1}}, p);
      return;
    }
    case OpKind::cross_entropy:
      if (grads[0]) dispatch_rows(rec, dt, {{0, in[0]}, {4, &dout}, {5, grads[0]}, {9, in[1]}}, p);
      return;
    case OpKind::bspline_basis:
      if (grads[0]) rec.dispatch_groups("rowwise", dt, {{0, in[0]}, {4, &dout}, {5, grads[0]}}, p, value_groups(p));
      return;
    case OpKind::layer_norm:
    case OpKind::rms_norm: {
      const auto data_rows = static_cast<std::uint32_t>(rows(p)), cols = p.n;
      RowPush q = p;  // dw and db: column tiles x chunks of rows, then the sum of the chunks
      q.op = ROP_LAYER_NORM_PARAMS;
      q.n = data_rows;
      q.inner = cols;
      const ColumnTiles tiles = column_tiles(cols, data_rows);
      q.outer = tiles.chunks;
      q.chunk_rows = tiles.chunk_terms;
      const bool has_bias = call.kind == OpKind::layer_norm;  // rms_norm: no bias, no db
      const bool params = grads[1] || (has_bias && grads[2]);
      // the rows' mean and rstd, then (for dw / db) the chunks' partial sums
      const std::int64_t scratch = 2 * (std::int64_t{data_rows} + (params ? std::int64_t{q.outer} * cols : 0));
      VulkanBuffer& stats = rec.scratch(compute_dtype(dt), scratch);
      VulkanBuffer& dx = grad_or_scratch(0);
      dispatch_rows(rec, dt, {{0, in[0]}, {1, in[1]}, {4, &dout}, {5, &dx}, {8, &stats}}, p);
      if (!params) return;
      rec.dispatch_groups("rowwise", dt, {{0, in[0]}, {4, &dout}, {8, &stats}}, q, tiles.groups());
      q.op = ROP_LAYER_NORM_PARAMS_SUM;
      VulkanBuffer& dw = grad_or_scratch(1);
      VulkanBuffer& db = has_bias ? grad_or_scratch(2) : rec.scratch(dt, cols);
      rec.dispatch_groups("rowwise", dt, {{6, &dw}, {7, &db}, {8, &stats}}, q, (cols + 255) / 256);  // WG 256
      return;
    }
    default:
      if (grads[0]) dispatch_rows(rec, dt, {{0, in[0]}, {3, &out}, {4, &dout}, {5, grads[0]}}, p);
      return;
  }
}

}  // namespace gp::vk
