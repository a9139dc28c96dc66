// Sub-problems for the oracle check. MPFR at 166 bits costs ~0.3 us per multiply-add and ~1.5 us
// per exp, so every element of a 64x128x128 matmul is too slow for CI; instead the oracle
// evaluates a smaller problem of the same case: the same op, attributes, dtype and input values,
// restricted so that every compared element is computed exactly as in the full case. The catalog
// row's reads column (core/op_list.hpp) says which restriction keeps that true:
//   elementwise (unary, ste_*, same-shape binary): sampled elements (first, last, the inputs'
//     extremes, the rest drawn at random)
//   binary [B, N] o [N] beyond 1024 outputs: sampled columns j, all B rows (the gradient of the
//     [N] operand is a sum over the rows, so the rows stay whole); other broadcasts: full
//   reductions, softmax, log_softmax, logsumexp, gumbel_softmax: sampled whole rows along the
//     axis, so the accumulation length n is the real one
//   matmul / linear: sampled rows of A (X) with all of B (W, bias) for C and dA; sampled columns
//     of B (rows of W, entries of the bias) with all of A for C and dB (dW, db)
//   layer_norm (dw, db sum over every row), losses (scalar sums), layout ops, small cases: full
#include <algorithm>
#include <numeric>
#include <random>

#include "core/fnv1a.hpp"
#include "harness/audit/oracle_check.hpp"

