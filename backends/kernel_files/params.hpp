// The parameter block every kernel of a kernel directory receives as its last argument or
// binding: the work items launched, each buffer's rank, dims and element count in argument
// order, the op's axis and its attributes. Every field is a 4-byte scalar or an array of them, so
// the one layout is the same in C++, in OpenCL C and in a GLSL std430 block, whose declarations
// the kernels see are generated from the field list below (preamble_opencl, preamble_glsl).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backends/kernel_files/convention.hpp"

namespace gp::kernel_files {

inline constexpr int kMaxTensors = 16;  // every op's inputs, output, cotangent and gradients fit
inline constexpr int kDimsPerTensor = kMaxRank;

// X(C++ type, OpenCL C and GLSL type, name, array length or 0 for a scalar, what it holds)
#define GP_PARAM_FIELDS(X)                                                                             \
  X(std::uint32_t, uint, count, 0, "work items launched; a kernel returns for an index >= count")      \
  X(std::uint32_t, uint, tensors, 0, "buffers described below, in argument order")                     \
  X(std::int32_t, int, axis, 0, "the op's axis, made non-negative against input 0's rank (0 if none)") \
  X(std::uint32_t, uint, rank, 16, "rank of buffer t")                                                 \
  X(std::uint32_t, uint, numel, 16, "elements of buffer t")                                            \
  X(std::uint32_t, uint, dims, 64, "dims of buffer t at [4t, 4t + 4), padded on the left with 1")      \
  X(std::int32_t, int, ints, 16, "integer attributes, indexed by GP_KEEPDIM ...")                      \
  X(float, float, reals, 16, "real attributes rounded to float, indexed by GP_P ...")                  \
  X(std::uint32_t, uint, reals64, 32, "the real attributes as doubles: low word at 2i, high at 2i + 1")

// Index of each attribute in `ints` / `reals`: X(NAME, value from an OpAttrs `a`).
#define GP_PARAM_INTS(X)                              \
  X(KEEPDIM, a.keepdim)                               \
  X(CORRECTION, a.correction)                         \
  X(ORDER, a.order)                                   \
  X(GRID, a.grid)                                     \
  X(REDUCTION_SUM, a.reduction == LossReduction::sum) \
  X(GELU_TANH, a.gelu == GeluApprox::tanh)            \
  X(NESTEROV, a.nesterov)                             \
  X(FIRST, a.first)                                   \
  X(STEP, a.t)                                        \
  X(SLICE_START, a.start)                             \
  X(SLICE_STOP, a.stop)                               \
  X(SLICE_STEP, a.step)
#define GP_PARAM_REALS(X)   \
  X(P, a.p)                 \
  X(ALPHA, a.alpha)         \
  X(EPS, a.eps)             \
  X(TAU, a.tau)             \
  X(LR, a.lr)               \
  X(MOMENTUM, a.momentum)   \
  X(DAMPENING, a.dampening) \
  X(BETA1, a.beta1)         \
  X(BETA2, a.beta2)         \
  X(WEIGHT_DECAY, a.weight_decay)

#define GP_PARAM_MEMBER(cpp, cl, name, n, what) cpp name[(n) > 0 ? (n) : 1];
struct ParamBlock {
  GP_PARAM_FIELDS(GP_PARAM_MEMBER)
};
#undef GP_PARAM_MEMBER
static_assert(sizeof(ParamBlock) == 4 * (3 + 16 + 16 + 64 + 16 + 16 + 32), "4-byte fields, no padding");

// The block of one call, or why the call cannot have one (a tensor past 2^32 - 1 elements: the
// kernels' sizes are 32-bit).
struct Params {
  std::optional<ParamBlock> block;
  std::string refusal;
};
Params make_params(const OpCall& call, Pass pass);

// What OpenCL C kernels see of the block: a struct `gp_params`, the GP_* attribute indices and
// the GP_DIM / GP_REAL64 helpers.
std::string preamble_opencl();
// The same for a GLSL compute shader, inserted after its #version line: the block as a readonly
// std430 buffer `p` at `binding`, the indices, GP_DIM / GP_REAL64, and GP_INDEX, the work item's
// index over a launch spread on a 2-D grid of work groups.
std::string preamble_glsl(int binding);

}  // namespace gp::kernel_files
