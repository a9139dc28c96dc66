// Per-family recording of forward and backward passes (dispatch_*.cpp). Each function records
// dispatches into a Recorder; sizes and strides come from core's geometry helpers
// (broadcast_plan, split_at_axis, matmul_dims), computed here on the host and passed as push
// constants.
#pragma once

#include <span>

#include "backends/backend.hpp"
#include "core/op.hpp"
#include "vk_memory.hpp"
#include "vk_recorder.hpp"

namespace gp::vk {

using Inputs = std::span<const VulkanBuffer* const>;
using Grads = std::span<VulkanBuffer* const>;

// A count or index as a push constant (the shaders' counters are 32-bit; the callers check the
// range where it can be exceeded).
template <typename T>
std::uint32_t u32(T v) {
  return static_cast<std::uint32_t>(v);
}

// Routes by op family (vk_queue.cpp).
void record_forward(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out);
void record_backward(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& out, const VulkanBuffer& dout,
                     Grads grads);

// unary, binary, ste_round, ste_hardtanh_gate
void forward_elementwise(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out);
void backward_elementwise(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& dout, Grads grads);
// reductions, softmax, log_softmax, layer_norm, gumbel_softmax, losses
void forward_rowwise(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out);
void backward_rowwise(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& out, const VulkanBuffer& dout,
                      Grads grads);
// matmul, linear, log_matmul_exp; tt_embedding (dispatch_tt_embedding.cpp), gru_cell
// (dispatch_gru_cell.cpp)
void forward_linalg(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out);
void backward_linalg(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& out, const VulkanBuffer& dout,
                     Grads grads);
void forward_tt_embedding(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out);
void backward_tt_embedding(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& dout, Grads grads);
void forward_gru_cell(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out);
void backward_gru_cell(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& dout, Grads grads);
// transpose, reshape, concat, slice
void forward_layout(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out);
void backward_layout(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& dout, Grads grads);
// sgd_step, adamw_step: forward only; the backward accepts only calls that ask for no gradient
void forward_optimizer(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out);
void backward_optimizer(const OpCall& call, Grads grads);

// A user's shader directory (vulkan-spirv, shader_dir.hpp): what it supports, and its calls.
Support supports_kernel_files(const ShaderDir& files, const OpCall& call);
void forward_kernel_files(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out);
void backward_kernel_files(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& out,
                           const VulkanBuffer& dout, Grads grads);

// bench's arithmetic probe (shaders/probe.comp, Queue::arithmetic_probe): every element of `out`
// the sum of eight chains of `steps` / 8 multiply-adds.
void record_arithmetic_probe(Recorder& rec, DType dtype, VulkanBuffer& out, std::uint32_t steps);

// The strided copy of layout.comp (also used by linear's bias gradient and the benchmark).
// The shaders' compute type C (common.glsl): scratch buffers of partial results use it.
inline DType compute_dtype(DType t) { return t == DType::f64 ? DType::f64 : DType::f32; }

struct CopyPlan {
  std::uint32_t count = 0, src_base = 0, dst_base = 0;
  std::uint32_t dims[4] = {1, 1, 1, 1}, src_stride[4] = {0, 0, 0, 0}, dst_stride[4] = {0, 0, 0, 0};
};
// A contiguous copy of n elements.
CopyPlan flat_plan(std::int64_t n);
void record_copy(Recorder& rec, DType dtype, const VulkanBuffer& src, const VulkanBuffer& dst, const CopyPlan& plan);
void record_fill_zero(Recorder& rec, DType dtype, const VulkanBuffer& dst, std::uint32_t count);
// The call's inputs with each strided one (core/strided.hpp) first gathered into a contiguous
// scratch copy, as a framework's .contiguous() does; the op's shaders then read the copies.
std::vector<const VulkanBuffer*> record_gather_strided(Recorder& rec, const OpCall& call, Inputs in);
// Column sums as tiles (binary.comp's bias-type gradients, rowwise.comp's layer_norm dw/db): a
// work group sums one chunk of the terms for COLUMN_TILE neighbouring columns, so its loads are
// coalesced; a second pass adds the chunks in order.
struct ColumnTiles {
  std::uint32_t tiles = 0, chunks = 0, chunk_terms = 0;
  std::uint64_t groups() const { return std::uint64_t{tiles} * chunks; }
};
// About 2048 groups (a few per multiprocessor of a large GPU), at least 64 terms per chunk.
ColumnTiles column_tiles(std::uint64_t columns, std::uint64_t terms);
// Gradient of a broadcast binary input (sum over broadcast dims) for op code `bop`.
void record_binary_grad(Recorder& rec, DType dtype, std::uint32_t bop, int which, const Shape& a, const Shape& b,
                        const VulkanBuffer& abuf, const VulkanBuffer& bbuf, const VulkanBuffer& g, VulkanBuffer& out);

// Double attributes travel as their bits plus a float copy (see shaders/common.glsl ATTR).
struct AttrBits {
  std::uint32_t lo, hi;
};
AttrBits double_bits(double v);

}  // namespace gp::vk
