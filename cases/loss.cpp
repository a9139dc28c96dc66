// Losses: scalar outputs, gradients scaled by 1/n for the mean reductions.
#include "cases/registry.hpp"

namespace gp {

namespace {

// cross_entropy over `logits` [batch, classes] with one class index per row; the large tier's in
// f32 only.
void add_cross_entropy_case(CaseList& list, const Shape& logits, Tier tier) {
  CaseDecl c;
  c.op = OpKind::cross_entropy;
  c.tier = tier;
  c.inputs = {{logits, Domain::range(-6, 6)}, {Shape{logits[0]}, Domain::classes_of(static_cast<int>(logits[1]))}};
  if (tier == Tier::large) c.dtypes = {DType::f32};
  list.add(std::move(c));
}

}  // namespace

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
  for (const Shape& s : {Shape{1, 5}, Shape{7, 33}, Shape{16, 10}, Shape{64, 128}})
    add_cross_entropy_case(list, s, Tier::small);
  // The large tier: rows as wide as language models' vocabularies (32,000, GPT-2's 50,257, 131,072).
  for (const Shape& s : {Shape{8, 32000}, Shape{8, 50257}, Shape{4, 131072}})
    add_cross_entropy_case(list, s, Tier::large);
}

}  // namespace gp
