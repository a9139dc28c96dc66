// The staged definition (OpAttrs::staged) bounds one declared computation and nothing more. A
// fake kernel that computes what oneDNN's bf16 softmax and log_softmax compute (the intermediate
// rounded to the storage type, the rest in f32, the result rounded once more; the backward from
// that stored output, which the device declares) FAILs the contract's case and PASSes its staged
// twin; one that rounds the intermediate to one significant bit fewer than the storage type FAILs
// the staged twin too.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>
#include <vector>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/tolerance.hpp"
#include "reference/reference.hpp"
#include "reference/tracked.hpp"
#include "support/fake_backend.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;

using Stage = std::function<float(float)>;

std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// oneDNN's computation of one row in f32: m = max x, s_k = x_k - m, e_k = exp(s_k), S = sum e_k;
// softmax y = store(stage(e_k) / S), log_softmax y = store(stage(s_k) - log S).
void staged_forward(const OpCall& call, const HostTensor& x, HostTensor& y, const Stage& stage) {
  const std::int64_t n = call.input_shapes[0].dims().back();
  for (std::int64_t row = 0; row < x.numel() / n; ++row) {
    float m = -INFINITY;
    for (std::int64_t k = 0; k < n; ++k) m = std::max(m, static_cast<float>(x.get(row * n + k)));
    float sum = 0;
    for (std::int64_t k = 0; k < n; ++k)
      sum += static_cast<float>(std::exp(static_cast<double>(static_cast<float>(x.get(row * n + k)) - m)));
    const auto log_sum = static_cast<float>(std::log(static_cast<double>(sum)));
    for (std::int64_t k = 0; k < n; ++k) {
      const float s = static_cast<float>(x.get(row * n + k)) - m;
      const float v = call.kind == OpKind::softmax ? stage(static_cast<float>(std::exp(static_cast<double>(s)))) / sum
                                                   : stage(s) - log_sum;
      y.set(row * n + k, round_to(call.dtype, v));
    }
  }
}

// oneDNN's backward from the stored output y, in f32: softmax g = y (dy - <dy, y>), log_softmax
// g = dy - exp(y) sum(dy).
void row_backward_from_output(const OpCall& call, const HostTensor& y, const HostTensor& dy, HostTensor& g) {
  const std::int64_t n = call.input_shapes[0].dims().back();
  for (std::int64_t row = 0; row < y.numel() / n; ++row) {
    float dot = 0;
    for (std::int64_t k = 0; k < n; ++k)
      dot += static_cast<float>(dy.get(row * n + k)) *
             (call.kind == OpKind::softmax ? static_cast<float>(y.get(row * n + k)) : 1.0f);
    for (std::int64_t k = 0; k < n; ++k) {
      const auto yk = static_cast<float>(y.get(row * n + k)), dyk = static_cast<float>(dy.get(row * n + k));
      const float v = call.kind == OpKind::softmax ? yk * (dyk - dot) : dyk - std::exp(yk) * dot;
      g.set(row * n + k, round_to(call.dtype, v));
    }
  }
}

// oneDNN's backward reads the forward's output, as its plugin declares (core/math_profile.hpp).
const MathProfile& onednn_math() {
  return with_backward_from_output(correctly_rounded_profile(), {OpKind::softmax, OpKind::log_softmax});
}

struct Verdicts {
  Verdict forward, backward;
  std::string reasons;
};

Verdicts run_staged_kernel(const std::string& case_id, const Stage& stage) {
  const Case* c = find_case(case_id);
  if (!c) throw Error("missing case " + case_id);
  FakeBackend backend;
  backend.set_math(onednn_math());
  NiceMock<MockQueue> queue;
  ON_CALL(queue, forward).WillByDefault(Invoke([&](const OpCall& call, auto in, DeviceBuffer& out) {
    staged_forward(call, host(*in[0]), host(out), stage);
  }));
  ON_CALL(queue, backward)
      .WillByDefault(
          Invoke([](const OpCall& call, auto, const DeviceBuffer& out, const DeviceBuffer& dout, auto grads) {
            row_backward_from_output(call, host(out), host(dout), host(*grads[0]));
          }));
  const std::uint64_t seed = 1;
  const ReferenceData data = prepare_reference(*c, seed);
  Verdicts v{Verdict::skip, Verdict::skip, {}};
  for (const CheckResult& r : check_on_backend(*c, {"fake", &backend, &queue}, data, {seed})) {
    if (r.direction == Direction::forward) v.forward = r.verdict;
    if (r.direction == Direction::backward) v.backward = r.verdict;
    if (!r.reason.empty()) v.reasons += std::string(direction_name(r.direction)) + ": " + r.reason + "; ";
  }
  return v;
}

