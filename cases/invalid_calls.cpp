#include "cases/invalid_calls.hpp"

#include <functional>
#include <utility>

#include "cases/decl_helpers.hpp"
#include "core/error.hpp"

namespace gp {

namespace {

struct Row {
  OpKind op;
  std::vector<Shape> inputs;
  Shape output;  // what a kernel that ignored the problem would write
  std::function<void(OpAttrs&)> attrs = {};
  std::vector<std::pair<std::size_t, DType>> input_dtypes = {};  // where they differ from the op's
  DType dtype = DType::f32;
};

using decl::on_axis;

// A kernel that trusts its call reads or writes past a buffer, divides by zero or loops without
// end on each of these. At least three per family, and a wrong output shape and a wrong dtype in
// several.
std::vector<Row> rows() {
  const Shape m{4, 5};
  return {
      // unary
      {OpKind::exp, {m}, Shape{5, 4}},
      {OpKind::relu, {m, m}, m},
      {OpKind::tanh, {m}, m, {}, {{0, DType::i32}}, DType::i32},
      {OpKind::sigmoid, {m}, m, {}, {{0, DType::f64}}},
      // binary
      {OpKind::add, {m, Shape{3}}, m},
      {OpKind::mul, {m, m}, Shape{4, 1}},
      {OpKind::div, {m, m}, m, {}, {{1, DType::i32}}},
      {OpKind::maximum, {m}, m},
      // reduction
      {OpKind::sum, {m}, m, [](OpAttrs& a) { on_axis(a, 2); }},
      {OpKind::mean, {m}, Shape{5}, [](OpAttrs& a) { on_axis(a, 1); }},
      {OpKind::variance, {m}, Shape{4}, [](OpAttrs& a) { on_axis(a, 1).correction = 5; }},
      {OpKind::max, {Shape{0, 5}}, Shape{5}, [](OpAttrs& a) { on_axis(a, 0); }},
      // rowwise
      {OpKind::softmax, {m}, m, [](OpAttrs& a) { on_axis(a, -3); }},
      {OpKind::log_softmax, {m}, Shape{20}, [](OpAttrs& a) { on_axis(a, 1); }},
      {OpKind::layer_norm, {Shape{4, 8}, Shape{7}, Shape{8}}, Shape{4, 8}},
      {OpKind::rms_norm, {Shape{4, 8}, Shape{4, 8}}, Shape{4, 8}},
      {OpKind::gumbel_softmax, {m, Shape{4, 6}}, m},
      {OpKind::bspline_basis, {Shape{16}}, Shape{16, 6}, [](OpAttrs& a) { a.order = 1; }},
      // linalg
      {OpKind::matmul, {Shape{2, 3}, Shape{4, 5}}, Shape{2, 5}},
      {OpKind::matmul, {Shape{2, 3, 4}, Shape{3, 4, 5}}, Shape{2, 3, 5}},
      {OpKind::matmul, {Shape{2, 3}, Shape{3, 5}}, Shape{3, 5}},
      {OpKind::linear, {Shape{2, 4}, Shape{3, 5}, Shape{3}}, Shape{2, 3}},
      {OpKind::log_matmul_exp, {Shape{2, 3}, Shape{4, 5}}, Shape{2, 5}},
      {OpKind::tt_embedding, {Shape{8}, Shape{8, 1, 4, 4}, Shape{8, 5, 4, 4}, Shape{8, 4, 4, 1}}, Shape{8, 64}},
      {OpKind::gru_cell, {Shape{2, 3}, Shape{2, 4}, Shape{12, 3}, Shape{12, 3}, Shape{12}, Shape{12}}, Shape{2, 4}},
      // layout
      {OpKind::transpose, {Shape{20}}, Shape{20}},
      {OpKind::reshape,
       {m},
       Shape{3, 7},
       [](OpAttrs& a) {
         a.shape = {3, 7};
       }},
      {OpKind::concat, {Shape{2, 3}, Shape{2, 4}}, Shape{4, 3}, [](OpAttrs& a) { on_axis(a, 0); }},
      {OpKind::slice, {m}, Shape{9, 5}, [](OpAttrs& a) { on_axis(a, 0).start = 0, a.stop = 9, a.step = 1; }},
      {OpKind::slice, {m}, m, [](OpAttrs& a) { on_axis(a, 1).start = 0, a.stop = 5, a.step = 0; }},
      // loss
      {OpKind::mse_loss, {m, Shape{5, 4}}, Shape{}},
      {OpKind::cross_entropy, {m, Shape{3}}, Shape{}},
      {OpKind::cross_entropy, {m, Shape{4}}, Shape{}, {}, {{1, DType::f32}}},  // float targets
      {OpKind::bce_with_logits, {m, m}, m},
      // optimizer
      {OpKind::sgd_step, {Shape{8}, Shape{7}, Shape{8}}, Shape{2, 8}},
      {OpKind::adamw_step, {Shape{8}, Shape{8}, Shape{8}, Shape{8}}, Shape{3, 8}, [](OpAttrs& a) { a.lr = 0; }},
      {OpKind::adamw_step, {Shape{8}, Shape{8}, Shape{8}, Shape{8}}, Shape{2, 8}},
  };
}

std::string shapes_text(const std::vector<Shape>& shapes) {
  std::string s;
  for (std::size_t i = 0; i < shapes.size(); ++i) s += (i ? "|" : "") + shapes[i].to_string();
  return s;
}

InvalidCall make_invalid(const Row& r) {
  OpCall call;
  call.kind = r.op;
  if (r.attrs) r.attrs(call.attrs);
  call.dtype = r.dtype;
  call.input_shapes = r.inputs;
  call.input_dtypes.assign(r.inputs.size(), r.dtype == DType::i32 ? DType::f32 : r.dtype);
  if (op_index_input(r.op) >= 0 && static_cast<std::size_t>(op_index_input(r.op)) < r.inputs.size())
    call.input_dtypes[static_cast<std::size_t>(op_index_input(r.op))] = DType::i32;
  std::string dtypes_note;
  for (const auto& [k, t] : r.input_dtypes) {
    call.input_dtypes.at(k) = t;
    dtypes_note += ",input" + std::to_string(k) + "=" + std::string(dtype_name(t));
  }
  call.output_shape = r.output;
  const std::string attrs = attrs_to_string(r.op, call.attrs);
  call.case_id = std::string(op_name(r.op)) + "(invalid," + (attrs.empty() ? "" : attrs + ",") +
                 "shape=" + shapes_text(r.inputs) + ",out=" + r.output.to_string() + dtypes_note +
                 ",dtype=" + std::string(dtype_name(r.dtype)) + ")";
  std::optional<std::string> problem = call_problem(call);
  if (!problem) throw Error("cases/invalid_calls.cpp: " + call.case_id + " is a call the catalog accepts");
  InvalidCall out;
  out.c.decl.op = r.op;
  out.c.decl.attrs = call.attrs;
  out.c.decl.variant = "invalid";
  for (const Shape& s : r.inputs) out.c.decl.inputs.push_back({s, {}});
  out.c.decl.dtypes = {r.dtype};
  out.c.dtype = r.dtype;
  out.c.id = call.case_id;
  out.c.call = call;
  out.problem = std::move(*problem);
  return out;
}

}  // namespace

const std::vector<InvalidCall>& invalid_calls() {
  static const std::vector<InvalidCall> table = [] {
    std::vector<InvalidCall> out;
    for (const Row& r : rows()) out.push_back(make_invalid(r));
    return out;
  }();
  return table;
}

}  // namespace gp
