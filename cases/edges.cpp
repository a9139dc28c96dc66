// The edges of every op's shapes. Empty tensors (core/README.md, "Empty tensors"): an empty
// output, or a non-empty one computed from empty inputs (a sum over an empty axis, a matmul's
// empty inner dimension: zeros; linear's: the bias), and gradients that sum over an empty batch (a
// broadcast input's, layer_norm's weights, a GRU's or tensor-train's parameters: zeros). Calls
// with no value over an empty set (a mean, a max) are refused by the shape rule instead
// (tests/unit/test_shape_tensor.cpp, MakeCall). One element, for the ops the family files
// declare at larger sizes only: a batch of one, a dimension of one where a kernel divides or tiles
// by it. Each case takes the domain of the op's first declaration in the family files, which this
// file follows.
#include <functional>

#include "cases/decl_helpers.hpp"
#include "cases/registry.hpp"

namespace gp {

namespace {

struct EdgeDecl {
  OpKind op;
  std::vector<Shape> shapes;  // replace the base's from the first input on
  std::function<void(OpAttrs&)> attrs = {};
  std::vector<std::size_t> batch_inputs = {};  // inputs whose first dimension becomes `batch`
  std::int64_t batch = 0;
};

using decl::on_axis;

std::vector<EdgeDecl> empty_decls() {
  std::vector<EdgeDecl> d;
  // Elementwise: rows of five, none of them; a broadcast input's gradient sums over no row.
  for (OpKind op : all_ops()) {
    if (op_family(op) == OpFamily::unary) d.push_back({op, {Shape{0, 5}}});
    if (op_family(op) == OpFamily::binary) d.push_back({op, {Shape{0, 5}, Shape{5}}});
  }
  const auto axis0 = [](OpAttrs& a) { on_axis(a, 0); };
  const auto axis1 = [](OpAttrs& a) { on_axis(a, 1); };
  for (OpKind op : {OpKind::sum, OpKind::mean, OpKind::max, OpKind::logsumexp, OpKind::variance})
    d.push_back({op, {Shape{0, 5}}, axis1});         // no row to reduce
  d.push_back({OpKind::sum, {Shape{0, 5}}, axis0});  // five sums of nothing: zeros
  d.push_back({OpKind::sum, {Shape{3, 0, 2}}, [](OpAttrs& a) { on_axis(a, 1).keepdim = true; }});
  for (OpKind op : {OpKind::softmax, OpKind::log_softmax}) {
    d.push_back({op, {Shape{0, 5}}, axis1});
    d.push_back({op, {Shape{3, 0}}, axis1});  // rows of no element
  }
  d.push_back({OpKind::gumbel_softmax, {Shape{0, 5}, Shape{0, 5}}});
  d.push_back({OpKind::layer_norm, {Shape{0, 8}, Shape{8}, Shape{8}}});  // weight gradients: zeros
  d.push_back({OpKind::rms_norm, {Shape{0, 8}, Shape{8}}});
  d.push_back({OpKind::matmul, {Shape{4, 0}, Shape{0, 3}}});  // an empty inner dimension: zeros
  d.push_back({OpKind::matmul, {Shape{0, 5}, Shape{5, 3}}});
  d.push_back({OpKind::matmul, {Shape{2, 3, 0}, Shape{2, 0, 4}}});
  d.push_back({OpKind::matmul, {Shape{0, 3, 2}, Shape{0, 2, 4}}});
  d.push_back({OpKind::linear, {Shape{2, 0}, Shape{3, 0}, Shape{3}}});  // the bias alone
  d.push_back({OpKind::linear, {Shape{0, 4}, Shape{3, 4}, Shape{3}}});
  d.push_back({OpKind::log_matmul_exp, {Shape{0, 3}, Shape{3, 4}}});
  d.push_back({OpKind::transpose, {Shape{0, 5}}});
  d.push_back({OpKind::reshape, {Shape{0, 5}}, [](OpAttrs& a) { a.shape = {5, 0}; }});
  d.push_back({OpKind::concat, {Shape{0, 3}, Shape{2, 3}}, axis0});
  d.push_back({OpKind::concat, {Shape{2, 0}, Shape{2, 0}}, axis0});
  d.push_back({OpKind::slice, {Shape{4, 0}}, [](OpAttrs& a) {
                 on_axis(a, 0);
                 a.start = 0, a.stop = 4, a.step = 2;
               }});
  d.push_back({OpKind::mse_loss, {Shape{0, 5}, Shape{0, 5}}, [](OpAttrs& a) { a.reduction = LossReduction::sum; }});
  d.push_back({OpKind::bspline_basis, {Shape{0}}});
  d.push_back({OpKind::tt_embedding, {}, {}, {0}});  // the cores keep their shapes: zero gradients
  d.push_back({OpKind::sgd_step, {Shape{0}, Shape{0}, Shape{0}}});
  d.push_back({OpKind::adamw_step, {Shape{0, 3}, Shape{0, 3}, Shape{0, 3}, Shape{0, 3}}});
  d.push_back({OpKind::gru_cell, {}, {}, {0, 1}});  // batch 0; the weights keep their shapes
  return d;
}

// Results with a value to compare: a row of one element whose gradients are all zero (softmax,
// layer_norm's x), a variance of one element (zero) or a maximum of one pair (one input's gradient
// zero) would prove little, so rows stay longer there and the single element is the batch.
std::vector<EdgeDecl> one_element_decls() {
  std::vector<EdgeDecl> d;
  for (OpKind op : {OpKind::mse_loss, OpKind::bce_with_logits}) d.push_back({op, {Shape{1}, Shape{1}}});
  for (OpKind op : {OpKind::softmax, OpKind::log_softmax})
    d.push_back({op, {Shape{1, 5}}, [](OpAttrs& a) { on_axis(a, 1); }});
  d.push_back({OpKind::gumbel_softmax, {Shape{1, 5}, Shape{1, 5}}});
  d.push_back({OpKind::layer_norm, {Shape{1, 6}, Shape{6}, Shape{6}}});
  d.push_back({OpKind::rms_norm, {Shape{3, 1}, Shape{1}}});  // x / sqrt(x^2 + eps): rows of one element
  d.push_back({OpKind::variance, {Shape{2, 3}}, [](OpAttrs& a) {
                 on_axis(a, 0).correction = 1;  // the fewest elements correction 1 divides by
               }});
  d.push_back({OpKind::matmul, {Shape{1, 1}, Shape{1, 1}}});
  d.push_back({OpKind::matmul, {Shape{1, 1, 1}, Shape{1, 1, 1}}});
  d.push_back({OpKind::linear, {Shape{1, 1}, Shape{1, 1}, Shape{1}}});
  d.push_back({OpKind::transpose, {Shape{1, 1}}});
  d.push_back({OpKind::reshape, {Shape{1}}, [](OpAttrs& a) { a.shape = {1, 1}; }});
  d.push_back({OpKind::concat, {Shape{1}, Shape{1}}, [](OpAttrs& a) { on_axis(a, 0); }});
  d.push_back({OpKind::slice, {Shape{1}}, [](OpAttrs& a) {
                 on_axis(a, 0);
                 a.start = 0, a.stop = 1, a.step = 1;
               }});
  d.push_back({OpKind::gru_cell, {}, {}, {0, 1}, 1});
  return d;
}

}  // namespace

void declare_edges_cases(CaseList& list) {
  const std::vector<CaseDecl> declared = list.decls();
  std::vector<EdgeDecl> edges = empty_decls(), one = one_element_decls();
  edges.insert(edges.end(), one.begin(), one.end());
  for (const EdgeDecl& e : edges) {
    CaseDecl c = first_declaration(declared, e.op, "cases/edges.cpp");
    for (std::size_t i = 0; i < e.shapes.size(); ++i) c.inputs.at(i).shape = e.shapes[i];
    for (std::size_t i : e.batch_inputs) {
      std::vector<std::int64_t> dims = c.inputs.at(i).shape.dims();
      dims.at(0) = e.batch;
      c.inputs[i].shape = Shape(std::move(dims));
    }
    if (e.attrs) e.attrs(c.attrs);
    c.dtypes = {DType::f32};
    c.tolerance = {};
    list.add(std::move(c));
  }
}

}  // namespace gp
