// Reductions and row-wise ops over one axis, including an inner-strided axis of a 3-D tensor.
#include "cases/registry.hpp"

namespace gp {

namespace {

struct AxisShape {
  Shape shape;
  int axis;
  bool keepdim;
};

const std::vector<AxisShape>& axis_shapes() {
  static const std::vector<AxisShape> s = {
      {Shape{1}, 0, false},      {Shape{7}, 0, false},      {Shape{127}, 0, false},      {Shape{16, 33}, -1, false},
      {Shape{16, 33}, 0, false}, {Shape{16, 33}, -1, true}, {Shape{64, 128}, -1, false}, {Shape{4, 7, 9}, 1, true},
  };
  return s;
}

void add_axis_cases(CaseList& list, OpKind op, Domain dom, OpAttrs base = {}, double fd_max_step = 0,
                    std::int64_t min_n = 1) {
  bool has_keepdim = op_attr_set(op) & kAttrKeepdim;
  for (const auto& as : axis_shapes()) {
    if (!has_keepdim && as.keepdim) continue;
    if (as.shape[as.shape.axis(as.axis)] < min_n) continue;
    CaseDecl c;
    c.op = op;
    c.attrs = base;
    c.attrs.axis = as.axis;
    c.attrs.keepdim = as.keepdim;
    c.inputs = {{as.shape, dom}};
    c.fd_max_step = fd_max_step;
    list.add(std::move(c));
  }
}

}  // namespace

void declare_reductions_cases(CaseList& list) {
  add_axis_cases(list, OpKind::sum, Domain::range(-5, 5));
  add_axis_cases(list, OpKind::mean, Domain::range(-5, 5));
  // The row maximum is 0.05 above the runner-up, so a step below 0.02 never moves the argmax.
  add_axis_cases(list, OpKind::max, Domain::of(Domain::Kind::unique_row_max, -5, 5, 0.05), {}, 0.02);
  add_axis_cases(list, OpKind::logsumexp, Domain::range(-10, 10));
  OpAttrs unbiased;
  unbiased.correction = 1;
  // A row of one element has zero variance and a constant softmax: nothing to check there.
  add_axis_cases(list, OpKind::variance, Domain::range(-5, 5), {}, 0, 2);
  add_axis_cases(list, OpKind::variance, Domain::range(-5, 5), unbiased, 0, 2);
  add_axis_cases(list, OpKind::softmax, Domain::range(-8, 8), {}, 0, 2);
  add_axis_cases(list, OpKind::log_softmax, Domain::range(-8, 8), {}, 0, 2);

  for (const Shape& x : {Shape{7}, Shape{127}, Shape{16, 33}, Shape{64, 128}, Shape{4, 7, 9}}) {
    Shape row{x[x.rank() - 1]};
    CaseDecl c;
    c.op = OpKind::layer_norm;
    c.inputs = {{x, Domain::range(-5, 5)}, {row, Domain::range(0.5, 2)}, {row, Domain::range(-1, 1)}};
    list.add(std::move(c));
  }
}

}  // namespace gp
