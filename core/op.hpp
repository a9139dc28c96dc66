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

#include "core/attr_list.hpp"
#include "core/dtype.hpp"
#include "core/op_list.hpp"
#include "core/shape.hpp"
#include "core/strided.hpp"

namespace gp {

// The kernel shape of an op (core/op_list.hpp says what each means).
enum class OpFamily : std::uint8_t { unary, binary, reduction, rowwise, linalg, layout, loss, optimizer };
inline constexpr int kFamilyCount = 8;

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

// The VJP's contract, the catalog's gradient column (core/op_list.hpp says what each means).
enum class GradientKind : std::uint8_t { exact, sparse, identity_st, hardtanh_st };

// What one output element and one gradient element read, the catalog's reads column.
enum class Reads : std::uint8_t { elements, rows, matrix, whole };

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

// kAttrIndex<name>: an attribute's row in core/attr_list.hpp; kAttr<name>: its bit in an op's set.
enum AttrIndex : unsigned {
#define GP_X(name, ...) kAttrIndex##name,
  GP_ATTR_LIST(GP_X)
#undef GP_X
      kAttrCount
};
enum AttrSet : unsigned {
  kAttrNone = 0,
#define GP_X(name, ...) kAttr##name = 1u << kAttrIndex##name,
  GP_ATTR_LIST(GP_X)
#undef GP_X
  // The optimizer steps' sets, named so that their catalog rows stay short
  kAttrSgd = kAttrLr | kAttrMomentum | kAttrWeightDecay | kAttrFirst,
  kAttrAdamw = kAttrLr | kAttrBetas | kAttrEps | kAttrWeightDecay | kAttrStep,
};

enum class GeluApprox : std::uint8_t { erf, tanh };
enum class LossReduction : std::uint8_t { mean, sum };
// Whether the op's definition rounds a named intermediate to the storage type and computes on
// with the rounded value (softmax: the unnormalised exp(x - max); log_softmax: the shifted
// x - max). Libraries define 16-bit softmax that way (oneDNN stages it in the bf16 output
// buffer); the contract's default is "computed in f32, rounded once to the storage type". A
// definition, declared by a case, not a tolerance: the error model bounds that one rounding and
// nothing more (docs/error-model.md). Meaningful for 16-bit storage types only.
enum class Staged : std::uint8_t { none, storage };

struct OpAttrs {
  double p = 1.0;      // pow_scalar exponent
  double alpha = 1.0;  // leaky_relu negative slope; elu alpha
  GeluApprox gelu = GeluApprox::erf;
  int axis = -1;                 // reductions, softmax, log_softmax, concat, slice (may be negative)
  Staged staged = Staged::none;  // softmax, log_softmax (16-bit dtypes)
  bool keepdim = false;
  int correction = 0;                          // variance divisor is n - correction
  double eps = 1e-5;                           // layer_norm
  std::vector<std::int64_t> shape;             // reshape target
  std::int64_t start = 0, stop = 0, step = 1;  // slice along axis: [start, stop) by step
  LossReduction reduction = LossReduction::mean;
  double tau = 1.0;  // gumbel_softmax temperature
  int order = 3;     // bspline_basis polynomial degree (2..5)
  int grid = 5;      // bspline_basis intervals over [-1, 1]
  // Optimizer steps (PyTorch's SGD and AdamW, core/README.md)
  double lr = 1e-3;
  double momentum = 0, dampening = 0;
  bool nesterov = false;
  double weight_decay = 0;
  bool first = false;  // sgd_step: the momentum buffer is fresh: buf' = g, the input buffer unread
  double beta1 = 0.9, beta2 = 0.999;
  std::int64_t t = 1;  // adamw_step: the step counter, from 1
};

std::string_view op_name(OpKind k);
std::optional<OpKind> parse_op(std::string_view name);
const std::vector<OpKind>& all_ops();
OpFamily op_family(OpKind k);
std::string_view family_name(OpFamily f);
ShapeRule op_shape_rule(OpKind k);
GradientKind op_gradient(OpKind k);
// A straight-through op: its gradient is a surrogate it declares, not its derivative.
bool op_is_straight_through(OpKind k);
// The declared surrogate at one element (input x, cotangent dy) and what the report says of it.
double surrogate_gradient(OpKind k, double x, double dy);
std::string_view surrogate_note(OpKind k);
Reads op_reads(OpKind k);
// Points of input 0 where a unary op is not differentiable (the catalog's kinks column).
std::span<const double> op_kinks(OpKind k);
int op_arity(OpKind k);  // -1 for variadic
unsigned op_attr_set(OpKind k);
bool input_is_differentiable(OpKind k, int input);
// The input that holds integer indices, stored as i32 (cross_entropy's targets, tt_embedding's
// ids); -1 where none does.
int op_index_input(OpKind k);
// Where an op reduces over no element: sum and mse_loss(reduction=sum) give their identity, 0 (a
// matmul's or linear's empty inner dimension and a gradient summed over an empty batch do too).
// The others (mean, max, logsumexp, variance, layer_norm's and rms_norm's statistics, the mean
// losses) have no value there, and make_call refuses such a call naming it (core/README.md, "Empty
// tensors").
bool op_reduces_empty_to_zero(OpKind k, const OpAttrs& a);
// No input receives a gradient (grad mask 0): only the forward is checked.
bool op_is_forward_only(OpKind k);
// The two scalars every unary kernel takes, as the device backends pass them: p (pow_scalar's
// exponent) and a (leaky_relu's and elu's alpha; gelu's approximation, 0 = erf, 1 = tanh).
struct UnaryScalars {
  double p = 1, a = 1;
};
struct OpCall;
UnaryScalars unary_scalars(const OpCall& call);

// "p=0.5", "axis=-1,keepdim=1": only the attributes the op uses, in core/attr_list.hpp's order.
// `staged` is spelled only where set ("axis=-1,staged=storage").
std::string attrs_to_string(OpKind k, const OpAttrs& a);
// "axis, keepdim": the keys of the attributes the op uses; empty for none.
std::string attr_keys(OpKind k);

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
  // Empty, or one per input: how input k lies in its buffer where it is a strided view
  // (core/strided.hpp); nothing where it is contiguous, as every input of most calls.
  std::vector<std::optional<StridedLayout>> input_layouts;
};

