#include "core/op.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/error.hpp"

namespace gp {

namespace {

constexpr int kMaxKinks = 3;

struct OpInfo {
  std::string_view name;
  OpFamily family;
  ShapeRule shape;
  int arity;
  unsigned grad_mask;
  unsigned attrs;
  GradientKind gradient;
  Reads reads;
  std::array<double, kMaxKinks> kinks;
  int kink_count;
};

// The kinks column: up to kMaxKinks points, after the fixed columns.
template <typename... P>
constexpr OpInfo with_kinks(OpInfo row, P... kinks) {
  static_assert(sizeof...(P) <= kMaxKinks, "raise kMaxKinks");
  row.kinks = {static_cast<double>(kinks)...};
  row.kink_count = sizeof...(P);
  return row;
}

constexpr std::array kOps = {
#define GP_X(name, family, shape, inputs, mask, attrs, gradient, reads, ...) \
  with_kinks(OpInfo{#name,                                                   \
                    OpFamily::family,                                        \
                    ShapeRule::shape,                                        \
                    inputs,                                                  \
                    mask,                                                    \
                    attrs,                                                   \
                    GradientKind::gradient,                                  \
                    Reads::reads,                                            \
                    {},                                                      \
                    0} __VA_OPT__(, ) __VA_ARGS__),
    GP_OP_LIST(GP_X)
#undef GP_X
};
static_assert(kOps.size() == kOpCount);

const OpInfo& info(OpKind k) { return kOps.at(static_cast<std::size_t>(k)); }

std::string join_dims(const std::vector<std::int64_t>& d) { return Shape(d).to_string(); }

[[noreturn]] void bad(const std::string& what, OpKind k) { throw Error(std::string(op_name(k)) + ": " + what); }

Shape reduced_shape(const Shape& in, int axis, bool keepdim) {
  std::vector<std::int64_t> d;
  for (int i = 0; i < in.rank(); ++i) {
    if (i != axis)
      d.push_back(in[i]);
    else if (keepdim)
      d.push_back(1);
  }
  return Shape(std::move(d));
}

// Every input has the parameter's shape, of any rank; the output stacks the new parameter and
// its new state as rows of the flattened parameter.
Shape optimizer_shape(OpKind k, const OpAttrs& a, const std::vector<Shape>& in) {
  for (std::size_t i = 1; i < in.size(); ++i)
    if (in[i] != in[0]) bad("input " + std::to_string(i) + " must have the parameter's shape " + in[0].to_string(), k);
  if (!(a.lr > 0) || !(a.weight_decay >= 0)) bad("needs lr > 0 and weight decay >= 0", k);
  if (k == OpKind::sgd_step) {
    if (!(a.momentum >= 0) || !(a.dampening >= 0 && a.dampening <= 1))
      bad("needs momentum >= 0, dampening in [0, 1]", k);
    if (a.nesterov && (a.momentum == 0 || a.dampening != 0))
      bad("Nesterov momentum needs momentum > 0, dampening 0", k);
  } else {
    if (!(a.beta1 >= 0 && a.beta1 < 1) || !(a.beta2 >= 0 && a.beta2 < 1)) bad("needs betas in [0, 1)", k);
    if (!(a.eps > 0)) bad("needs eps > 0", k);
    if (a.t < 1 || a.t > (std::int64_t{1} << 53)) bad("step counter must be 1..2^53, got " + std::to_string(a.t), k);
  }
  return Shape{optimizer_rows(k), in[0].numel()};
}

// x [B, I], h [B, H], W_ih [3H, I], W_hh [3H, H], b_ih [3H], b_hh [3H]: h' is h's shape.
Shape gru_cell_shape(const std::vector<Shape>& in) {
  const OpKind k = OpKind::gru_cell;
  if (in[0].rank() != 2 || in[1].rank() != 2 || in[0][0] != in[1][0] || in[0][1] < 1 || in[1][1] < 1)
    bad("expects x [batch, input] and h [batch, hidden], got " + in[0].to_string() + " and " + in[1].to_string(), k);
  const std::int64_t input = in[0][1], gates = kGruGates * in[1][1];
  const Shape want[] = {Shape{gates, input}, Shape{gates, in[1][1]}, Shape{gates}, Shape{gates}};
  const char* names[] = {"W_ih", "W_hh", "b_ih", "b_hh"};
  for (int i = 0; i < 4; ++i)
    if (in[i + 2] != want[i])
      bad(std::string(names[i]) + " must be " + want[i].to_string() + " (gates r, z, n stacked), got " +
              in[i + 2].to_string(),
          k);
  return in[1];
}

// A call that reduces over `count` elements (an axis, a row's statistics, a loss's mean): an
// empty set has a value only where the op has an identity (op_reduces_empty_to_zero); variance
// needs more elements than its correction, or it divides by zero or less.
void check_reduced_count(OpKind k, const OpAttrs& a, std::int64_t count, const char* what) {
  if (count == 0 && !op_reduces_empty_to_zero(k, a))
    bad(std::string("has no value over no element (") + what + " of size 0): only sum and the sum losses do (0)", k);
  if (k == OpKind::variance && count <= a.correction)
    bad("variance over " + std::to_string(count) + " element(s) with correction " + std::to_string(a.correction) +
            " divides by " + std::to_string(count - a.correction),
        k);
}

Shape infer(OpKind k, const OpAttrs& a, const std::vector<Shape>& in) {
  auto need_rank = [&](const Shape& s, int lo, int hi) {
    if (s.rank() < lo || s.rank() > hi)
      bad("expects rank " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " + s.to_string() + " (rank " +
              std::to_string(s.rank()) + ")",
          k);
  };
  switch (op_shape_rule(k)) {
    case ShapeRule::same:
      return in[0];
    case ShapeRule::broadcast:
      return broadcast_shapes(in[0], in[1]);
    case ShapeRule::reduce: {
      need_rank(in[0], 1, kMaxRank);
      const int axis = in[0].axis(a.axis);
      check_reduced_count(k, a, in[0][axis], "an axis");
      return reduced_shape(in[0], axis, a.keepdim);
    }
    case ShapeRule::same_axis:
      need_rank(in[0], 1, kMaxRank);
      in[0].axis(a.axis);
      return in[0];
    case ShapeRule::same_pair:
      need_rank(in[0], 1, kMaxRank);
      if (in[0] != in[1]) bad("input 1 must have input 0's shape " + in[0].to_string(), k);
      return in[0];
    case ShapeRule::row_params: {
      need_rank(in[0], 1, kMaxRank);
      check_reduced_count(k, a, in[0][in[0].rank() - 1], "a row");
      Shape row{in[0][in[0].rank() - 1]};
      for (std::size_t i = 1; i < in.size(); ++i)
        if (in[i] != row) bad("input " + std::to_string(i) + " must be [" + row.to_string() + "]", k);
      return in[0];
    }
    case ShapeRule::pair_to_scalar:
      if (in[0] != in[1]) bad("inputs must have the same shape", k);
      check_reduced_count(k, a, in[0].numel(), "the elements");
      return Shape{};
    case ShapeRule::custom:
      break;
  }
  switch (k) {
    case OpKind::matmul: {
      need_rank(in[0], 2, 3);
      if (in[0].rank() != in[1].rank()) bad("operands must have the same rank", k);
      int r = in[0].rank();
      if (in[0][r - 1] != in[1][r - 2]) bad("inner sizes differ: " + in[0].to_string() + " x " + in[1].to_string(), k);
      if (r == 3 && in[0][0] != in[1][0]) bad("batch sizes differ", k);
      return r == 2 ? Shape{in[0][0], in[1][1]} : Shape{in[0][0], in[0][1], in[1][2]};
    }
    case OpKind::log_matmul_exp: {
      need_rank(in[0], 2, 2);
      if (in[0][1] < 1) bad("needs an inner size of at least 1 (the log of an empty sum is -inf)", k);
      if (in[1].rank() != 2 || in[1][0] != in[0][1])
        bad("B must be [" + std::to_string(in[0][1]) + ", n], got " + in[1].to_string(), k);
      return Shape{in[0][0], in[1][1]};
    }
    case OpKind::linear: {
      need_rank(in[0], 2, 2);
      if (in[1].rank() != 2 || in[1][1] != in[0][1]) bad("weight must be [out, " + std::to_string(in[0][1]) + "]", k);
      if (in[2] != Shape{in[1][0]}) bad("bias must be [" + std::to_string(in[1][0]) + "]", k);
      return Shape{in[0][0], in[1][0]};
    }
    case OpKind::transpose: {
      need_rank(in[0], 2, 3);
      auto d = in[0].dims();
      std::swap(d[d.size() - 1], d[d.size() - 2]);
      return Shape(d);
    }
    case OpKind::reshape: {
      Shape out(a.shape);
      if (out.rank() > kMaxRank || out.numel() != in[0].numel())
        bad("cannot reshape " + in[0].to_string() + " to " + join_dims(a.shape), k);
      return out;
    }
    case OpKind::concat: {
      if (in.size() < 2) bad("needs at least two inputs", k);
      int ax = in[0].axis(a.axis);
      auto d = in[0].dims();
      for (std::size_t i = 1; i < in.size(); ++i) {
        if (in[i].rank() != in[0].rank()) bad("inputs must have the same rank", k);
        for (int j = 0; j < in[0].rank(); ++j)
          if (j != ax && in[i][j] != in[0][j]) bad("inputs differ outside the concat axis", k);
        d[static_cast<std::size_t>(ax)] += in[i][ax];
      }
      return Shape(d);
    }
    case OpKind::slice: {
      int ax = in[0].axis(a.axis);
      std::int64_t dim = in[0][ax];
      if (a.step < 1 || a.start < 0 || a.stop > dim || a.start >= a.stop)
        bad("slice [" + std::to_string(a.start) + ":" + std::to_string(a.stop) + ":" + std::to_string(a.step) +
                "] does not fit dimension " + std::to_string(dim),
            k);
      auto d = in[0].dims();
      d[static_cast<std::size_t>(ax)] = (a.stop - a.start + a.step - 1) / a.step;
      return Shape(d);
    }
    case OpKind::cross_entropy:
      if (in[0].rank() != 2 || in[1] != Shape{in[0][0]}) bad("expects logits [B, C] and targets [B]", k);
      if (in[0][1] == 0) bad("needs at least one class, got logits " + in[0].to_string(), k);
      check_reduced_count(k, a, in[0][0], "the batch");
      return Shape{};
    case OpKind::bspline_basis: {  // a row of bases per value: x.shape + [grid + order]
      need_rank(in[0], 1, kMaxRank - 1);
      if (a.order < kBsplineMinOrder || a.order > kBsplineMaxOrder)
        bad("order must be " + std::to_string(kBsplineMinOrder) + ".." + std::to_string(kBsplineMaxOrder) + ", got " +
                std::to_string(a.order),
            k);
      if (a.grid < 1) bad("grid must be at least 1, got " + std::to_string(a.grid), k);
      auto d = in[0].dims();
      d.push_back(a.grid + a.order);
      return Shape(d);
    }
    case OpKind::tt_embedding: {  // ids [batch], G1 [v1, 1, d1, r1], G2 [v2, r1, d2, r2], G3 [v3, r2, d3, 1]
      need_rank(in[0], 1, 1);
      for (int c = 1; c <= 3; ++c)
        if (in[c].rank() != 4 || in[c].numel() == 0) bad("core " + std::to_string(c) + " must be [v, r, d, r']", k);
      if (in[1][1] != 1 || in[3][3] != 1) bad("the outer ranks of cores 1 and 3 must be 1", k);
      if (in[1][3] != in[2][1] || in[2][3] != in[3][1])
        bad("ranks of neighbouring cores differ: " + in[1].to_string() + ", " + in[2].to_string() + ", " +
                in[3].to_string(),
            k);
      return Shape{in[0][0], in[1][2] * in[2][2] * in[3][2]};
    }
    case OpKind::sgd_step:
    case OpKind::adamw_step:
      return optimizer_shape(k, a, in);
    case OpKind::gru_cell:
      return gru_cell_shape(in);
    default:
      bad("has no shape rule", k);
  }
}

}  // namespace

bool op_reduces_empty_to_zero(OpKind k, const OpAttrs& a) {
  return k == OpKind::sum || (k == OpKind::mse_loss && a.reduction == LossReduction::sum);
}

std::string_view op_name(OpKind k) { return info(k).name; }

std::optional<OpKind> parse_op(std::string_view name) {
  for (std::size_t i = 0; i < kOps.size(); ++i)
    if (kOps[i].name == name) return static_cast<OpKind>(i);
  return std::nullopt;
}

const std::vector<OpKind>& all_ops() {
  static const std::vector<OpKind> ops = [] {
    std::vector<OpKind> v;
    for (std::size_t i = 0; i < kOps.size(); ++i) v.push_back(static_cast<OpKind>(i));
    return v;
  }();
  return ops;
}

OpFamily op_family(OpKind k) { return info(k).family; }

constexpr std::array<std::string_view, kFamilyCount> kFamilyNames = {"unary",  "binary", "reduction", "rowwise",
                                                                     "linalg", "layout", "loss",      "optimizer"};

std::string_view family_name(OpFamily f) { return kFamilyNames.at(static_cast<std::size_t>(f)); }

ShapeRule op_shape_rule(OpKind k) { return info(k).shape; }
GradientKind op_gradient(OpKind k) { return info(k).gradient; }
Reads op_reads(OpKind k) { return info(k).reads; }

bool op_is_straight_through(OpKind k) {
  const GradientKind g = op_gradient(k);
  return g == GradientKind::identity_st || g == GradientKind::hardtanh_st;
}

// The surrogates a straight-through row declares: exact (a copy of dy or a zero), so a backend is
// compared against them as against any exact value.
double surrogate_gradient(OpKind k, double x, double dy) {
  switch (op_gradient(k)) {
    case GradientKind::identity_st:
      return dy;
    case GradientKind::hardtanh_st:
      return std::fabs(x) < 1 ? dy : 0.0;
    case GradientKind::exact:
    case GradientKind::sparse:
      break;
  }
  bad("has no declared surrogate gradient", k);
}

std::string_view surrogate_note(OpKind k) {
  switch (op_gradient(k)) {
    case GradientKind::identity_st:
      return "straight-through: the forward has zero derivative almost everywhere; checked against the "
             "declared identity surrogate dy";
    case GradientKind::hardtanh_st:
      return "straight-through: the step is checked against the declared hardtanh surrogate dy*[|x|<1]";
    case GradientKind::exact:
    case GradientKind::sparse:
      break;
  }
  return {};
}
std::span<const double> op_kinks(OpKind k) {
  const OpInfo& i = info(k);
  return {i.kinks.data(), static_cast<std::size_t>(i.kink_count)};
}

int op_arity(OpKind k) { return info(k).arity; }
unsigned op_attr_set(OpKind k) { return info(k).attrs; }

bool op_is_forward_only(OpKind k) { return info(k).grad_mask == 0; }

bool input_is_differentiable(OpKind k, int input) {
  if (input < 0 || input > 7) return false;
  return (info(k).grad_mask >> input) & 1u;
}

int op_index_input(OpKind k) {
  if (k == OpKind::cross_entropy) return 1;
  if (k == OpKind::tt_embedding) return 0;
  return -1;
}

std::int64_t index_count(const OpCall& call) {
  if (call.kind == OpKind::cross_entropy) return call.input_shapes.at(0)[1];
  if (call.kind == OpKind::tt_embedding) return tt_geometry(call).vocabulary();
  return 0;
}

UnaryScalars unary_scalars(const OpCall& call) {
  UnaryScalars s{call.attrs.p, call.attrs.alpha};
  if (call.kind == OpKind::gelu) s.a = call.attrs.gelu == GeluApprox::erf ? 0 : 1;
  return s;
}

OpCall make_call(OpKind kind, OpAttrs attrs, DType dtype, std::vector<Shape> input_shapes, std::string case_id) {
  int arity = op_arity(kind);
  if (arity >= 0 && static_cast<int>(input_shapes.size()) != arity)
    bad("expects " + std::to_string(arity) + " inputs, got " + std::to_string(input_shapes.size()), kind);
  if (!is_float(dtype)) bad("dtype must be floating point", kind);
  // In f32 and f64 the storage type is the compute type: a staged intermediate would be a no-op.
  if (attrs.staged != Staged::none && ((op_attr_set(kind) & kAttrStaged) == 0 || dtype_size(dtype) != 2))
    bad("staged=storage needs an op that has the attribute and a 16-bit dtype", kind);
  OpCall c;
  c.kind = kind;
  c.dtype = dtype;
  c.output_shape = infer(kind, attrs, input_shapes);
  c.attrs = std::move(attrs);
  c.input_shapes = std::move(input_shapes);
  c.input_dtypes.assign(c.input_shapes.size(), dtype);
  if (op_index_input(kind) >= 0) c.input_dtypes[static_cast<std::size_t>(op_index_input(kind))] = DType::i32;
  c.case_id = std::move(case_id);
  return c;
}

std::optional<std::string> call_problem(const OpCall& call) {
  OpCall rule;
  try {
    rule = make_call(call.kind, call.attrs, call.dtype, call.input_shapes);
  } catch (const Error& e) {
    const std::string op(op_name(call.kind)), what = e.what();
    return what.starts_with(op + ": ") ? what : op + ": " + what;  // a shape's own errors name no op
  }
  const std::string op(op_name(call.kind));
  if (call.output_shape != rule.output_shape)
    return op + ": output shape " + call.output_shape.to_string() + ", where the inputs give " +
           rule.output_shape.to_string();
  if (call.input_dtypes.size() != rule.input_dtypes.size())
    return op + ": " + std::to_string(call.input_dtypes.size()) + " input dtypes for " +
           std::to_string(rule.input_dtypes.size()) + " inputs";
  for (std::size_t k = 0; k < rule.input_dtypes.size(); ++k)
    if (call.input_dtypes[k] != rule.input_dtypes[k])
      return op + ": input " + std::to_string(k) + " has dtype " + std::string(dtype_name(call.input_dtypes[k])) +
             ", the op takes " + std::string(dtype_name(rule.input_dtypes[k]));
  if (!call.input_layouts.empty() && call.input_layouts.size() != call.input_shapes.size())
    return op + ": " + std::to_string(call.input_layouts.size()) + " input layouts for " +
           std::to_string(call.input_shapes.size()) + " inputs";
  for (std::size_t k = 0; k < call.input_layouts.size(); ++k)
    if (call.input_layouts[k])
      if (auto problem = layout_problem(call.input_shapes[k], *call.input_layouts[k]))
        return op + ": input " + std::to_string(k) + " has " + *problem;
  return std::nullopt;
}

bool has_empty_input(const OpCall& call) {
  return std::any_of(call.input_shapes.begin(), call.input_shapes.end(), [](const Shape& s) { return s.numel() == 0; });
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  int r = std::max(a.rank(), b.rank());
  std::vector<std::int64_t> d(static_cast<std::size_t>(r));
  for (int i = 0; i < r; ++i) {
    std::int64_t da = i < r - a.rank() ? 1 : a[i - (r - a.rank())];
    std::int64_t db = i < r - b.rank() ? 1 : b[i - (r - b.rank())];
    if (da != db && da != 1 && db != 1)
      throw Error("shapes " + a.to_string() + " and " + b.to_string() + " do not broadcast");
    d[static_cast<std::size_t>(i)] = da == 1 ? db : da;  // a 1 stretches to 0 too: [0, 5] + [5] is [0, 5]
  }
  return Shape(std::move(d));
}

BroadcastPlan broadcast_plan(const Shape& a, const Shape& b) {
  Shape out = broadcast_shapes(a, b);
  BroadcastPlan p{};
  auto fill = [&](const Shape& s, std::int64_t* stride) {
    std::int64_t st = 1;
    for (int i = kMaxRank - 1; i >= 0; --i) {
      int si = i - (kMaxRank - s.rank());
      std::int64_t d = si >= 0 ? s[si] : 1;
      stride[i] = d == 1 ? 0 : st;
      st *= d;
    }
  };
  for (int i = 0; i < kMaxRank; ++i) {
    int oi = i - (kMaxRank - out.rank());
    p.out_dims[i] = oi >= 0 ? out[oi] : 1;
  }
  fill(a, p.a_stride);
  fill(b, p.b_stride);
  p.numel = out.numel();
  return p;
}

namespace {
std::int64_t strided_index(const BroadcastPlan& p, const std::int64_t* stride, std::int64_t linear) {
  std::int64_t idx = 0;
  for (int i = kMaxRank - 1; i >= 0; --i) {
    idx += (linear % p.out_dims[i]) * stride[i];
    linear /= p.out_dims[i];
  }
  return idx;
}
}  // namespace

std::int64_t BroadcastPlan::a_index(std::int64_t out_linear) const {
  return strided_index(*this, a_stride, out_linear);
}
std::int64_t BroadcastPlan::b_index(std::int64_t out_linear) const {
  return strided_index(*this, b_stride, out_linear);
}

AxisSplit split_at_axis(const Shape& s, int axis) {
  int ax = s.axis(axis);
  AxisSplit r{1, s[ax], 1};
  for (int i = 0; i < ax; ++i) r.outer *= s[i];
  for (int i = ax + 1; i < s.rank(); ++i) r.inner *= s[i];
  return r;
}

MatmulDims matmul_dims(const OpCall& c) {
  if (c.kind != OpKind::matmul && c.kind != OpKind::linear && c.kind != OpKind::log_matmul_exp)
    bad("has no matmul sizes", c.kind);
  const auto& a = c.input_shapes.at(0);
  const auto& b = c.input_shapes.at(1);
  if (c.kind == OpKind::linear) return {1, a[0], a[1], b[0]};
  if (a.rank() == 3) return {a[0], a[1], a[2], b[2]};
  return {1, a[0], a[1], b[1]};
}

BsplineGeometry bspline_geometry(const OpCall& c) {
  if (c.kind != OpKind::bspline_basis) bad("has no B-spline geometry", c.kind);
  return {c.attrs.order, c.attrs.grid};
}

TtGeometry tt_geometry(const OpCall& c) {
  if (c.kind != OpKind::tt_embedding) bad("has no tensor-train geometry", c.kind);
  const auto& s = c.input_shapes;
  return {s[0][0], s[1][0], s[2][0], s[3][0], s[1][2], s[2][2], s[3][2], s[2][1], s[2][3]};
}

GruGeometry gru_geometry(const OpCall& c) {
  if (c.kind != OpKind::gru_cell) bad("has no GRU geometry", c.kind);
  const auto& s = c.input_shapes;
  return {s[0][0], s[0][1], s[1][1]};
}

OptimizerScalars optimizer_scalars(const OpCall& c) {
  if (op_family(c.kind) != OpFamily::optimizer) bad("is not an optimizer step", c.kind);
  const OpAttrs& a = c.attrs;
  OptimizerScalars s;
  s.lr = a.lr;
  s.weight_decay = a.weight_decay;
  s.momentum = a.momentum;
  s.one_minus_dampening = 1 - a.dampening;
  s.nesterov = a.nesterov;
  s.first = a.first;
  s.beta1 = a.beta1;
  s.one_minus_beta1 = 1 - a.beta1;
  s.beta2 = a.beta2;
  s.one_minus_beta2 = 1 - a.beta2;
  s.eps = a.eps;
  s.decay = 1 - a.lr * a.weight_decay;
  s.t = static_cast<double>(a.t);
  return s;
}

int optimizer_rows(OpKind k) { return k == OpKind::adamw_step ? 3 : 2; }

}  // namespace gp
