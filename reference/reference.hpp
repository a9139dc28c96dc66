// The high-precision reference: naive forward and vector-Jacobian products for every op of the
// catalog, in long double, plus the error scales the tolerance model needs. It shares no code
// with any backend's kernels.
//
// The formulas are generic over their real type R: the project uses R = long double (RefTensor,
// forward, vjp); the oracle (oracle/) evaluates the very same formulas in 166-bit MPFR arithmetic
// to measure the long-double reference's own rounding error. Both instantiations live in the
// library; this header stays free of Boost and MPFR.
#pragma once

#include <vector>

#include "core/op.hpp"
#include "core/tensor.hpp"

namespace gp::ref {

using Real = long double;

template <class R>
struct BasicRefTensor {
  Shape shape;
  std::vector<R> v;
  // Error scale per element (same length as v): the magnitude against which the rounding error
  // of a correct kernel in any dtype is measured, |error_i| <= K * u * scale[i] with K a small
  // budget chosen by the tolerance policy. Definition (reference/README.md has the table):
  //   elementwise y = f(x, ...):  |y| + sum_k |x_k * dy/dx_k|      (result + argument rounding)
  //   accumulations (sum, dot products, batch sums of broadcast gradients): n * sum |terms|
  //   composed ops: the scales of their stages, propagated with |partial derivatives|.
  // Scales are conservative, never zero where the value can carry rounding error.
  std::vector<R> scale;

  static BasicRefTensor from_host(const HostTensor& t);  // exact widening; scale = 0
  std::int64_t numel() const { return static_cast<std::int64_t>(v.size()); }
};

using RefTensor = BasicRefTensor<Real>;

// out = op(inputs); inputs follow call.input_shapes (i32 targets arrive as integral values).
RefTensor forward(const OpCall& call, const std::vector<RefTensor>& inputs);

// grads[k] = J_k^T dout for every input k; entries for non-differentiable inputs have an empty
// v. For ops with chosen gradients (ste_round, ste_hardtanh_gate) this is the declared surrogate.
std::vector<RefTensor> vjp(const OpCall& call, const std::vector<RefTensor>& inputs, const RefTensor& out,
                           const RefTensor& dout);

// The same entry points for any instantiated real type (long double here; the MPFR type of
// reference/mp_real.hpp for the oracle).
template <class R>
BasicRefTensor<R> basic_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& inputs);
template <class R>
std::vector<BasicRefTensor<R>> basic_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& inputs,
                                         const BasicRefTensor<R>& out, const BasicRefTensor<R>& dout);

}  // namespace gp::ref
