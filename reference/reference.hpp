// The high-precision reference: naive forward and vector-Jacobian products for every op of the
// catalog, in long double. It shares no code with any backend's kernels.
//
// The formulas are generic over their real type R and written in stable forms. Three types
// instantiate them: long double (the values everyone compares with), the oracle's MpReal
// (oracle.hpp: the same formulas in 168-bit MPFR, to measure the long-double reference's own
// error) and Tracked (tracked.hpp: the same formulas carrying a first-order bound of the error a
// correct kernel commits on a device with a given math profile). This header stays free of Boost
// and MPFR.
#pragma once

#include <functional>
#include <vector>

#include "core/math_profile.hpp"
#include "core/op.hpp"
#include "core/tensor.hpp"

namespace gp::ref {

using Real = long double;

// The error a correct kernel may commit at one element, in absolute units, split by kind
// (harness/check/tolerance.hpp combines them into a bound):
//   det   worst case: the device's library budgets and every single rounding, propagated;
//   acc   worst case of the roundings inside accumulations (sequential order);
//   prob  the same roundings' probabilistic scale: their total exceeds lambda * prob with
//         probability below 2 exp(-lambda^2 / 2) (independent, mean-zero roundings);
//   spec  the part of det that the device's library budgets contribute, and the rounding of an
//         intermediate that the case's definition stages in the storage type (OpAttrs::staged):
//         what the specification or the definition allows, counted once in the bound (reported,
//         so that a check's sensitivity can be read against it).
struct ErrorBound {
  long double det = 0, acc = 0, prob = 0, spec = 0;
};

// How many times the bound counts det's single roundings (det - spec) and acc: a kernel's
// formulation may commit a few more roundings than the reference's, at intermediates of the same
// size (harness/check/tolerance.hpp says how this was measured). Here because combining the two
// forms of one value (either_form, tracked.hpp) needs it.
inline constexpr double kFormulation = 2;

template <class R>
struct BasicRefTensor {
  Shape shape;
  std::vector<R> v;
  // Per element (same length as v) after a bounded evaluation; empty otherwise.
  std::vector<ErrorBound> err;

  static BasicRefTensor from_host(const HostTensor& t);  // exact widening
  std::int64_t numel() const { return static_cast<std::int64_t>(v.size()); }
};

using RefTensor = BasicRefTensor<Real>;

// out = op(inputs); inputs follow call.input_shapes (i32 targets arrive as integral values).
RefTensor forward(const OpCall& call, const std::vector<RefTensor>& inputs);

// grads[k] = J_k^T dout for every input k; entries for non-differentiable inputs have an empty
// v. For ops with surrogate gradients (ste_round, ste_hardtanh_gate) this is the declared surrogate.
std::vector<RefTensor> vjp(const OpCall& call, const std::vector<RefTensor>& inputs, const RefTensor& out,
                           const RefTensor& dout);

// Forward and VJP with `err` filled: the error bound of a correct kernel computing in the call's
// dtype (f32 arithmetic for the 16-bit storage types) on a device with math profile `profile`.
// `flush`: the device may flush subnormal results to zero. A null profile bounds the long-double
// reference's own rounding instead.
struct Bounded {
  RefTensor output;
  std::vector<RefTensor> grads;  // empty v for inputs without a gradient
};
Bounded bounded_evaluate(const OpCall& call, const std::vector<RefTensor>& inputs, const RefTensor& dout,
                         const MathProfile* profile, bool flush = false);
// The gradients of bounded_evaluate alone, the same values and bounds (a VJP does not read the
// forward's Tracked values: it evaluates what it needs itself). The reference's checks bound its
// VJP for cotangents besides the case's, where the forward's bound is the case's own.
std::vector<RefTensor> bounded_gradients(const OpCall& call, const std::vector<RefTensor>& inputs,
                                         const RefTensor& dout, const MathProfile* profile, bool flush = false);
// One tensor of bounded_evaluate, the same values and bounds: the output (tensor -1) or input
// `tensor`'s gradient (an evaluation of one element's slice, reference/element_slice.hpp, needs
// one of them).
RefTensor bounded_tensor(const OpCall& call, const std::vector<RefTensor>& inputs, const RefTensor& dout, int tensor,
                         const MathProfile* profile, bool flush = false);

// One node of a graph whose inputs carry the errors of earlier nodes (`err` per element; empty:
// exact values of the dtype): forward and VJP in Tracked arithmetic as in bounded_evaluate, the
// inputs' errors propagated first order through the op's own partial derivatives (the
// reference's Jacobians) and the node's roundings added. A node's output err also holds the
// rounding of storing it in a 16-bit storage type, which the next node reads.
RefTensor bounded_node_forward(const OpCall& call, const std::vector<RefTensor>& inputs, const MathProfile* profile,
                               bool flush = false);
std::vector<RefTensor> bounded_node_vjp(const OpCall& call, const std::vector<RefTensor>& inputs, const RefTensor& dout,
                                        const MathProfile* profile, bool flush = false);

// The same entry points for any instantiated real type (long double here; the MPFR type of
// reference/mp_real.hpp for the oracle; Tracked for bounded_evaluate).
template <class R>
BasicRefTensor<R> basic_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& inputs);
template <class R>
std::vector<BasicRefTensor<R>> basic_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& inputs,
                                         const BasicRefTensor<R>& out, const BasicRefTensor<R>& dout);

}  // namespace gp::ref
