// Public entry points: validate the call and the tensors, then hand over to the op's unit.
#include <array>

#include "core/error.hpp"
#include "reference/internal.hpp"
#include "reference/tracked.hpp"

namespace gp::ref {

namespace detail {

void fail(const OpCall& call, const std::string& what) {
  std::string where = std::string(op_name(call.kind));
  if (!call.case_id.empty()) where += " [" + call.case_id + "]";
  throw Error("reference: " + where + ": " + what);
}

}  // namespace detail

namespace {

using namespace detail;

template <class R>
struct Unit {
  using T = BasicRefTensor<R>;
  T (*forward)(const OpCall&, const std::vector<T>&);
  std::vector<T> (*vjp)(const OpCall&, const std::vector<T>&, const T&);
};
#define GP_REF_UNIT(unit) \
  Unit<R> { unit##_forward<R>, unit##_vjp<R> }

template <class R>
struct OwnUnit {
  OpKind op;
  Unit<R> unit;
};

// The row-wise and linear-algebra ops, each with the unit that computes it: their family's ops
// share no one kernel. Every op of another family is its family unit's, which names it in a
// switch or a formula table.
template <class R>
constexpr OwnUnit<R> kOwnUnits[] = {
    {OpKind::softmax, GP_REF_UNIT(rowwise)},
    {OpKind::log_softmax, GP_REF_UNIT(rowwise)},
    {OpKind::layer_norm, GP_REF_UNIT(layer_norm)},
    {OpKind::rms_norm, GP_REF_UNIT(layer_norm)},
    {OpKind::gumbel_softmax, GP_REF_UNIT(gumbel_softmax)},
    {OpKind::bspline_basis, GP_REF_UNIT(bspline_basis)},
    {OpKind::matmul, GP_REF_UNIT(linalg)},
    {OpKind::linear, GP_REF_UNIT(linalg)},
    {OpKind::tt_embedding, GP_REF_UNIT(tt_embedding)},
    {OpKind::log_matmul_exp, GP_REF_UNIT(log_matmul_exp)},
    {OpKind::gru_cell, GP_REF_UNIT(gru_cell)},
};

// One row per op, in catalog order: the unit that computes it.
template <class R>
constexpr std::array<Unit<R>, kOpCount> kUnits = [] {
  std::array<Unit<R>, kOpCount> t{};
#define GP_X(name, family, ...) t[static_cast<std::size_t>(OpKind::name)] = GP_REF_UNIT(family);
  GP_OP_LIST(GP_X)
#undef GP_X
  for (const OwnUnit<R>& own : kOwnUnits<R>) t[static_cast<std::size_t>(own.op)] = own.unit;
  return t;
}();
#undef GP_REF_UNIT

template <class R>
const Unit<R>& unit_of(const OpCall& call) {
  return kUnits<R>.at(static_cast<std::size_t>(call.kind));
}

template <class R>
void check_tensor(const OpCall& call, const BasicRefTensor<R>& t, const Shape& expected, const std::string& what) {
  if (t.shape != expected)
    fail(call, what + " has shape " + t.shape.to_string() + ", expected " + expected.to_string());
  if (t.numel() != expected.numel())
    fail(call, what + " holds " + std::to_string(t.numel()) + " values for shape " + expected.to_string());
}

// The call must be what core's make_call builds from its inputs (shapes, attributes, output
// shape), and the tensors must match it.
template <class R>
void check_call(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  OpCall expected;
  try {
    expected = make_call(call.kind, call.attrs, call.dtype, call.input_shapes, call.case_id);
  } catch (const Error& e) {
    fail(call, std::string("malformed call: ") + e.what());
  }
  if (expected.output_shape != call.output_shape)
    fail(call, "output shape " + call.output_shape.to_string() + " should be " + expected.output_shape.to_string());
  if (in.size() != call.input_shapes.size())
    fail(call, "got " + std::to_string(in.size()) + " input tensors for " + std::to_string(call.input_shapes.size()) +
                   " input shapes");
  for (std::size_t k = 0; k < in.size(); ++k)
    check_tensor(call, in[k], call.input_shapes[k], "input " + std::to_string(k));
}

}  // namespace

template <class R>
BasicRefTensor<R> BasicRefTensor<R>::from_host(const HostTensor& t) {
  BasicRefTensor<R> r;
  r.shape = t.shape();
  r.v.resize(static_cast<std::size_t>(t.numel()));
  // A double is exact in either real type.
  for (std::int64_t i = 0; i < t.numel(); ++i) r.v[static_cast<std::size_t>(i)] = R(t.get(i));
  return r;
}

template <class R>
BasicRefTensor<R> basic_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& inputs) {
  check_call(call, inputs);
  BasicRefTensor<R> out = unit_of<R>(call).forward(call, inputs);
  check_tensor(call, out, call.output_shape, "forward result");
  return out;
}

template <class R>
std::vector<BasicRefTensor<R>> basic_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& inputs,
                                         const BasicRefTensor<R>& out, const BasicRefTensor<R>& dout) {
  check_call(call, inputs);
  // The reference recomputes what it needs from the inputs; `out` is only checked when given.
  if (!out.v.empty()) check_tensor(call, out, call.output_shape, "forward output");
  check_tensor(call, dout, call.output_shape, "output gradient");
  std::vector<BasicRefTensor<R>> grads = unit_of<R>(call).vjp(call, inputs, dout);
  if (grads.size() != inputs.size()) fail(call, "internal: wrong number of gradients");
  for (std::size_t k = 0; k < grads.size(); ++k) {
    if (!input_is_differentiable(call.kind, static_cast<int>(k))) {
      grads[k] = no_grad<R>(inputs[k].shape);
      continue;
    }
    check_tensor(call, grads[k], inputs[k].shape, "gradient " + std::to_string(k));
  }
  return grads;
}

