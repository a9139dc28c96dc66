// Row-wise ops: a row in, a row out, along one axis (softmax, log_softmax) or the last
// (layer_norm with its weight and bias, rms_norm with its weight, gumbel_softmax with its noise
// as an input); bspline_basis, a value in and a row of bases out.
#include "cases/registry.hpp"

namespace gp {

namespace {

// Values in [-1, 1], 2% of a knot span away from every knot: there the polynomial pieces meet,
// so central differences across a knot lose their order, and a value whose knot coordinate
// rounds across a knot takes the other piece. The knots depend on the attributes, so the case
// lists them (the catalog's kinks column cannot). Steps stay below half that distance, and the
// bases change over one knot span.
void add_bspline_cases(CaseList& list, int order, int grid, const std::vector<Shape>& shapes) {
  const double h = 2.0 / grid;
  Domain d = Domain::range(-1, 1);
  d.margin = 0.02 * h;
  for (int j = 0; j <= grid + 2 * order; ++j) d.kinks.push_back(-1 + (j - order) * h);
  d.fd_length = h;
  for (const Shape& s : shapes) {
    CaseDecl c;
    c.op = OpKind::bspline_basis;
    c.attrs.order = order;
    c.attrs.grid = grid;
    c.inputs = {{s, d}};
    c.dtypes = {DType::f32, DType::f64, DType::f16, DType::bf16};
    c.fd_max_step = d.margin / 2;
    list.add(std::move(c));
  }
}

// layer_norm (with its weight and bias) and rms_norm (with its weight) over rows of x's last
// axis. rms_norm's dtypes are the catalog's defaults in the small tier.
void add_norm_cases(CaseList& list, const Shape& x, Tier tier, const std::vector<DType>& layer_norm_dtypes) {
  Shape row{x[x.rank() - 1]};
  CaseDecl c;
  c.op = OpKind::layer_norm;
  c.tier = tier;
  c.inputs = {{x, Domain::range(-5, 5)}, {row, Domain::range(0.5, 2)}, {row, Domain::range(-1, 1)}};
  c.dtypes = layer_norm_dtypes;
  list.add(std::move(c));
  CaseDecl r;
  r.op = OpKind::rms_norm;
  r.tier = tier;
  r.inputs = {{x, Domain::range(-5, 5)}, {row, Domain::range(0.5, 2)}};
  if (tier == Tier::large) r.dtypes = layer_norm_dtypes;
  list.add(std::move(r));
}

}  // namespace

void declare_rowwise_cases(CaseList& list) {
  // A row of one element has a constant softmax: nothing to check there.
  add_axis_cases(list, OpKind::softmax, Domain::range(-8, 8), {.min_n = 2});
  add_axis_cases(list, OpKind::log_softmax, Domain::range(-8, 8), {.min_n = 2});
  // Under the staged definition (OpAttrs::staged), 16-bit only: plain rows beside the hard
  // regimes' twins (cases/hard_regimes.cpp).
  for (OpKind op : {OpKind::softmax, OpKind::log_softmax}) {
    CaseDecl c;
    c.op = op;
    c.attrs.staged = Staged::storage;
    c.inputs = {{Shape{64, 128}, Domain::range(-8, 8)}};
    c.dtypes = {DType::f16, DType::bf16};
    list.add(std::move(c));
  }

  // The large tier: rows as wide as language models' vocabularies (32,000, GPT-2's 50,257,
  // 131,072), where a kernel's row no longer fits one work-group's pass.
  const std::vector<Shape> vocabularies = {Shape{8, 32000}, Shape{8, 50257}, Shape{4, 131072}};
  for (OpKind op : {OpKind::softmax, OpKind::log_softmax}) {
    add_large_axis_cases(list, op, Domain::range(-8, 8), vocabularies, {.dtypes = {DType::f32}});
    OpAttrs staged;
    staged.staged = Staged::storage;
    add_large_axis_cases(list, op, Domain::range(-8, 8), vocabularies,
                         {.base = staged, .dtypes = {DType::f16, DType::bf16}});
  }
  for (const Shape& x : {Shape{7}, Shape{127}, Shape{16, 33}, Shape{64, 128}, Shape{4, 7, 9}})
    add_norm_cases(list, x, Tier::small, {DType::f32, DType::f64, DType::f16, DType::bf16});
  // The large tier: rows of 8,192 and 16,384 (a transformer's hidden sizes).
  for (const Shape& x : {Shape{8, 8192}, Shape{8, 16384}}) add_norm_cases(list, x, Tier::large, {DType::f32});
  for (double tau : {0.5, 1.0, 2.0}) {
    for (const Shape& s : {Shape{7}, Shape{16, 33}, Shape{64, 128}}) {
      CaseDecl c;
      c.op = OpKind::gumbel_softmax;
      c.attrs.tau = tau;
      c.inputs = {{s, Domain::range(-4, 4)}, {s, Domain::of(Domain::Kind::gumbel_noise, 0, 1)}};
      list.add(std::move(c));
    }
  }
  for (int order = kBsplineMinOrder; order <= kBsplineMaxOrder; ++order)
    add_bspline_cases(list, order, 5, {Shape{1, 1}, Shape{7, 3}, Shape{16, 8}, Shape{64, 16}});
  add_bspline_cases(list, 3, 8, {Shape{16, 8}});
}

}  // namespace gp
