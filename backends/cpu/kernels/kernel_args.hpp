// What a CPU kernel receives: typed pointers into host buffers, in the compute type T (float or
// double). f16/bf16 calls are staged by the dispatcher (widened to float, computed, rounded on
// store), so every kernel is written once, for T.
//
// One entry point per family; each family file instantiates it for float and double.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/op.hpp"

namespace gp::cpu {

template <typename T>
struct ForwardArgs {
  const OpCall& call;
  std::vector<const T*> x{};             // one per input; nullptr for the i32 input
  const std::int32_t* labels = nullptr;  // the i32 input (op_index_input), else nullptr
  T* y = nullptr;                        // output, call.output_shape
};

template <typename T>
struct BackwardArgs {
  const OpCall& call;
  std::vector<const T*> x{};
  const std::int32_t* labels = nullptr;
  const T* y = nullptr;   // forward result for these inputs
  const T* dy = nullptr;  // incoming gradient, call.output_shape
  // One per input; nullptr where no gradient is wanted. Every non-null buffer arrives with
  // whatever it held (the harness poisons it) and must be written completely: a kernel that
  // accumulates clears its gradient first (clear_gradient).
  std::vector<T*> dx{};
};

// Sets a gradient to zero before a kernel accumulates into it; a no-op for nullptr.
template <typename T>
void clear_gradient(T* dx, std::int64_t n) {
  if (dx) std::fill_n(dx, n, T(0));
}

// A bad call or bad data: gp::Error naming the case.
[[noreturn]] inline void fail(const OpCall& call, const std::string& what) {
  throw Error("cpu backend: " + std::string(op_name(call.kind)) + ": " + what + " [case " +
              (call.case_id.empty() ? std::string("<unnamed>") : call.case_id) + "]");
}

// One entry point pair per family (kernels/<family>.cpp).
#define GP_CPU_FAMILY_DECL(family)                \
  template <typename T>                           \
  void family##_forward(const ForwardArgs<T>& a); \
  template <typename T>                           \
  void family##_backward(const BackwardArgs<T>& a);
GP_CPU_FAMILY_DECL(unary)
GP_CPU_FAMILY_DECL(binary)
GP_CPU_FAMILY_DECL(reduction)
GP_CPU_FAMILY_DECL(rowwise)
GP_CPU_FAMILY_DECL(linalg)
GP_CPU_FAMILY_DECL(layout)
GP_CPU_FAMILY_DECL(loss)
GP_CPU_FAMILY_DECL(tt_embedding)  // of the linalg family, in its own file
GP_CPU_FAMILY_DECL(gru_cell)      // likewise
GP_CPU_FAMILY_DECL(optimizer)
#undef GP_CPU_FAMILY_DECL

// Routes a call to its family's entry point.
template <typename T>
void dispatch_forward(const ForwardArgs<T>& a);
template <typename T>
void dispatch_backward(const BackwardArgs<T>& a);

// Explicit instantiation for both compute types, used at the end of every family file.
#define GP_CPU_INSTANTIATE(fwd, bwd)                     \
  template void fwd<float>(const ForwardArgs<float>&);   \
  template void fwd<double>(const ForwardArgs<double>&); \
  template void bwd<float>(const BackwardArgs<float>&);  \
  template void bwd<double>(const BackwardArgs<double>&);

}  // namespace gp::cpu
