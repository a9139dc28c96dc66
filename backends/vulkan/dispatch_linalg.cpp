// matmul and linear (linalg.comp): every pass is one strided GEMM; the transposes of the
// backward passes are expressed through strides, never materialised. log_matmul_exp
// (log_matmul_exp.comp): one invocation per element of each pass.
#include "core/error.hpp"
#include "core/inner_split.hpp"
#include "dispatch.hpp"
#include "shaders/op_codes.h"

namespace gp::vk {

namespace {

constexpr std::uint32_t kTile = 16;

struct MatPush {
  std::uint32_t m, n, k, batch;
  std::uint32_t a_batch, a_row, a_col;
  std::uint32_t b_batch, b_row, b_col;
  std::uint32_t has_bias;
  std::uint32_t slices = 1, slice_k = 0, sum_slices = 0;
};

Spec spec_of(const MatPush&) { return {0, 0}; }  // one GEMM shader: nothing to specialize

// Split K (core/inner_split.hpp, linalg.comp).
void split_k(MatPush& p) {
  const std::uint64_t tiles = std::uint64_t{p.batch} * ((p.m + kTile - 1) / kTile) * ((p.n + kTile - 1) / kTile);
  const InnerSplit split = inner_split(static_cast<std::int64_t>(tiles), p.k, kTile);
  p.slices = static_cast<std::uint32_t>(split.slices);
  p.slice_k = static_cast<std::uint32_t>(split.slice);
}

void gemm(Recorder& rec, DType dt, MatPush p, const VulkanBuffer& a, const VulkanBuffer& b, const VulkanBuffer* bias,
          const VulkanBuffer& out) {
  std::uint32_t gx = (p.n + kTile - 1) / kTile, gy = (p.m + kTile - 1) / kTile;
  split_k(p);
  if (p.slices == 1) {
    if (bias)
      rec.dispatch_3d("linalg", dt, {{0, &a}, {1, &b}, {2, bias}, {3, &out}}, p, {gx, gy, p.batch});
    else
      rec.dispatch_3d("linalg", dt, {{0, &a}, {1, &b}, {3, &out}}, p, {gx, gy, p.batch});
    return;
  }
  const VulkanBuffer& partials =
      rec.scratch(compute_dtype(dt), std::int64_t{p.batch} * p.slices * std::int64_t{p.m} * p.n);
  rec.dispatch_3d("linalg", dt, {{0, &a}, {1, &b}, {4, &partials}}, p, {gx, gy, p.batch * p.slices});
  p.sum_slices = 1;
  if (bias)
    rec.dispatch_3d("linalg", dt, {{2, bias}, {3, &out}, {4, &partials}}, p, {gx, gy, p.batch});
  else
    rec.dispatch_3d("linalg", dt, {{3, &out}, {4, &partials}}, p, {gx, gy, p.batch});
}

struct LogMatmulPush {
  std::uint32_t mode, m, n, k;
};

Spec spec_of(const LogMatmulPush& p) { return {0, p.mode}; }

constexpr std::uint32_t kLogMatmulLocal = 64;  // log_matmul_exp.comp's LOCAL_X

// One pass of log_matmul_exp.comp over `count` elements: the forward into `out`; the stats of
// every output element into `stats` (compute type, two per element); a gradient into `out` from
// the stats and g.
void log_matmul_exp_pass(Recorder& rec, const OpCall& call, std::uint32_t mode, Inputs in, const VulkanBuffer* stats,
                         const VulkanBuffer* g, const VulkanBuffer* out, std::int64_t count) {
  const MatmulDims d = matmul_dims(call);
  const LogMatmulPush p{mode, u32(d.m), u32(d.n), u32(d.k)};
  const std::uint64_t groups = (static_cast<std::uint64_t>(count) + kLogMatmulLocal - 1) / kLogMatmulLocal;
  if (mode == LMODE_FORWARD)
    rec.dispatch_groups("log_matmul_exp", call.dtype, {{0, in[0]}, {1, in[1]}, {4, out}}, p, groups);
  else if (mode == LMODE_STATS)
    rec.dispatch_groups("log_matmul_exp", call.dtype, {{0, in[0]}, {1, in[1]}, {2, stats}}, p, groups);
  else
    rec.dispatch_groups("log_matmul_exp", call.dtype, {{0, in[0]}, {1, in[1]}, {2, stats}, {3, g}, {4, out}}, p,
                        groups);
}

// matmul and linear forward: one GEMM (linear's W read transposed, its bias added).
void forward_gemm(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out) {
  const MatmulDims d = matmul_dims(call);
  MatPush p{};
  p.m = u32(d.m), p.n = u32(d.n), p.k = u32(d.k), p.batch = u32(d.batch);
  p.a_batch = u32(d.m * d.k), p.a_row = u32(d.k), p.a_col = 1;
  if (call.kind == OpKind::linear) {  // B(kk, j) = W[j, kk]
    p.b_batch = 0, p.b_row = 1, p.b_col = u32(d.k);
    p.has_bias = 1;
    gemm(rec, call.dtype, p, *in[0], *in[1], in[2], out);
    return;
  }
  p.b_batch = u32(d.k * d.n), p.b_row = u32(d.n), p.b_col = 1;
  gemm(rec, call.dtype, p, *in[0], *in[1], nullptr, out);
}

}  // namespace

// A switch over every op of the family (the build checks that each has its case).
void forward_linalg(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out) {
  switch (call.kind) {
    case OpKind::matmul:
    case OpKind::linear:
      return forward_gemm(rec, call, in, out);
    case OpKind::tt_embedding:
      return forward_tt_embedding(rec, call, in, out);
    case OpKind::log_matmul_exp: {
      const MatmulDims d = matmul_dims(call);
      return log_matmul_exp_pass(rec, call, LMODE_FORWARD, in, nullptr, nullptr, &out, d.m * d.n);
    }
    case OpKind::gru_cell:
      return forward_gru_cell(rec, call, in, out);
    default:
      throw Error("vulkan backend: " + std::string(op_name(call.kind)) + " is not a linear-algebra op");
  }
}

void backward_linalg(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& out, const VulkanBuffer& dout,
                     Grads grads) {
  if (call.kind == OpKind::tt_embedding) return backward_tt_embedding(rec, call, in, dout, grads);
  if (call.kind == OpKind::gru_cell) return backward_gru_cell(rec, call, in, dout, grads);
  MatmulDims d = matmul_dims(call);
  if (call.kind == OpKind::log_matmul_exp) {
    const VulkanBuffer& stats = rec.scratch(compute_dtype(call.dtype), 2 * d.m * d.n);
    log_matmul_exp_pass(rec, call, LMODE_STATS, in, &stats, nullptr, nullptr, d.m * d.n);
    if (grads[0]) log_matmul_exp_pass(rec, call, LMODE_GRAD_A, in, &stats, &dout, grads[0], d.m * d.k);
    if (grads[1]) log_matmul_exp_pass(rec, call, LMODE_GRAD_B, in, &stats, &dout, grads[1], d.k * d.n);
    return;
  }
  DType dt = call.dtype;
  bool linear = call.kind == OpKind::linear;
  if (grads[0]) {  // dA[m,k] = G[m,n] * B^T (matmul) or G * W (linear)
    MatPush p{};
    p.m = u32(d.m), p.n = u32(d.k), p.k = u32(d.n), p.batch = u32(d.batch);
    p.a_batch = u32(d.m * d.n), p.a_row = u32(d.n), p.a_col = 1;
    if (linear)
      p.b_batch = 0, p.b_row = u32(d.k), p.b_col = 1;  // W[kk, j]
    else
      p.b_batch = u32(d.k * d.n), p.b_row = 1, p.b_col = u32(d.n);  // B[b, j, kk]
    gemm(rec, dt, p, dout, *in[1], nullptr, *grads[0]);
  }
  if (grads[1]) {
    MatPush p{};
    p.batch = u32(d.batch);
    if (linear) {  // dW[n,k] = G^T[n,m] * x[m,k]
      p.m = u32(d.n), p.n = u32(d.k), p.k = u32(d.m);
      p.a_batch = 0, p.a_row = 1, p.a_col = u32(d.n);
      p.b_batch = 0, p.b_row = u32(d.k), p.b_col = 1;
      gemm(rec, dt, p, dout, *in[0], nullptr, *grads[1]);
    } else {  // dB[k,n] = A^T[k,m] * G[m,n]
      p.m = u32(d.k), p.n = u32(d.n), p.k = u32(d.m);
      p.a_batch = u32(d.m * d.k), p.a_row = 1, p.a_col = u32(d.k);
      p.b_batch = u32(d.m * d.n), p.b_row = u32(d.n), p.b_col = 1;
      gemm(rec, dt, p, *in[0], dout, nullptr, *grads[1]);
    }
  }
  if (linear && grads.size() > 2 && grads[2]) {  // db[n] = sum over rows of G: a broadcast gradient
    Shape g{d.m, d.n}, b{d.n};
    record_binary_grad(rec, dt, static_cast<std::uint32_t>(OpKind::add), 1, g, b, dout, *in[2], dout, *grads[2]);
  }
}

}  // namespace gp::vk
