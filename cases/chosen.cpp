// Ops with chosen gradients. Straight-through ops declare their surrogate gradient; the harness
// checks the backend against that formula instead of against finite differences (which are
// zero almost everywhere for a step function) and the report prints why.
#include <cmath>

#include "cases/registry.hpp"

namespace gp {

void declare_chosen_cases(CaseList& list) {
  for (const Shape& s : elementwise_shapes()) {
    CaseDecl r;
    r.op = OpKind::ste_round;
    // |x| >= 0.55 keeps round(x) away from zero, so a one-element output is never all zeros.
    Domain away_from_halves = Domain::of(Domain::Kind::half_integer_free, -5, 5, 0.05);
    away_from_halves.min_abs = 0.55;
    r.inputs = {{s, away_from_halves}};
    const std::vector<DType> all_dtypes = {DType::f32, DType::f64, DType::f16, DType::bf16};
    r.dtypes = all_dtypes;
    r.surrogate = [](double, double dy) { return dy; };
    r.surrogate_note =
        "straight-through: round() has zero derivative almost everywhere; checked against the "
        "declared identity surrogate dy";
    list.add(std::move(r));

    CaseDecl g;
    g.op = OpKind::ste_hardtanh_gate;
    g.inputs = {{s, Domain::of(Domain::Kind::gate, -2, 2, 0.05)}};
    g.dtypes = all_dtypes;
    g.surrogate = [](double x, double dy) { return std::fabs(x) < 1 ? dy : 0.0; };
    g.surrogate_note =
        "straight-through: the step x>0 is checked against the declared hardtanh surrogate "
        "dy*[|x|<1]";
    list.add(std::move(g));
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
