// Op ids, attributes and the per-call description handed to the reference and to backends.
// Shapes and index geometry (broadcasting, reduction splits, matmul sizes) are computed here
// once, so that the reference and every backend agree on what an op means.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/op_list.hpp"
#include "core/shape.hpp"

namespace gp {

// The kernel shape of an op (core/op_list.hpp says what each means).
enum class OpFamily : std::uint8_t { unary, binary, reduction, rowwise, linalg, layout, loss };
inline constexpr int kFamilyCount = 7;

// How an op's output shape follows from its inputs.
enum class ShapeRule : std::uint8_t {
  same,            // input 0's shape
  broadcast,       // NumPy broadcasting of inputs 0 and 1
  reduce,          // input 0 without attrs.axis (kept as 1 with keepdim)
  same_axis,       // input 0's shape; attrs.axis must name one of its dimensions
  same_pair,       // input 0's shape; input 1 has that shape too
  row_params,      // input 0's shape; every other input is [last dim of input 0]
  pair_to_scalar,  // a scalar; inputs 0 and 1 have one shape
  custom,          // its own rule in core/op.cpp
};

// Whether the VJP is the op's derivative or a gradient the op declares (straight-through).
enum class GradientKind : std::uint8_t { exact, surrogate };

enum class OpKind : std::uint8_t {
#define GP_X(name, ...) name,
  GP_OP_LIST(GP_X)
#undef GP_X
};
inline constexpr int kOpCount = 0
#define GP_X(...) +1
    GP_OP_LIST(GP_X)
#undef GP_X
    ;

enum AttrSet : unsigned {
  kAttrNone = 0,
  kAttrP = 1u << 0,
  kAttrAlpha = 1u << 1,
  kAttrGelu = 1u << 2,
  kAttrAxis = 1u << 3,
  kAttrKeepdim = 1u << 4,
  kAttrCorrection = 1u << 5,
  kAttrEps = 1u << 6,
  kAttrShape = 1u << 7,
  kAttrSlice = 1u << 8,
  kAttrReduction = 1u << 9,
  kAttrTau = 1u << 10,
  kAttrOrder = 1u << 11,
  kAttrGrid = 1u << 12,
};

enum class GeluApprox : std::uint8_t { erf, tanh };
enum class LossReduction : std::uint8_t { mean, sum };

struct OpAttrs {
  double p = 1.0;      // pow_scalar exponent
  double alpha = 1.0;  // leaky_relu negative slope; elu alpha
  GeluApprox gelu = GeluApprox::erf;
  int axis = -1;  // reductions, softmax, log_softmax, concat, slice (may be negative)
  bool keepdim = false;
  int correction = 0;                          // variance divisor is n - correction
  double eps = 1e-5;                           // layer_norm
  std::vector<std::int64_t> shape;             // reshape target
  std::int64_t start = 0, stop = 0, step = 1;  // slice along axis: [start, stop) by step
  LossReduction reduction = LossReduction::mean;
  double tau = 1.0;  // gumbel_softmax temperature
  int order = 3;     // bspline_basis polynomial degree (2..5)
  int grid = 5;      // bspline_basis intervals over [-1, 1]
};

std::string_view op_name(OpKind k);
std::optional<OpKind> parse_op(std::string_view name);
const std::vector<OpKind>& all_ops();
OpFamily op_family(OpKind k);
std::string_view family_name(OpFamily f);
ShapeRule op_shape_rule(OpKind k);
GradientKind op_gradient(OpKind k);
// Points of input 0 where a unary op is not differentiable (the catalog's kinks column).
std::span<const double> op_kinks(OpKind k);
int op_arity(OpKind k);  // -1 for variadic
unsigned op_attr_set(OpKind k);
bool input_is_differentiable(OpKind k, int input);
// The two scalars every unary kernel takes, as the device backends pass them: p (pow_scalar's
// exponent) and a (leaky_relu's and elu's alpha; gelu's approximation, 0 = erf, 1 = tanh).
struct UnaryScalars {
  double p = 1, a = 1;
};
struct OpCall;
UnaryScalars unary_scalars(const OpCall& call);

// "p=0.5", "axis=-1,keepdim=1": only the attributes the op uses, in a fixed order.
std::string attrs_to_string(OpKind k, const OpAttrs& a);

// One invocation of an op: what the reference and backends receive. case_id is carried for
// error messages only.
struct OpCall {
  OpKind kind{};
  OpAttrs attrs;
  DType dtype = DType::f32;  // dtype of every floating-point tensor of the call
  std::vector<Shape> input_shapes;
  std::vector<DType> input_dtypes;  // dtype per input (i32 for cross_entropy targets)
  Shape output_shape;
  std::string case_id;
};

// Builds an OpCall, validating the inputs and inferring the output shape; throws gp::Error
// with the reason when the shapes or attributes do not fit the op.
OpCall make_call(OpKind kind, OpAttrs attrs, DType dtype, std::vector<Shape> input_shapes, std::string case_id = {});

// --- geometry shared by every implementation -------------------------------------------------

// Binary broadcasting (NumPy rules), padded on the left to kMaxRank. Element (i0,i1,i2,i3) of
// the output reads a at sum(ik * a_stride[k]) and b likewise; broadcast dims have stride 0.
struct BroadcastPlan {
  std::int64_t out_dims[kMaxRank];
  std::int64_t a_stride[kMaxRank];
  std::int64_t b_stride[kMaxRank];
  std::int64_t numel;
  std::int64_t a_index(std::int64_t out_linear) const;
  std::int64_t b_index(std::int64_t out_linear) const;
};
BroadcastPlan broadcast_plan(const Shape& a, const Shape& b);
Shape broadcast_shapes(const Shape& a, const Shape& b);  // throws gp::Error if incompatible

// A tensor viewed as [outer, n, inner] around one axis: element (o, j, i) sits at
// (o * n + j) * inner + i. Reductions and row-wise ops work on this view.
struct AxisSplit {
  std::int64_t outer, n, inner;
};
AxisSplit split_at_axis(const Shape& s, int axis);

// matmul: a [batch?, m, k] x b [batch?, k, n]; linear: x [m, k], w [n, k], bias [n];
// log_matmul_exp: a [m, k], b [k, n].
struct MatmulDims {
  std::int64_t batch, m, k, n;
};
MatmulDims matmul_dims(const OpCall& call);

// bspline_basis on a uniform grid of `grid` intervals over [-1, 1], extended by `order` knots on
// each side: knot j sits at -1 + (j - order) h, h = 2 / grid, and value x has `grid + order`
// bases. Every implementation works in the knot coordinate u = (x + 1) * (grid / 2), where the
// knots are the integers -order .. grid + order and every knot span is 1.
// Kernels hold the order + 1 bases of one knot span in fixed arrays.
inline constexpr int kBsplineMinOrder = 2, kBsplineMaxOrder = 5;
struct BsplineGeometry {
  int order, grid;
  int bases() const { return grid + order; }
  double half_grid() const { return grid / 2.0; }  // du/dx = 1 / h, exact in every type
};
BsplineGeometry bspline_geometry(const OpCall& call);

}  // namespace gp
