// A case is data: an op with attributes, input specs (shape + domain), the dtypes it runs in,
// and the knobs of its tolerance and numerical checks. Everything that runs a case (gtest
// parity suite, `gradparity`, stress runner, benchmarks) reads these declarations.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/op.hpp"
#include "core/tensor.hpp"

namespace gp {

// Where an input's values are drawn so that the op is smooth there. Kinks and poles stay at
// least `margin` away from every sampled point.
struct Domain {
  enum class Kind : std::uint8_t {
    uniform,            // U[lo, hi], |x| >= min_abs
    half_integer_free,  // U[lo, hi], at least `margin` away from every k + 1/2 (round)
    gate,               // U[lo, hi], |x| >= margin and ||x| - 1| >= margin (hardtanh gate)
    apart_from_input0,  // U[lo, hi], |x - input0| >= margin elementwise (maximum, minimum)
    unique_row_max,     // U[lo, hi], every row along attrs.axis has a max `margin` above the rest
    class_index,        // integers k * class_stride, k in [0, classes), i32
    gumbel_noise,       // -log(-log(U)), U in (0, 1)
    probability,        // U[0, 1] (targets of bce)
    normal,             // mean + sd N(0, 1): rows with a large mean and a small spread
    magnitude,          // |x| log-uniform in [lo, hi], either sign: tiny arguments (expm1 near 0)
    constant,           // every element lo (= hi): a state that starts at zero (Adam's m, v)
    near_multiples,     // phase + k period + t, k in [-multiples, multiples], |t| log-uniform in
                        // [lo, hi], either sign: next to the zeros of sin and cos
  };
  Kind kind = Kind::uniform;
  double lo = -1, hi = 1;
  double min_abs = 0;
  double margin = 0;
  int classes = 0;
  int class_stride = 1;  // class_index: every class_stride-th integer (class_pool)
  // True when lo/hi are where the op stops being defined or smooth (log1p's -0.9 guards its
  // pole at -1): finite-difference steps then stay inside. Other edges only bound sampling.
  bool hard_edges = false;
  double mean = 0, sd = 0;  // Kind::normal
  // Points the sampled values keep `margin` away from (an op's kinks, core/op_list.hpp).
  std::vector<double> kinks = {};
  // The length over which the op changes, which sets finite-difference steps. 0 derives it: |x|
  // where the domain keeps away from zero (a pole or kink there), else 1. A normal domain's is
  // its spread (rows at 1000 +- 0.01 change over 0.01); logits at 100..130 have no pole at
  // zero and change over 1.
  double fd_length = 0;
  double period = 0, phase = 0;  // Kind::near_multiples
  int multiples = 0;

