// Row-wise ops: a row in, a row out, along one axis (softmax, log_softmax) or the last
// (layer_norm with its weight and bias, rms_norm with its weight, gumbel_softmax with its noise
// as an input).
#include "cases/registry.hpp"

namespace gp {

void declare_rowwise_cases(CaseList& list) {
  // A row of one element has a constant softmax: nothing to check there.
  add_axis_cases(list, OpKind::softmax, Domain::range(-8, 8), {}, 0, 2);
  add_axis_cases(list, OpKind::log_softmax, Domain::range(-8, 8), {}, 0, 2);

  for (const Shape& x : {Shape{7}, Shape{127}, Shape{16, 33}, Shape{64, 128}, Shape{4, 7, 9}}) {
    Shape row{x[x.rank() - 1]};
    CaseDecl c;
    c.op = OpKind::layer_norm;
    c.inputs = {{x, Domain::range(-5, 5)}, {row, Domain::range(0.5, 2)}, {row, Domain::range(-1, 1)}};
    list.add(std::move(c));
    CaseDecl r;
    r.op = OpKind::rms_norm;
    r.inputs = {{x, Domain::range(-5, 5)}, {row, Domain::range(0.5, 2)}};
    list.add(std::move(r));
  }
  for (double tau : {0.5, 1.0, 2.0}) {
    for (const Shape& s : {Shape{7}, Shape{16, 33}, Shape{64, 128}}) {
      CaseDecl c;
      c.op = OpKind::gumbel_softmax;
      c.attrs.tau = tau;
      c.inputs = {{s, Domain::range(-4, 4)}, {s, Domain::of(Domain::Kind::gumbel_noise, 0, 1)}};
      list.add(std::move(c));
    }
  }
}

}  // namespace gp