RefTensor forward(const OpCall& call, const std::vector<RefTensor>& inputs) { return basic_forward(call, inputs); }

std::vector<RefTensor> vjp(const OpCall& call, const std::vector<RefTensor>& inputs, const RefTensor& out,
                           const RefTensor& dout) {
  return basic_vjp(call, inputs, out, dout);
}

namespace {

BasicRefTensor<Tracked> track(const RefTensor& t) {
  BasicRefTensor<Tracked> r;
  r.shape = t.shape;
  r.v.reserve(t.v.size());
  for (long double x : t.v) r.v.push_back(read_input(x));  // inputs are values of the storage type
  return r;
}

RefTensor untrack(const BasicRefTensor<Tracked>& t) {
  RefTensor r;
  r.shape = t.shape;
  r.v.reserve(t.v.size());
  r.err.reserve(t.v.size());
  for (const Tracked& x : t.v) {
    r.v.push_back(x.v);
    r.err.push_back(x.e);
  }
  return r;
}

// A node input: its value with the error it already carries (a leaf: exact in the dtype).
BasicRefTensor<Tracked> track_carried(const RefTensor& t) {
  if (t.err.empty()) return track(t);
  BasicRefTensor<Tracked> r;
  r.shape = t.shape;
  r.v.resize(t.v.size());
  for (std::size_t i = 0; i < t.v.size(); ++i) {
    r.v[i].v = t.v[i];
    r.v[i].e = t.err[i];
  }
  return r;
}

RefTensor untrack_stored(const BasicRefTensor<Tracked>& t) {
  BasicRefTensor<Tracked> s = t;
  for (Tracked& x : s.v) x = stored(x);
  return untrack(s);
}

std::vector<BasicRefTensor<Tracked>> track_all(const std::vector<RefTensor>& inputs) {
  std::vector<BasicRefTensor<Tracked>> in;
  for (const auto& t : inputs) in.push_back(track_carried(t));
  return in;
}

}  // namespace

RefTensor bounded_node_forward(const OpCall& call, const std::vector<RefTensor>& inputs, const MathProfile* profile,
                               bool flush) {
  TrackingScope scope(context_for(call.dtype, profile, flush, call.kind));
  return untrack_stored(basic_forward(call, track_all(inputs)));
}

std::vector<RefTensor> bounded_node_vjp(const OpCall& call, const std::vector<RefTensor>& inputs, const RefTensor& dout,
                                        const MathProfile* profile, bool flush) {
  TrackingScope scope(context_for(call.dtype, profile, flush, call.kind));
  std::vector<RefTensor> out;
  for (const auto& g : basic_vjp(call, track_all(inputs), BasicRefTensor<Tracked>{}, track_carried(dout)))
    out.push_back(g.v.empty() ? RefTensor{g.shape, {}, {}} : untrack_stored(g));
  return out;
}

Bounded bounded_evaluate(const OpCall& call, const std::vector<RefTensor>& inputs, const RefTensor& dout,
                         const MathProfile* profile, bool flush) {
  TrackingScope scope(context_for(call.dtype, profile, flush, call.kind));
  std::vector<BasicRefTensor<Tracked>> in;
  for (const auto& t : inputs) in.push_back(track(t));
  Bounded b;
  b.output = untrack(basic_forward(call, in));
  for (const auto& g : basic_vjp(call, in, BasicRefTensor<Tracked>{}, track(dout))) b.grads.push_back(untrack(g));
  return b;
}

std::vector<RefTensor> bounded_gradients(const OpCall& call, const std::vector<RefTensor>& inputs,
                                         const RefTensor& dout, const MathProfile* profile, bool flush) {
  TrackingScope scope(context_for(call.dtype, profile, flush, call.kind));
  std::vector<BasicRefTensor<Tracked>> in;
  for (const auto& t : inputs) in.push_back(track(t));
  std::vector<RefTensor> grads;
  for (const auto& g : basic_vjp(call, in, BasicRefTensor<Tracked>{}, track(dout))) grads.push_back(untrack(g));
  return grads;
}

RefTensor bounded_tensor(const OpCall& call, const std::vector<RefTensor>& inputs, const RefTensor& dout, int tensor,
                         const MathProfile* profile, bool flush) {
  TrackingScope scope(context_for(call.dtype, profile, flush, call.kind));
  std::vector<BasicRefTensor<Tracked>> in;
  for (const auto& t : inputs) in.push_back(track(t));
  if (tensor < 0) return untrack(basic_forward(call, in));
  return untrack(basic_vjp(call, in, BasicRefTensor<Tracked>{}, track(dout)).at(static_cast<std::size_t>(tensor)));
}

#define GP_REF_INSTANTIATE_API(R)                                                                            \
  template struct BasicRefTensor<R>;                                                                         \
  template BasicRefTensor<R> basic_forward<R>(const OpCall&, const std::vector<BasicRefTensor<R>>&);         \
  template std::vector<BasicRefTensor<R>> basic_vjp<R>(const OpCall&, const std::vector<BasicRefTensor<R>>&, \
                                                       const BasicRefTensor<R>&, const BasicRefTensor<R>&);
GP_REF_INSTANTIATE_API(long double)
GP_REF_INSTANTIATE_API(MpReal)
GP_REF_INSTANTIATE_API(Tracked)
#undef GP_REF_INSTANTIATE_API

}  // namespace gp::ref
