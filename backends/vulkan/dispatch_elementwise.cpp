// The unary family and binary ops with broadcasting (unary.comp, binary.comp).
#include <algorithm>
#include <bit>
#include <cstring>

#include "core/error.hpp"
#include "dispatch.hpp"
#include "shaders/op_codes.h"

namespace gp::vk {

AttrBits double_bits(double v) {
  auto u = std::bit_cast<std::uint64_t>(v);
  return {static_cast<std::uint32_t>(u), static_cast<std::uint32_t>(u >> 32)};
}

ColumnTiles column_tiles(std::uint64_t columns, std::uint64_t terms) {
  ColumnTiles t;
  t.tiles = static_cast<std::uint32_t>((columns + COLUMN_TILE - 1) / COLUMN_TILE);
  // No term (a gradient summed over an empty batch) is one chunk of one term, which the shaders
  // clip to none: its sums are the zeros the catalog gives.
  const std::uint64_t tiles = std::max<std::uint32_t>(t.tiles, 1), most = std::max<std::uint64_t>((terms + 63) / 64, 1);
  const std::uint64_t chunks = std::clamp<std::uint64_t>((2048 + tiles - 1) / tiles, 1, most);
  t.chunk_terms = static_cast<std::uint32_t>(std::max<std::uint64_t>((terms + chunks - 1) / chunks, 1));
  t.chunks = static_cast<std::uint32_t>(std::max<std::uint64_t>((terms + t.chunk_terms - 1) / t.chunk_terms, 1));
  return t;
}

namespace {

struct UnaryPush {
  std::uint32_t n, op, backward, pad;
  AttrBits p, alpha;
  float p_f, alpha_f;
};

struct BinaryPush {
  std::uint32_t op, mode, which, count, terms, chunks, chunk_terms, fused;
  std::uint32_t out_dims[4], a_stride[4], b_stride[4], grad_dims[4], reduce_dims[4];
};
static_assert(sizeof(BinaryPush) == 112);

Spec spec_of(const UnaryPush& p) { return {p.op, p.backward}; }
Spec spec_of(const BinaryPush& p) { return {p.op, p.mode}; }

// The shaders' op codes: the op's catalog code (gp_op_codes.h).
std::uint32_t family_code(OpKind k, OpFamily family) {
  if (op_family(k) != family)
    throw Error("vulkan backend: " + std::string(op_name(k)) + " is not a " + std::string(family_name(family)) + " op");
  return static_cast<std::uint32_t>(k);
}

UnaryPush unary_push(const OpCall& c, bool backward) {
  UnaryPush p{};
  p.n = static_cast<std::uint32_t>(c.input_shapes[0].numel());
  p.op = family_code(c.kind, OpFamily::unary);
  p.backward = backward ? 1 : 0;
  const UnaryScalars s = unary_scalars(c);
  p.p = double_bits(s.p);
  p.alpha = double_bits(s.a);
  p.p_f = static_cast<float>(s.p);
  p.alpha_f = static_cast<float>(s.a);
  return p;
}

BinaryPush binary_push(std::uint32_t op, const Shape& a, const Shape& b) {
  BroadcastPlan plan = broadcast_plan(a, b);
  BinaryPush p{};
  p.op = op;
  for (int k = 0; k < 4; ++k) {
    p.out_dims[k] = static_cast<std::uint32_t>(plan.out_dims[k]);
    p.a_stride[k] = static_cast<std::uint32_t>(plan.a_stride[k]);
    p.b_stride[k] = static_cast<std::uint32_t>(plan.b_stride[k]);
  }
  p.count = static_cast<std::uint32_t>(plan.numel);
  return p;
}

// Mode and sizes of the pass that computes the gradient of input `which`.
BinaryPush binary_grad_push(std::uint32_t bop, int which, const Shape& a, const Shape& b) {
  BinaryPush p = binary_push(bop, a, b);
  p.which = static_cast<std::uint32_t>(which);
  const std::uint32_t* target = which == 0 ? p.a_stride : p.b_stride;
  std::uint64_t count = 1, terms = 1;
  for (int k = 0; k < 4; ++k) {
    bool broadcast = target[k] == 0;
    p.grad_dims[k] = broadcast ? 1 : p.out_dims[k];
    p.reduce_dims[k] = broadcast ? p.out_dims[k] : 1;
    count *= p.grad_dims[k];
    terms *= p.reduce_dims[k];
  }
  p.count = static_cast<std::uint32_t>(count);
  p.terms = static_cast<std::uint32_t>(terms);
  if (terms < 32) {  // few terms: one invocation sums them
    p.mode = BMODE_GRAD_PER_THREAD;
  } else if (p.reduce_dims[3] == 1) {  // innermost dim kept: coalesced column tiles, two passes
    p.mode = BMODE_GRAD_COLUMNS;
    const ColumnTiles t = column_tiles(count, terms);
    p.chunks = t.chunks;
    p.chunk_terms = t.chunk_terms;
  } else {  // many terms, innermost dim reduced: one work group per gradient element
    p.mode = BMODE_GRAD_PER_GROUP;
  }
  return p;
}

// Both inputs of the output's shape (a dimension of one that broadcasts shrinks an input).
bool neither_broadcast(const OpCall& call) {
  return call.input_shapes[0].numel() == call.output_shape.numel() &&
         call.input_shapes[1].numel() == call.output_shape.numel();
}

// `other_full`, when given, receives the other input's gradient, written by the column pass.
void record_binary_grad(Recorder& rec, DType dtype, BinaryPush p, const VulkanBuffer& abuf, const VulkanBuffer& bbuf,
                        const VulkanBuffer& g, VulkanBuffer& out, VulkanBuffer* other_full) {
  const std::uint64_t count = p.count;
  if (p.mode != BMODE_GRAD_COLUMNS) {
    auto binds = {Bind{0, &abuf}, Bind{1, &bbuf}, Bind{2, &g}, Bind{3, &out}};
    if (p.mode == BMODE_GRAD_PER_THREAD)
      rec.dispatch_items("binary", dtype, binds, p, count);
    else
      rec.dispatch_groups("binary", dtype, binds, p, count);
    return;
  }
  const std::uint64_t groups = column_tiles(count, p.terms).groups();
  VulkanBuffer& partials = rec.scratch(compute_dtype(dtype), static_cast<std::int64_t>(p.chunks * count));
  p.fused = other_full ? 1 : 0;
  if (other_full)
    rec.dispatch_groups("binary", dtype, {{0, &abuf}, {1, &bbuf}, {2, &g}, {3, other_full}, {4, &partials}}, p, groups);
  else
    rec.dispatch_groups("binary", dtype, {{0, &abuf}, {1, &bbuf}, {2, &g}, {4, &partials}}, p, groups);
  p.mode = BMODE_SUM_CHUNKS;
  p.fused = 0;
  rec.dispatch_items("binary", dtype, {{3, &out}, {4, &partials}}, p, count);
}

}  // namespace

void record_binary_grad(Recorder& rec, DType dtype, std::uint32_t bop, int which, const Shape& a, const Shape& b,
                        const VulkanBuffer& abuf, const VulkanBuffer& bbuf, const VulkanBuffer& g, VulkanBuffer& out) {
  record_binary_grad(rec, dtype, binary_grad_push(bop, which, a, b), abuf, bbuf, g, out, nullptr);
}

void forward_elementwise(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out) {
  if (op_family(call.kind) == OpFamily::binary) {
    BinaryPush p = binary_push(family_code(call.kind, OpFamily::binary), call.input_shapes[0], call.input_shapes[1]);
    p.mode = neither_broadcast(call) ? BMODE_FORWARD_SAME : BMODE_FORWARD;
    rec.dispatch_items("binary", call.dtype, {{0, in[0]}, {1, in[1]}, {3, &out}}, p, p.count);
    return;
  }
  UnaryPush p = unary_push(call, false);
  rec.dispatch_items("unary", call.dtype, {{0, in[0]}, {1, &out}}, p, p.n);
}

void backward_elementwise(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& dout, Grads grads) {
  if (op_family(call.kind) == OpFamily::binary) {
    const Shape &a = call.input_shapes[0], &b = call.input_shapes[1];
    const std::uint32_t bop = family_code(call.kind, OpFamily::binary);
    if (grads[0] && grads[1] && neither_broadcast(call)) {
      BinaryPush p = binary_push(bop, a, b);
      p.mode = BMODE_GRAD_SAME;
      rec.dispatch_items("binary", call.dtype, {{0, in[0]}, {1, in[1]}, {2, &dout}, {3, grads[0]}, {5, grads[1]}}, p,
                         p.count);
      return;
    }
    const BinaryPush push[2] = {binary_grad_push(bop, 0, a, b), binary_grad_push(bop, 1, a, b)};
    // The bias pattern: one gradient is a column sum and the other input has the output's shape.
    // One pass then reads g once for both.
    for (int k = 0; k < 2; ++k) {
      const int other = 1 - k;
      if (grads[k] && grads[other] && push[k].mode == BMODE_GRAD_COLUMNS &&
          call.input_shapes[other].numel() == call.output_shape.numel()) {
        record_binary_grad(rec, call.dtype, push[k], *in[0], *in[1], dout, *grads[k], grads[other]);
        return;
      }
    }
    for (int k = 0; k < 2; ++k)
      if (grads[k]) record_binary_grad(rec, call.dtype, push[k], *in[0], *in[1], dout, *grads[k], nullptr);
    return;
  }
  if (!grads[0]) return;
  UnaryPush p = unary_push(call, true);
  rec.dispatch_items("unary", call.dtype, {{0, in[0]}, {2, &dout}, {3, grads[0]}}, p, p.n);
}

}  // namespace gp::vk