// Pairs of a contract case and its staged twin, at the hard regimes where oneDNN's bf16 fails.
struct Twins {
  const char* contract;
  const char* staged;
};
const Twins kTwins[] = {
    {"softmax(axis=-1,saturating,shape=64x128,dtype=bf16)",
     "softmax(axis=-1,staged=storage,saturating,shape=64x128,dtype=bf16)"},
    {"log_softmax(axis=-1,saturating,shape=64x128,dtype=bf16)",
     "log_softmax(axis=-1,staged=storage,saturating,shape=64x128,dtype=bf16)"},
    {"softmax(axis=-1,overflowing,shape=16x33,dtype=bf16)",
     "softmax(axis=-1,staged=storage,overflowing,shape=16x33,dtype=bf16)"},
};

TEST(StagedSoftmax, OneDnnComputationFailsTheContractAndPassesItsStagedTwin) {
  const Stage to_bf16 = [](float v) { return static_cast<float>(round_to(DType::bf16, v)); };
  for (const Twins& t : kTwins) {
    const Verdicts contract = run_staged_kernel(t.contract, to_bf16);
    EXPECT_EQ(contract.forward, Verdict::fail) << t.contract << ": " << contract.reasons;
    const Verdicts staged = run_staged_kernel(t.staged, to_bf16);
    EXPECT_EQ(staged.forward, Verdict::pass) << t.staged << ": " << staged.reasons;
    EXPECT_EQ(staged.backward, Verdict::pass) << t.staged << ": " << staged.reasons;
  }
}

TEST(StagedSoftmax, IntermediateOneBitCoarserThanStorageFailsTheStagedTwin) {
  for (const Twins& t : kTwins) {
    const DType storage = find_case(t.staged)->dtype;
    const int bits = mantissa_bits(storage);  // one fewer than the storage type's significand
    const int min_exponent = min_normal_exponent(storage);
    const Verdicts staged = run_staged_kernel(
        t.staged, [=](float v) { return static_cast<float>(ref::rounded_to(v, bits, min_exponent)); });
    EXPECT_EQ(staged.forward, Verdict::fail) << t.staged << ": " << staged.reasons;
  }
}

