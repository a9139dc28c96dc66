// matmul and linear (linalg.comp): every pass is one strided GEMM; the transposes of the
// backward passes are expressed through strides, never materialised.
#include "core/error.hpp"
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
};

Spec spec_of(const MatPush&) { return {0, 0}; }  // one GEMM shader: nothing to specialize

template <typename T>
std::uint32_t u32(T v) {
  return static_cast<std::uint32_t>(v);
}

void gemm(Recorder& rec, DType dt, const MatPush& p, const VulkanBuffer& a, const VulkanBuffer& b,
          const VulkanBuffer* bias, const VulkanBuffer& out) {
  std::uint32_t gx = (p.n + kTile - 1) / kTile, gy = (p.m + kTile - 1) / kTile;
  if (bias)
    rec.dispatch_3d("linalg", dt, {{0, &a}, {1, &b}, {2, bias}, {3, &out}}, p, gx, gy, p.batch);
  else
    rec.dispatch_3d("linalg", dt, {{0, &a}, {1, &b}, {3, &out}}, p, gx, gy, p.batch);
}

}  // namespace

void forward_linalg(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out) {
  if (call.kind == OpKind::tt_embedding) return forward_tt_embedding(rec, call, in, out);
  MatmulDims d = matmul_dims(call);
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

void backward_linalg(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& dout, Grads grads) {
  if (call.kind == OpKind::tt_embedding) return backward_tt_embedding(rec, call, in, dout, grads);
  MatmulDims d = matmul_dims(call);
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