namespace gp {

namespace {

using ref::RefTensor;
using Index = std::vector<std::int64_t>;

std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

Index iota(std::int64_t n) {
  Index v(at(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

RefTensor gather(const RefTensor& t, const Shape& shape, const Index& src) {
  RefTensor g;
  g.shape = shape;
  for (std::int64_t i : src) g.v.push_back(t.v[at(i)]);
  return g;
}

std::int64_t argmin_of(const RefTensor& t) { return std::min_element(t.v.begin(), t.v.end()) - t.v.begin(); }
std::int64_t argmax_of(const RefTensor& t) { return std::max_element(t.v.begin(), t.v.end()) - t.v.begin(); }

// `want` distinct indices of [0, n), sorted: the `must` ones first, the rest uniformly at random
// from a stream seeded by the case id and the seed (the same picks on every run).
Index pick(std::int64_t n, std::int64_t want, const Index& must, const std::string& id, std::uint64_t seed) {
  if (want >= n) return iota(n);
  std::mt19937_64 gen(Fnv1a(Fnv1a::kShortStart ^ seed).add(id).value());
  Index out;
  auto add = [&](std::int64_t i) {
    if (i >= 0 && i < n && std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
  };
  for (std::int64_t i : must) add(i);
  while (static_cast<std::int64_t>(out.size()) < want)
    add(static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(n)));
  std::sort(out.begin(), out.end());
  return out;
}

OracleSubProblem full(const Case& c, const ReferenceData& d) {
  OracleSubProblem p{c.call, d.ref_inputs, d.ref_cotangent, iota(c.call.output_shape.numel()), {}};
  for (const auto& t : d.ref_inputs) p.grad_map.push_back(iota(t.numel()));
  return p;
}

OracleSubProblem make(const Case& c, std::vector<RefTensor> inputs, RefTensor dout, OpAttrs attrs) {
  std::vector<Shape> shapes;
  shapes.reserve(inputs.size());
  for (const auto& t : inputs) shapes.push_back(t.shape);
  OracleSubProblem p;
  p.call = make_call(c.decl.op, std::move(attrs), c.dtype, std::move(shapes), c.id);
  p.inputs = std::move(inputs);
  p.dout = std::move(dout);
  p.grad_map.resize(p.inputs.size());
  return p;
}

// Every input (and the output) has the shape of input 0: gather the same elements of each.
OracleSubProblem elements(const Case& c, const ReferenceData& d, std::int64_t sample, std::uint64_t seed) {
  Index must{0, d.ref_inputs[0].numel() - 1};
  for (const auto& t : d.ref_inputs) must.push_back(argmin_of(t)), must.push_back(argmax_of(t));
  Index idx = pick(d.ref_inputs[0].numel(), sample, must, c.id, seed);
  const Shape s{static_cast<std::int64_t>(idx.size())};
  std::vector<RefTensor> in;
  for (const auto& t : d.ref_inputs) in.push_back(gather(t, s, idx));
  OracleSubProblem p = make(c, std::move(in), gather(d.ref_cotangent, s, idx), c.call.attrs);
  p.out_map = idx;
  for (auto& m : p.grad_map) m = idx;
  return p;
}

// a [B, N] o b [N]: columns J of a and entries J of b.
OracleSubProblem columns(const Case& c, const ReferenceData& d, std::int64_t count, std::uint64_t seed) {
  const std::int64_t rows = c.call.input_shapes[0][0], n = c.call.input_shapes[0][1];
  Index cols = pick(n, count, {0, n - 1}, c.id, seed);
  const std::int64_t m = static_cast<std::int64_t>(cols.size());
  Index a_idx;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j : cols) a_idx.push_back(r * n + j);
  OracleSubProblem p =
      make(c, {gather(d.ref_inputs[0], Shape{rows, m}, a_idx), gather(d.ref_inputs[1], Shape{m}, cols)},
           gather(d.ref_cotangent, Shape{rows, m}, a_idx), c.call.attrs);
  p.out_map = a_idx;
  p.grad_map = {a_idx, cols};
  return p;
}

// Whole rows along the op's axis (the last one for an op without one: gumbel_softmax), as [m, n]
// with axis 1.
OracleSubProblem rows(const Case& c, const ReferenceData& d, std::int64_t count, std::uint64_t seed) {
  const bool reduces = op_family(c.decl.op) == OpFamily::reduction;
  const int axis = (op_attr_set(c.decl.op) & kAttrAxis) ? c.call.attrs.axis : -1;  // else the last axis
  const AxisSplit s = split_at_axis(c.call.input_shapes[0], axis);
  const std::int64_t total = s.outer * s.inner;
  if (count >= total) return full(c, d);
  Index picked = pick(total, count, {0, total - 1}, c.id, seed);
  const std::int64_t m = static_cast<std::int64_t>(picked.size());
  Index elems, outs;
  for (std::int64_t r : picked) {
    const std::int64_t o = r / s.inner, i = r % s.inner;
    for (std::int64_t j = 0; j < s.n; ++j) elems.push_back((o * s.n + j) * s.inner + i);
    outs.push_back(o * s.inner + i);
  }
  const Shape sub{m, s.n};
  std::vector<RefTensor> in;
  for (const auto& t : d.ref_inputs) in.push_back(gather(t, sub, elems));
  OpAttrs attrs = c.call.attrs;
  attrs.axis = 1;
  attrs.keepdim = false;
  const Index& out_idx = reduces ? outs : elems;
  OracleSubProblem p = make(c, std::move(in), gather(d.ref_cotangent, reduces ? Shape{m} : sub, out_idx), attrs);
  p.out_map = out_idx;
  for (auto& g : p.grad_map) g = elems;
  return p;
}

// matmul / linear: rows of A (X), then columns of B (rows of W).
std::vector<OracleSubProblem> matrix(const Case& c, const ReferenceData& d, std::int64_t count, std::uint64_t seed) {
  const MatmulDims md = matmul_dims(c.call);
  const bool linear = c.decl.op == OpKind::linear;
  const bool batched = !linear && c.call.input_shapes[0].rank() == 3;
  if (md.batch * md.m * md.n * md.k <= 4096 || (linear && c.call.input_shapes[0].rank() != 2)) return {full(c, d)};
  auto batch_shape = [&](std::int64_t r, std::int64_t q) { return batched ? Shape{md.batch, r, q} : Shape{r, q}; };
  std::vector<OracleSubProblem> out;
  {  // rows I of A: C[I, :] and dA[I, :]
    Index I = pick(md.m, count, {0, md.m - 1}, c.id + "/rows", seed);
    const std::int64_t r = static_cast<std::int64_t>(I.size());
    Index a_idx, c_idx;
    for (std::int64_t b = 0; b < md.batch; ++b)
      for (std::int64_t i : I) {
        for (std::int64_t p = 0; p < md.k; ++p) a_idx.push_back((b * md.m + i) * md.k + p);
        for (std::int64_t j = 0; j < md.n; ++j) c_idx.push_back((b * md.m + i) * md.n + j);
      }
    std::vector<RefTensor> in = d.ref_inputs;
    in[0] = gather(d.ref_inputs[0], batch_shape(r, md.k), a_idx);
    OracleSubProblem p = make(c, std::move(in), gather(d.ref_cotangent, batch_shape(r, md.n), c_idx), c.call.attrs);
    p.out_map = c_idx;
    p.grad_map[0] = a_idx;
    for (std::size_t k = 1; k < p.grad_map.size(); ++k) p.grad_map[k].assign(p.inputs[k].v.size(), -1);
    out.push_back(std::move(p));
  }
  {  // columns J of B (rows of W, entries of the bias): C[:, J] and dB[:, J] (dW[J, :], db[J])
    Index J = pick(md.n, count, {0, md.n - 1}, c.id + "/cols", seed);
    const std::int64_t q = static_cast<std::int64_t>(J.size());
    Index b_idx, c_idx;
    for (std::int64_t b = 0; b < md.batch; ++b) {
      for (std::int64_t i = 0; i < md.m; ++i)
        for (std::int64_t j : J) c_idx.push_back((b * md.m + i) * md.n + j);
      if (linear) continue;
      for (std::int64_t p = 0; p < md.k; ++p)
        for (std::int64_t j : J) b_idx.push_back((b * md.k + p) * md.n + j);
    }
    if (linear)
      for (std::int64_t j : J)
        for (std::int64_t p = 0; p < md.k; ++p) b_idx.push_back(j * md.k + p);
    std::vector<RefTensor> in = d.ref_inputs;
    in[1] = gather(d.ref_inputs[1], linear ? Shape{q, md.k} : batch_shape(md.k, q), b_idx);
    if (linear) in[2] = gather(d.ref_inputs[2], Shape{q}, J);
    OracleSubProblem p = make(c, std::move(in), gather(d.ref_cotangent, batch_shape(md.m, q), c_idx), c.call.attrs);
    p.out_map = c_idx;
    p.grad_map[0].assign(p.inputs[0].v.size(), -1);
    p.grad_map[1] = b_idx;
    if (linear) p.grad_map[2] = J;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::vector<OracleSubProblem> oracle_subproblems(const Case& c, const ReferenceData& d, const OracleOptions& opts,
                                                 std::uint64_t seed) {
  if (opts.all) return {full(c, d)};
  const std::int64_t sample = std::max<std::int64_t>(opts.sample, 1), lines = std::max<std::int64_t>(sample / 8, 2);
  const auto& shapes = c.call.input_shapes;
  switch (op_reads(c.decl.op)) {  // the catalog's reads column
    case Reads::elements:
      if (shapes.size() == 1 || shapes[0] == shapes[1]) return {elements(c, d, sample, seed)};
      if (c.call.output_shape.numel() > 1024 && shapes[0].rank() == 2 && shapes[1].rank() == 1 &&
          shapes[1][0] == shapes[0][1])
        return {columns(c, d, lines, seed)};
      return {full(c, d)};
    case Reads::rows:
      return {rows(c, d, lines, seed)};
    case Reads::matrix:
      return matrix(c, d, lines, seed);
    case Reads::whole:
      return {full(c, d)};
  }
  return {full(c, d)};
}

}  // namespace gp