  static Domain range(double lo, double hi) { return {Kind::uniform, lo, hi}; }
  static Domain away_from_zero(double lo, double hi, double m) { return {Kind::uniform, lo, hi, m, m}; }
  static Domain of(Kind k, double lo, double hi, double m = 0) { return {k, lo, hi, 0, m}; }
  static Domain classes_of(int c) { return {Kind::class_index, 0, double(c), 0, 0, c}; }
  // `count` indices 0, stride, 2 stride, ...: a batch longer than `count` repeats some for sure.
  static Domain class_pool(int count, int stride) {
    return {Kind::class_index, 0, double(count) * stride, 0, 0, count, stride};
  }
  static Domain normal(double mean, double sd) {
    Domain d{Kind::normal, mean - 8 * sd, mean + 8 * sd};
    d.mean = mean;
    d.sd = sd;
    d.fd_length = sd;
    return d;
  }
  static Domain magnitude(double lo, double hi) { return {Kind::magnitude, lo, hi}; }
  static Domain constant(double v) { return {Kind::constant, v, v}; }
  static Domain near_multiples(double period, double phase, int multiples, double lo, double hi) {
    Domain d{Kind::near_multiples, lo, hi};
    d.period = period;
    d.phase = phase;
    d.multiples = multiples;
    d.fd_length = period;  // steps on the period's scale, not |x|'s: lo bounds the offsets, no pole at 0
    return d;
  }
  // U[lo, hi], at least `margin` away from every kink the catalog declares for `op`.
  static Domain away_from_kinks(OpKind op, double lo, double hi, double margin) {
    Domain d{Kind::uniform, lo, hi};
    d.margin = margin;
    d.kinks.assign(op_kinks(op).begin(), op_kinks(op).end());
    return d;
  }
};

struct InputSpec {
  Shape shape;
  Domain domain;
};

// Tolerance knobs on top of the derived model (harness/check/tolerance.hpp). A loosening must say why;
// the report prints the reason next to the check.
struct ToleranceKnobs {
  double extra_ulps = 0;  // added to the derived bound, in ULPs of the value
  std::string reason;     // required when extra_ulps > 0
};

// How a case hands an input to the kernel (docs/strided-inputs.md): contiguous, or as a strided
// view of a larger storage, with elements no index reaches between the ones it does.
enum class InputView : std::uint8_t {
  contiguous,
  transposed,  // stored as its transpose: the last two axes swapped (rank >= 2)
  step2,       // every other element of rows twice as long, from the second: a slice with step 2
  expanded,    // the first axis read with stride 0 from one stored slice: a broadcast expanded
};
const char* view_name(InputView v);
// The layout of `shape` as view v; nothing for a contiguous one. Throws gp::Error where the view
// does not apply (a transposed rank-1 tensor).
std::optional<StridedLayout> view_layout(InputView v, const Shape& shape);

// Which sizes a case runs at (docs/scale.md). The small tier is every element checked against
// the reference, the default run; the large tier is the sizes where real kernels take their other
// code paths (tiles, split-K, long rows), checked on a sample of elements (`--scale`).
enum class Tier : std::uint8_t { small, large };
const char* tier_name(Tier t);

struct CaseDecl {
  CaseDecl();  // out of line: GCC 12 warns falsely about the dtypes' initializer list when inlined
  OpKind op{};
  OpAttrs attrs;
  std::vector<InputSpec> inputs;
  std::vector<DType> dtypes;  // f32 and f64 unless a declaration says otherwise
  ToleranceKnobs tolerance;
  // Largest allowed finite-difference perturbation per element (kinks, argmax gaps); 0 = none.
  double fd_max_step = 0;
  std::string variant;      // extra id text to tell apart same-shape cases ("wide")
  Tier tier = Tier::small;  // a large case's id starts with "large,"
  // Empty, or one per input: a strided case's views (its id then carries "view=transposed|...").
  std::vector<InputView> views;
};

// Values a case runs at instead of its seeded draw: a case read from a file (`--cases-file`,
// docs/cases-files.md). Already in the call's dtypes.
struct GivenValues {
  std::vector<HostTensor> inputs;
  std::optional<HostTensor> cotangent;  // absent: drawn from the case's stream, as for any case
  std::string file;                     // the file they came from, for the repro line
  std::string note;                     // what the file says of them ("found by hunt", a model's layer)
};

// One runnable case: a declaration at one dtype, with its stable id and its OpCall.
struct Case {
  CaseDecl decl;
  DType dtype = DType::f32;
  std::string id;  // op(attrs,shape=...,dtype=...)
  OpCall call;
  // Set for a case read from a file: its inputs (and cotangent) are these, whatever the seed.
  std::shared_ptr<const GivenValues> given;
  std::string family() const { return std::string(family_name(op_family(decl.op))); }
};

std::string make_case_id(const CaseDecl& d, DType dtype);
// The call's input layouts from the declaration's views at the call's shapes.
void apply_views(const CaseDecl& d, OpCall& call);

// `base` (a catalog case: op, attributes, dtype, domains, knobs) at the given values, whose
// shapes may differ from base's where the op's shape rule accepts them. The id is base's with
// the shapes given and a variant `file=HASH`, HASH from the values' bytes: the same values give
// the same id everywhere. Throws UsageError naming what does not fit (a count, a shape, a dtype,
// a non-finite value, an index out of range).
Case case_with_values(const Case& base, GivenValues values);

// The device memory one check of the case holds: its inputs, output, cotangent and gradients.
std::int64_t device_bytes(const Case& c);

// Where a domain draws its values, in a few words ("U[-8, 8]", "|x| >= 0.05 in [-5, 5]").
std::string describe(const Domain& d);

}  // namespace gp
