// Strided inputs (docs/strided-inputs.md): ops whose inputs come as views a framework hands a
// library without copying them — transposed (stored as the transpose), sliced with step 2 (every
// other element of longer rows, from the second) and expanded (the first axis read with stride 0:
// a broadcast made explicit). For the elementwise, binary, reduction, softmax, layer_norm and
// matmul families, each view on each input position at least once, at odd sizes so that no row
// is a multiple of a vector width. Each case takes the domain and dtypes of the op's first
// declaration in the family files; the reductions and softmaxes run over the last axis, so an
// expanded first axis repeats whole rows and leaves each row's values (and a max's unique maximum)
// as drawn.
#include <functional>

#include "cases/registry.hpp"

namespace gp {

namespace {

constexpr InputView C = InputView::contiguous, T = InputView::transposed, S = InputView::step2, E = InputView::expanded;

struct StridedDecl {
  OpKind op;
  std::vector<Shape> shapes;
  std::vector<InputView> views;
  std::function<void(OpAttrs&)> attrs = {};
};

std::vector<StridedDecl> strided_decls() {
  const Shape rows{9, 33};
  std::vector<StridedDecl> d;
  for (OpKind op : {OpKind::exp, OpKind::tanh, OpKind::silu})
    for (InputView v : {T, S, E}) d.push_back({op, {rows}, {v}});
  d.push_back({OpKind::add, {rows, rows}, {T, C}});
  d.push_back({OpKind::add, {rows, Shape{33}}, {S, S}});  // a broadcast input that is itself a view
  d.push_back({OpKind::mul, {rows, rows}, {C, T}});
  d.push_back({OpKind::mul, {rows, rows}, {E, S}});
  d.push_back({OpKind::div, {rows, rows}, {S, E}});
  d.push_back({OpKind::sub, {rows, rows}, {T, T}});
  const auto last_axis = [](OpAttrs& a) { a.axis = -1; };
  const auto first_axis = [](OpAttrs& a) { a.axis = 0; };
  for (OpKind op : {OpKind::sum, OpKind::max, OpKind::variance, OpKind::logsumexp}) {
    d.push_back({op, {rows}, {T}, last_axis});
    d.push_back({op, {rows}, {S}, last_axis});
    d.push_back({op, {rows}, {E}, last_axis});
  }
  d.push_back({OpKind::sum, {rows}, {T}, first_axis});
  d.push_back({OpKind::mean, {Shape{3, 7, 9}}, {S}, [](OpAttrs& a) { a.axis = 1; }});
  for (OpKind op : {OpKind::softmax, OpKind::log_softmax})
    for (InputView v : {T, S, E}) d.push_back({op, {rows}, {v}, last_axis});
  d.push_back({OpKind::layer_norm, {rows, Shape{33}, Shape{33}}, {T, S, E}});
  d.push_back({OpKind::layer_norm, {rows, Shape{33}, Shape{33}}, {S, C, C}});
  d.push_back({OpKind::layer_norm, {rows, Shape{33}, Shape{33}}, {E, C, C}});
  d.push_back({OpKind::matmul, {Shape{17, 20}, Shape{20, 9}}, {T, C}});
  d.push_back({OpKind::matmul, {Shape{17, 20}, Shape{20, 9}}, {C, T}});
  d.push_back({OpKind::matmul, {Shape{17, 20}, Shape{20, 9}}, {T, T}});
  d.push_back({OpKind::matmul, {Shape{17, 20}, Shape{20, 9}}, {S, S}});
  d.push_back({OpKind::matmul, {Shape{3, 17, 20}, Shape{3, 20, 9}}, {C, E}});  // one matrix for every batch
  d.push_back({OpKind::matmul, {Shape{3, 17, 20}, Shape{3, 20, 9}}, {E, T}});
  d.push_back({OpKind::linear, {Shape{17, 20}, Shape{9, 20}, Shape{9}}, {C, T, S}});
  return d;
}

}  // namespace

void declare_strided_cases(CaseList& list) {
  const std::vector<CaseDecl> declared = list.decls();
  for (const StridedDecl& s : strided_decls()) {
    CaseDecl c = first_declaration(declared, s.op, "cases/strided.cpp");
    for (std::size_t i = 0; i < s.shapes.size(); ++i) c.inputs.at(i).shape = s.shapes[i];
    if (s.attrs) s.attrs(c.attrs);
    c.views = s.views;
    c.tolerance = {};
    list.add(std::move(c));
  }
}

}  // namespace gp
