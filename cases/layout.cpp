// Layout ops: transpose, reshape, concat, slice. They move values, so any error is a bug:
// the tolerance model gives them a budget of zero rounding steps beyond the storage rounding.
#include "cases/registry.hpp"

namespace gp {

namespace {

CaseDecl layout_case(OpKind op, std::vector<Shape> shapes, OpAttrs attrs = {}) {
  CaseDecl c;
  c.op = op;
  c.attrs = std::move(attrs);
  for (auto& s : shapes) c.inputs.push_back({std::move(s), Domain::range(-5, 5)});
  return c;
}

OpAttrs reshape_to(std::vector<std::int64_t> to) {
  OpAttrs a;
  a.shape = std::move(to);
  return a;
}

OpAttrs on_axis(int axis) {
  OpAttrs a;
  a.axis = axis;
  return a;
}

OpAttrs slice_of(int axis, std::int64_t start, std::int64_t stop, std::int64_t step) {
  OpAttrs a;
  a.axis = axis;
  a.start = start;
  a.stop = stop;
  a.step = step;
  return a;
}

}  // namespace

void declare_layout_cases(CaseList& list) {
  for (const Shape& s : {Shape{1, 7}, Shape{16, 33}, Shape{64, 128}, Shape{4, 7, 9}})
    list.add(layout_case(OpKind::transpose, {s}));

  list.add(layout_case(OpKind::reshape, {Shape{16, 33}}, reshape_to({33, 16})));
  list.add(layout_case(OpKind::reshape, {Shape{4, 7, 9}}, reshape_to({28, 9})));
  list.add(layout_case(OpKind::reshape, {Shape{127}}, reshape_to({1, 127})));

  list.add(layout_case(OpKind::concat, {Shape{7}, Shape{127}}, on_axis(0)));
  list.add(layout_case(OpKind::concat, {Shape{7, 5}, Shape{3, 5}}, on_axis(0)));
  list.add(layout_case(OpKind::concat, {Shape{16, 33}, Shape{16, 7}, Shape{16, 1}}, on_axis(-1)));
  list.add(layout_case(OpKind::concat, {Shape{4, 7, 9}, Shape{4, 2, 9}}, on_axis(1)));

  list.add(layout_case(OpKind::slice, {Shape{127}}, slice_of(0, 1, 127, 3)));
  list.add(layout_case(OpKind::slice, {Shape{16, 33}}, slice_of(1, 3, 30, 2)));
  list.add(layout_case(OpKind::slice, {Shape{64, 128}}, slice_of(0, 0, 64, 5)));
  list.add(layout_case(OpKind::slice, {Shape{4, 7, 9}}, slice_of(1, 2, 7, 1)));
}

}  // namespace gp