// The bound's new terms, as derived (reference/softmax_row.cpp, reference/rowwise.cpp), on
// fixed bf16 rows under correct rounding, with oneDNN's backward from the output (log_softmax's
// term reaches its gradient through exp(y)): the staged definition adds exactly its term to the spec
// channel (which holds the library functions' correctly rounded budgets besides), and the whole
// bound grows by it once (not twice, as the formulation's single roundings count).
TEST(StagedSoftmax, BoundAddsTheDerivedTermOnce) {
  const std::vector<long double> x = {-3.5,    -1.25,    0.75, 2.0, -0.40625,   1.3125, -7.0, 0.1875,
                                      10.0625, -5.03125, 3.0,  9.5, -0.0078125, 4.25,   6.5,  1.0};
  const std::vector<long double> dy = {0.3125, -1.25, 0.6875, 2.125, -0.375, 0.0625, 1.5, -0.875,
                                       -0.5,   1.75,  0.25,   -2.0,  0.875,  -0.125, 1.0, 0.4375};
  const std::int64_t rows = 2, n = 8;
  const long double u = unit_roundoff(DType::bf16);
  auto tensor = [&](const std::vector<long double>& v) {
    ref::RefTensor t;
    t.shape = Shape{rows, n};
    t.v = v;
    return t;
  };
  for (OpKind op : {OpKind::softmax, OpKind::log_softmax}) {
    OpAttrs staged;
    staged.staged = Staged::storage;
    const OpCall contract_call = make_call(op, OpAttrs{}, DType::bf16, {Shape{rows, n}});
    const OpCall staged_call = make_call(op, staged, DType::bf16, {Shape{rows, n}});
    const ref::Bounded contract = ref::bounded_evaluate(contract_call, {tensor(x)}, tensor(dy), &onednn_math());
    const ref::Bounded with_stage = ref::bounded_evaluate(staged_call, {tensor(x)}, tensor(dy), &onednn_math());
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto row = [&](const std::vector<long double>& v, std::int64_t k) { return v[at(r * n + k)]; };
      std::int64_t argmax = 0;
      for (std::int64_t k = 1; k < n; ++k)
        if (row(x, k) > row(x, argmax)) argmax = k;
      std::vector<long double> s(at(n)), p(at(n));
      long double sum = 0;
      for (std::int64_t k = 0; k < n; ++k) sum += std::exp(s[at(k)] = row(x, k) - row(x, argmax));
      long double dot = 0, abs_dot = 0, total = 0;
      for (std::int64_t k = 0; k < n; ++k) {
        p[at(k)] = std::exp(s[at(k)]) / sum;
        dot += row(dy, k) * p[at(k)];
        if (k != argmax) abs_dot += std::fabs(row(dy, k)) * u * p[at(k)];  // the argmax's e = 1 is exact
        total += row(dy, k);
      }
      for (std::int64_t j = 0; j < n; ++j) {
        // softmax: u y_j in y_j; u y_j |dy_j - <dy, y>| + y_j sum_k |dy_k| u y_k in g_j.
        // log_softmax: u |x_j - m| in y_j (none where bf16 holds the shift); p_j u |x_j - m| |sum dy| in g_j.
        long double forward = 0, backward = 0;
        const long double sj = s[at(j)], pj = p[at(j)];
        if (op == OpKind::softmax) {
          forward = j == argmax ? 0 : u * pj;
          backward = forward * std::fabs(row(dy, j) - dot) + pj * abs_dot;
        } else {
          forward = round_to(DType::bf16, static_cast<double>(sj)) == sj ? 0 : u * std::fabs(sj);
          backward = pj * forward * std::fabs(total);
        }
        const std::size_t i = at(r * n + j);
        const std::string where = std::string(op_name(op)) + " element " + std::to_string(i);
        for (const auto& [got, base, expected, what] :
             {std::tuple{with_stage.output.err[i], contract.output.err[i], forward, "forward"},
              std::tuple{with_stage.grads[0].err[i], contract.grads[0].err[i], backward, "backward"}}) {
          const double spec = static_cast<double>(got.spec - base.spec);
          const double grown = propagated_error(got) - propagated_error(base);
          const double once = (1 + kReferenceShare) * static_cast<double>(expected);
          if (op == OpKind::log_softmax && std::string(what) == "backward") {
            // exp(y) carries y's error through the secant (reference/tracked.cpp, exp_slope), which
            // exceeds the tangent by a factor 1 + d/2 + ... for y's whole error d (up to 0.14 here,
            // y's other errors scaled with the staged one: the bound grows by up to 17 % more than
            // the derived term): more than the first-order derivation, far less than twice it.
            EXPECT_GE(spec, static_cast<double>(expected) * (1 - 1e-9)) << where << " " << what;
            EXPECT_LE(spec, static_cast<double>(expected) * 1.1) << where << " " << what;
            EXPECT_GE(grown, once * (1 - 1e-6)) << where << " " << what;
            EXPECT_LE(grown, once * 1.25) << where << " " << what;
            continue;
          }
          EXPECT_NEAR(spec, static_cast<double>(expected),
                      1e-9 * static_cast<double>(expected) + 1e-12 * static_cast<double>(base.spec))
              << where << " " << what;
          // Products carry their second-order term where an operand's error is large relative to it
          // (reference/tracked.cpp): at bf16 the staged term's products with the other operand's
          // error add to it, most where dy_j - <dy, y> cancels (3.2 % of the term at element 2),
          // far less than counting it twice.
          EXPECT_GE(grown, once * (1 - 1e-6)) << where << " " << what;
          EXPECT_LE(grown, once * 1.05) << where << " " << what;
        }
      }
    }
  }
}

TEST(StagedSoftmax, NeedsASixteenBitDtype) {
  OpAttrs a;
  a.staged = Staged::storage;
  EXPECT_THROW(make_call(OpKind::softmax, a, DType::f32, {Shape{4, 8}}), Error);
  EXPECT_THROW(make_call(OpKind::logsumexp, a, DType::bf16, {Shape{4, 8}}), Error);
  EXPECT_EQ(attrs_to_string(OpKind::softmax, make_call(OpKind::softmax, a, DType::bf16, {Shape{4, 8}}).attrs),
            "axis=-1,staged=storage");
  EXPECT_EQ(attrs_to_string(OpKind::softmax, OpAttrs{}), "axis=-1");
}

}  // namespace
}  // namespace gp
