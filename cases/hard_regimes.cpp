// Hard regimes: the same ops at inputs where an unstable formulation breaks and a stable one
// does not (saturating logits, logits that overflow exp without the max subtracted, exp near
// overflow and expm1 near 0, erf/gelu tails, rows with a large mean and a small spread, long
// dot products, log_matmul_exp's overflowing and dominated sums, sin and cos next to their zeros).
// Their ids carry a variant word; the bounds are the ordinary ones (for the staged twins, those of
// their declared definition).
#include <numbers>
#include <tuple>

#include "cases/decl_helpers.hpp"
#include "cases/registry.hpp"

namespace gp {

namespace {

const std::vector<DType> kNarrow = {DType::f32, DType::f16, DType::bf16};

using decl::hard;

// One declaration per dtype group, since the regime's edges depend on the dtype's range.
void add(CaseList& list, OpKind op, std::vector<InputSpec> inputs, std::vector<DType> dtypes, std::string variant,
         OpAttrs attrs = {}) {
  CaseDecl c;
  c.op = op;
  c.attrs = attrs;
  c.inputs = std::move(inputs);
  c.dtypes = std::move(dtypes);
  c.variant = std::move(variant);
  list.add(std::move(c));
}

// softmax and log_softmax under the staged definition (OpAttrs::staged: the intermediate rounded
// to the storage type, as oneDNN defines its bf16 kernels), 16-bit only, at one shape of a regime
// where that rounding shows: twins of cases the contract's definition fails on such a library.
void add_staged_twins(CaseList& list, const InputSpec& in, const std::string& variant) {
  OpAttrs staged;
  staged.staged = Staged::storage;
  for (OpKind op : {OpKind::softmax, OpKind::log_softmax})
    add(list, op, {in}, {DType::f16, DType::bf16}, variant, staged);
}

using decl::with_gelu;

// Saturating logits: |x| up to 30 in f32 and 16-bit, 80 in f64.
void saturating(CaseList& list) {
  struct Group {
    std::vector<DType> dtypes;
    double edge;
  };
  for (const Group& g : {Group{kNarrow, 30}, Group{{DType::f64}, 80}}) {
    const Domain logits = Domain::range(-g.edge, g.edge);
    for (OpKind op : {OpKind::sigmoid, OpKind::softplus, OpKind::silu})
      for (const Shape& s : {Shape{127}, Shape{64, 128}}) add(list, op, {{s, logits}}, g.dtypes, "saturating");
    for (OpKind op : {OpKind::softmax, OpKind::log_softmax, OpKind::logsumexp})
      for (const Shape& s : {Shape{16, 33}, Shape{64, 128}}) add(list, op, {{s, logits}}, g.dtypes, "saturating");
    if (g.dtypes == kNarrow) add_staged_twins(list, {Shape{64, 128}, logits}, "saturating");
    for (const Shape& s : {Shape{7}, Shape{64, 128}})
      add(list, OpKind::bce_with_logits, {{s, logits}, {s, Domain::of(Domain::Kind::probability, 0, 1)}}, g.dtypes,
          "saturating");
    for (const Shape& s : {Shape{16, 10}, Shape{64, 128}})
      add(list, OpKind::cross_entropy, {{s, logits}, {Shape{s[0]}, Domain::classes_of(static_cast<int>(s[1]))}},
          g.dtypes, "saturating");
    OpAttrs tau;
    tau.tau = 0.5;
    for (const Shape& s : {Shape{16, 33}, Shape{64, 128}})
      add(list, OpKind::gumbel_softmax, {{s, logits}, {s, Domain::of(Domain::Kind::gumbel_noise, 0, 1)}}, g.dtypes,
          "saturating", tau);
  }
}

// Logits whose exp overflows unless the row maximum is subtracted first: exp(100) is past
// float's range, exp(720) past double's.
void overflowing(CaseList& list) {
  struct Group {
    std::vector<DType> dtypes;
    double lo, hi;
  };
  for (const Group& g : {Group{kNarrow, 100, 130}, Group{{DType::f64}, 720, 760}}) {
    Domain logits = Domain::range(g.lo, g.hi);
    logits.fd_length = 1;  // softmax changes over a unit of its logits, wherever they sit
    for (OpKind op : {OpKind::softmax, OpKind::log_softmax, OpKind::logsumexp})
      add(list, op, {{Shape{16, 33}, logits}}, g.dtypes, "overflowing");
    if (g.dtypes == kNarrow) add_staged_twins(list, {Shape{16, 33}, logits}, "overflowing");
    add(list, OpKind::cross_entropy, {{Shape{16, 10}, logits}, {Shape{16}, Domain::classes_of(10)}}, g.dtypes,
        "overflowing");
  }
}

// exp and expm1 just below overflow, and expm1 at tiny arguments where exp(x) - 1 cancels.
void exponentials(CaseList& list) {
  struct Group {
    std::vector<DType> dtypes;
    // Below overflow (f32 and bf16 at 88.72, f16 at 11.09, f64 at 709.78), with room for the
    // gradient dy exp(x) at |dy| up to 5: within a factor of 5 of the largest finite value.
    double lo, hi;
    double tiny_lo, tiny_hi;
  };
  for (const Group& g : {Group{{DType::f32, DType::bf16}, 80, 87, 1e-8, 1e-3}, Group{{DType::f16}, 7, 9.4, 1e-4, 1e-2},
                         Group{{DType::f64}, 700, 708, 1e-12, 1e-3}}) {
    Domain high = hard(Domain::range(g.lo, g.hi));
    high.fd_length = 1;  // exp changes over a unit of its argument, not over |x| = 700
    for (OpKind op : {OpKind::exp, OpKind::expm1}) {
      add(list, op, {{Shape{127}, high}}, g.dtypes, "near_overflow");
      add(list, op, {{Shape{127}, Domain::magnitude(g.tiny_lo, g.tiny_hi)}}, g.dtypes, "near_zero");
    }
  }
}

// sin and cos next to their zeros (k pi and pi/2 + k pi within the wide cases' [-20, 20]), where a
// kernel's result is small and its absolute error is many ULP of it unless the argument
// reduction keeps r = x - k pi/2 to a few ULP of r itself.
void trig_zeros(CaseList& list) {
  const double pi = std::numbers::pi;
  for (auto [op, phase, multiples] : {std::tuple{OpKind::sin, 0.0, 6}, std::tuple{OpKind::cos, pi / 2, 5}})
    add(list, op, {{Shape{127}, Domain::near_multiples(pi, phase, multiples, 1e-7, 1e-3)}},
        {DType::f32, DType::f64, DType::f16, DType::bf16}, "near_zeros");
}

// Left tails of gelu, where x * Phi(x) is tiny and 1 + erf(x / sqrt 2) cancels.
void gelu_tails(CaseList& list) {
  const std::vector<DType> all = {DType::f32, DType::f64, DType::f16, DType::bf16};
  for (GeluApprox a : {GeluApprox::erf, GeluApprox::tanh})
    for (const Shape& s : {Shape{127}, Shape{64, 128}})
      add(list, OpKind::gelu, {{s, Domain::range(-10, -3)}}, all, "tail", with_gelu(a));
}

// Rows at 1000 + N(0, 1e-2): a one-pass variance E[x^2] - E[x]^2 loses every digit. 16-bit
// storage cannot hold such rows (1000's spacing is 0.5 in f16), so f32 and f64 only.
void large_mean(CaseList& list) {
  const Domain rows = Domain::normal(1000, 1e-2);
  const std::vector<DType> wide = {DType::f32, DType::f64};
  for (const Shape& s : {Shape{16, 33}, Shape{64, 128}}) {
    add(list, OpKind::variance, {{s, rows}}, wide, "large_mean");
    Shape row{s[1]};
    add(list, OpKind::layer_norm, {{s, rows}, {row, Domain::range(0.5, 2)}, {row, Domain::range(-1, 1)}}, wide,
        "large_mean");
  }
}

// log_matmul_exp where exp of the raw sums t = A + B overflows and underflows (|t| up to 120 in
// f32, past exp's range of 88.7; up to 800 in f64, past 709.8: at entries of +-80, f64 holds
// exp(160) and a kernel without the maximum subtracted passes), and where every output is
// dominated by one term near zero: rows of A are log-probabilities of near-certain choices (one
// entry in [-0.01, 0], the others 12 below it) and B is small, so C = t_max + log1p(rest) with
// rest about k e^-12 and |C| below 0.02; log(1 + rest) would err by a rounding of 1, far more
// than C's own.
void log_matmul(CaseList& list) {
  struct Group {
    std::vector<DType> dtypes;
    double edge;
  };
  const std::vector<Shape> lhs = {Shape{16, 33}, Shape{7, 128}}, rhs = {Shape{33, 7}, Shape{128, 5}};
  for (const Group& g : {Group{{DType::f32}, 60}, Group{{DType::f64}, 400}}) {
    Domain terms = Domain::range(-g.edge, g.edge);
    terms.fd_length = 1;  // the weights exp(t - C) change over a unit of t, wherever it sits
    for (std::size_t s = 0; s < lhs.size(); ++s)
      add(list, OpKind::log_matmul_exp, {{lhs[s], terms}, {rhs[s], terms}}, g.dtypes, "overflowing");
  }
  const double gap = 12;
  Domain near_certain = Domain::of(Domain::Kind::unique_row_max, -gap - 0.01, -gap, gap);
  Domain small = Domain::magnitude(1e-4, 1e-2);
  near_certain.fd_length = small.fd_length = 1;  // no pole or kink at zero: the op changes over a unit
  for (std::size_t s = 0; s < lhs.size(); ++s)
    add(list, OpKind::log_matmul_exp, {{lhs[s], near_certain}, {rhs[s], small}}, {DType::f32, DType::f64}, "dominant");
}

// Long dot products of zero-mean inputs: sums of thousands of terms that cancel to about
// sqrt(n) of their magnitude. In 16-bit storage they catch a sum kept in the storage type.
void long_dots(CaseList& list) {
  const Domain d = Domain::range(-1, 1);
  const std::vector<DType> all = {DType::f32, DType::f64, DType::f16, DType::bf16};
  for (std::int64_t k : {1024, 4096}) add(list, OpKind::matmul, {{Shape{8, k}, d}, {Shape{k, 5}, d}}, all, "long");
  add(list, OpKind::linear, {{Shape{4, 4096}, d}, {Shape{3, 4096}, d}, {Shape{3}, d}}, all, "long");
}

}  // namespace

void declare_hard_regimes_cases(CaseList& list) {
  saturating(list);
  overflowing(list);
  exponentials(list);
  trig_zeros(list);
  gelu_tails(list);
  large_mean(list);
  long_dots(list);
  log_matmul(list);
}

}  // namespace gp