// Some input has a zero dimension (core/README.md, "Empty tensors").
bool has_empty_input(const OpCall& call);

// Builds an OpCall, validating the inputs and inferring the output shape; throws gp::Error
// with the reason when the shapes or attributes do not fit the op.
OpCall make_call(OpKind kind, OpAttrs attrs, DType dtype, std::vector<Shape> input_shapes, std::string case_id = {});

// Why `call` is not one the catalog accepts, or nothing: what make_call refuses (an input count,
// shapes, attributes, a dtype), an output shape other than the shape rule's, an input dtype other
// than the op's. A backend refuses such a call in supports() rather than run it
// (docs/invalid-calls.md).
std::optional<std::string> call_problem(const OpCall& call);

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
// log_matmul_exp: a [m, k], b [k, n]. Not for the linalg family's tt_embedding (TtGeometry).
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

// tt_embedding: ids [batch] (i32) into a vocabulary v1 v2 v3, split in mixed radix
// id = (i1 v2 + i2) v3 + i3; cores G1 [v1, 1, d1, r1], G2 [v2, r1, d2, r2], G3 [v3, r2, d3, 1],
// row-major; output [batch, d1 d2 d3] with column j = (j1 d2 + j2) d3 + j3. The offsets below are
// the single source of the layout (kernels in other languages repeat them).
struct TtGeometry {
  std::int64_t batch, v1, v2, v3, d1, d2, d3, r1, r2;
  std::int64_t vocabulary() const { return v1 * v2 * v3; }
  std::int64_t dim() const { return d1 * d2 * d3; }
  std::int64_t g1_at(std::int64_t i1, std::int64_t j1, std::int64_t a) const { return (i1 * d1 + j1) * r1 + a; }
  std::int64_t g2_at(std::int64_t i2, std::int64_t a, std::int64_t j2, std::int64_t c) const {
    return ((i2 * r1 + a) * d2 + j2) * r2 + c;
  }
  std::int64_t g3_at(std::int64_t i3, std::int64_t c, std::int64_t j3) const { return (i3 * r2 + c) * d3 + j3; }
  std::int64_t out_at(std::int64_t b, std::int64_t j1, std::int64_t j2, std::int64_t j3) const {
    return b * dim() + (j1 * d2 + j2) * d3 + j3;
  }
  struct Digits {
    std::int64_t i1, i2, i3;
  };
  Digits digits(std::int64_t id) const { return {id / (v2 * v3), id / v3 % v2, id % v3}; }
  // Calls term(b, j1, j2, j3, a, c) for every row b and every term (a, c) of every element
  // (j1, j2, j3) of its output row, in that order: a running sum per output or core-gradient
  // element gets its terms in batch order.
  template <class Term>
  void for_each_term(Term&& term) const {
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t j1 = 0; j1 < d1; ++j1)
        for (std::int64_t j2 = 0; j2 < d2; ++j2)
          for (std::int64_t j3 = 0; j3 < d3; ++j3)
            for (std::int64_t a = 0; a < r1; ++a)
              for (std::int64_t c = 0; c < r2; ++c) term(b, j1, j2, j3, a, c);
  }
};
TtGeometry tt_geometry(const OpCall& call);
// How many values op_index_input(call.kind)'s indices may take, [0, n): cross_entropy's classes, tt_embedding's
// vocabulary; 0 where the call has no index input.
std::int64_t index_count(const OpCall& call);

