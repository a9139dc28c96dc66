// Reductions over one axis, including an inner-strided axis of a 3-D tensor.
#include <tuple>

#include "cases/registry.hpp"

namespace gp {

void declare_reduction_cases(CaseList& list) {
  // sum, mean and max also in 16-bit storage (summed in f32, the result rounded once).
  const std::vector<DType> all = {DType::f32, DType::f64, DType::f16, DType::bf16};
  add_axis_cases(list, OpKind::sum, Domain::range(-5, 5), {.dtypes = all});
  add_axis_cases(list, OpKind::mean, Domain::range(-5, 5), {.dtypes = all});
  // The row maximum is 0.05 above the runner-up, so a step below 0.02 never moves the argmax.
  add_axis_cases(list, OpKind::max, Domain::of(Domain::Kind::unique_row_max, -5, 5, 0.05),
                 {.fd_max_step = 0.02, .dtypes = all});
  add_axis_cases(list, OpKind::logsumexp, Domain::range(-10, 10));
  OpAttrs unbiased;
  unbiased.correction = 1;
  // A row of one element has zero variance: nothing to check there.
  add_axis_cases(list, OpKind::variance, Domain::range(-5, 5), {.min_n = 2});
  add_axis_cases(list, OpKind::variance, Domain::range(-5, 5), {.base = unbiased, .min_n = 2});

  // The sizes ML libraries' performance reports time a sum and an axis mean at (bench's
  // library-report preset, docs/bench.md): all of 100 x 1000 elements, as one axis, and its rows.
  for (const auto& [op, shape, axis] :
       {std::tuple{OpKind::sum, Shape{100000}, 0}, {OpKind::mean, Shape{100, 1000}, 1}}) {
    CaseDecl c;
    c.op = op;
    c.attrs.axis = axis;
    c.inputs = {{shape, Domain::range(-5, 5)}};
    c.dtypes = {DType::f32};
    list.add(std::move(c));
  }

  // The large tier: one axis of 10^6, 10^7 and 2^27 elements (a grid of work-groups, not one; the
  // reference streams a line that long, reference/reduction.cpp), and logsumexp over
  // vocabulary-wide rows (cases/rowwise.cpp has softmax's).
  const std::vector<Shape> long_axes = {Shape{1000000}, Shape{10000000}, Shape{std::int64_t{1} << 27}};
  const AxisCases f32{.dtypes = {DType::f32}};
  add_large_axis_cases(list, OpKind::sum, Domain::range(-5, 5), long_axes, f32);
  add_large_axis_cases(list, OpKind::mean, Domain::range(-5, 5), long_axes, f32);
  add_large_axis_cases(list, OpKind::max, Domain::of(Domain::Kind::unique_row_max, -5, 5, 0.05), long_axes, f32);
  add_large_axis_cases(list, OpKind::variance, Domain::range(-5, 5), long_axes,
                       {.base = unbiased, .dtypes = {DType::f32}});
  add_large_axis_cases(list, OpKind::logsumexp, Domain::range(-10, 10),
                       {Shape{8, 32000}, Shape{8, 50257}, Shape{4, 131072}}, f32);
}

}  // namespace gp
