// Losses: scalar outputs, gradients scaled by 1/n for the mean reductions.
#include "cases/registry.hpp"

namespace gp {

void declare_loss_cases(CaseList& list) {
  for (const Shape& s : {Shape{7}, Shape{16, 33}, Shape{64, 128}}) {
    for (LossReduction r : {LossReduction::mean, LossReduction::sum}) {
      CaseDecl c;
      c.op = OpKind::mse_loss;
      c.attrs.reduction = r;
      c.inputs = {{s, Domain::range(-3, 3)}, {s, Domain::range(-3, 3)}};
      list.add(std::move(c));
    }
    CaseDecl b;
    b.op = OpKind::bce_with_logits;
    b.inputs = {{s, Domain::range(-8, 8)}, {s, Domain::of(Domain::Kind::probability, 0, 1)}};
    list.add(std::move(b));
  }
  for (const Shape& s : {Shape{1, 5}, Shape{7, 33}, Shape{16, 10}, Shape{64, 128}}) {
    CaseDecl c;
    c.op = OpKind::cross_entropy;
    c.inputs = {{s, Domain::range(-6, 6)}, {Shape{s[0]}, Domain::classes_of(static_cast<int>(s[1]))}};
    list.add(std::move(c));
  }
}

}  // namespace gp