// gru_cell: x [batch, input], h [batch, hidden], W_ih [3 hidden, input], W_hh [3 hidden, hidden],
// b_ih [3 hidden], b_hh [3 hidden]; output h' [batch, hidden]. Gate g of hidden unit j (kGruR,
// kGruZ, kGruN: PyTorch's stacking r, z, n) is row g hidden + j of the weights and biases.
inline constexpr int kGruR = 0, kGruZ = 1, kGruN = 2, kGruGates = 3;
struct GruGeometry {
  std::int64_t batch, input, hidden;
  std::int64_t row(int gate, std::int64_t j) const { return gate * hidden + j; }
};
GruGeometry gru_geometry(const OpCall& call);
// The scalars of an optimizer step as every implementation takes them: computed once here in
// double, where 1 - beta and 1 - dampening are exact (Sterbenz, beta and 1 - dampening in
// [0.5, 1]) and 1 - lr * wd rounds once, then converted to the compute type like any constant.
// The output of an optimizer step is [state + 1, n]: row 0 the new parameter, then the new state
// (sgd_step: the momentum buffer; adamw_step: m, v), every input flattened to n = numel.
struct OptimizerScalars {
  double lr = 0, weight_decay = 0;
  double momentum = 0, one_minus_dampening = 1;                                    // sgd_step
  bool nesterov = false, first = false;                                            // sgd_step
  double beta1 = 0, one_minus_beta1 = 0, beta2 = 0, one_minus_beta2 = 0, eps = 0;  // adamw_step
  double decay = 1;  // adamw_step: 1 - lr * weight_decay, the decoupled weight decay
  double t = 1;      // adamw_step: the step counter (exact: t < 2^53)
};
OptimizerScalars optimizer_scalars(const OpCall& call);
// Rows of an optimizer step's output: the parameter and its state tensors.
int optimizer_rows(OpKind k);

}  // namespace gp
