// The large tier (docs/scale.md): each sampled element's reference is its slice's (a dot product,
// an element, a line along an axis), bit for bit the whole evaluation's; the sample holds every tile boundary; a kernel
// wrong only in an edge tile past 4096 fails the large case and passes the small tier; --scale picks the tiers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "backends/registry.hpp"
#include "cases/registry.hpp"
#include "core/error.hpp"
#include "core/op_work.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/memory_fit.hpp"
#include "harness/check/primitive_subject.hpp"
#include "harness/large/line_statistics.hpp"
#include "harness/large/sample.hpp"
#include "harness/large/sampled_reference.hpp"
#include "harness/large/sampled_subject.hpp"
#include "harness/run/subjects.hpp"
#include "harness/run/work_items.hpp"
#include "reference/element_slice.hpp"
#include "support/fake_backend.hpp"
#include "support/four_ulps.hpp"
#include "support/lookup.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;
using testing::case_named;
using ::testing::HasSubstr;
using ::testing::Not;

using testing::kFourUlps;

std::vector<std::int64_t> every_index(std::int64_t n) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = i;
  return out;
}

void expect_same(const ref::RefTensor& whole, const ref::RefTensor& sliced, const std::string& what) {
  ASSERT_EQ(whole.v.size(), sliced.v.size()) << what;
  for (std::size_t i = 0; i < whole.v.size(); ++i) {
    EXPECT_EQ(whole.v[i], sliced.v[i]) << what << " value " << i;
    EXPECT_EQ(whole.err[i].det, sliced.err[i].det) << what << " det " << i;
    EXPECT_EQ(whole.err[i].acc, sliced.err[i].acc) << what << " acc " << i;
    EXPECT_EQ(whole.err[i].prob, sliced.err[i].prob) << what << " prob " << i;
    EXPECT_EQ(whole.err[i].spec, sliced.err[i].spec) << what << " spec " << i;
    if (::testing::Test::HasFailure()) return;  // one element says it
  }
}

TEST(LargeTier, EverySlicedElementIsTheWholeEvaluationsBitForBit) {
  for (const char* id :
       {"matmul(shape=16x33|33x9,dtype=f32)", "matmul(shape=4x16x7|4x7x9,dtype=bf16)",
        "matmul(shape=2x1x33|2x33x1,dtype=f64)", "linear(shape=16x33|9x33|9,dtype=f32)",
        "linear(shape=7x1|5x1|5,dtype=f16)", "exp(shape=16x33,dtype=f32)", "tanh(shape=64x128,dtype=bf16)",
        "sum(axis=0,keepdim=0,shape=16x33,dtype=bf16)", "mean(axis=1,keepdim=1,shape=4x7x9,dtype=f32)",
        "max(axis=-1,keepdim=0,shape=16x33,dtype=f32)", "logsumexp(axis=1,keepdim=1,shape=4x7x9,dtype=f32)",
        "variance(axis=-1,keepdim=0,correction=1,shape=16x33,dtype=f64)", "softmax(axis=0,shape=16x33,dtype=f32)",
        "softmax(axis=-1,staged=storage,shape=64x128,dtype=bf16)",
        "log_softmax(axis=-1,saturating,shape=16x33,dtype=bf16)", "layer_norm(eps=1e-05,shape=4x7x9|9|9,dtype=bf16)",
        "rms_norm(eps=1e-05,shape=16x33|33,dtype=f32)", "cross_entropy(shape=7x33|7,dtype=f32)",
        "mse_loss(reduction=mean,shape=16x33|16x33,dtype=f64)", "mul(shape=16x33|16x33,dtype=bf16)",
        "div(shape=64x128|64x128,dtype=f32)",
        // broadcast inputs: a gradient element sums the output elements that read it
        "add(shape=16x33|33,dtype=f32)", "div(shape=16x1|1x33,dtype=f64)", "pow(shape=64x128|128,dtype=bf16)",
        "sub(shape=scalar|16x33,dtype=f16)", "maximum(shape=16x1|1x33,dtype=f32)"}) {
    const Case& c = case_named(id);
    const ReferenceData data = prepare_reference(c, 3);
    LineStatisticsMemo statistics;  // a reduction's lines: shared by the output, the gradient and both profiles
    for (const MathProfile* profile : {static_cast<const MathProfile*>(&kFourUlps), &correctly_rounded_profile()}) {
      const ref::Bounded& whole = data.bounded(profile);
      auto expect_sliced_same = [&](int tensor, const ref::RefTensor& expected, const std::string& what) {
        for (LineStatisticsMemo* memo : {static_cast<LineStatisticsMemo*>(nullptr), &statistics})
          expect_same(expected,
                      sampled_bounds({c.call, data.inputs, data.cotangent, memo}, tensor, every_index(expected.numel()),
                                     profile, false),
                      std::string(id) + " " + what + (memo ? " (kept line statistics)" : ""));
      };
      expect_sliced_same(ref::kOutputTensor, whole.output, "output");
      for (int k = 0; k < static_cast<int>(whole.grads.size()); ++k)
        if (!whole.grads[static_cast<std::size_t>(k)].v.empty())
          expect_sliced_same(k, whole.grads[static_cast<std::size_t>(k)], "gradient " + std::to_string(k));
    }
  }
}

TEST(LargeTier, TheSampleHoldsEveryTileBoundaryOfEachDimension) {
  const std::vector<std::int64_t> b = boundary_indices(4097);
  for (std::int64_t i : {0, 1, 15, 16, 17, 255, 256, 257, 4095, 4096})
    EXPECT_TRUE(std::count(b.begin(), b.end(), i)) << i;
  EXPECT_EQ(b.back(), 4096);
  const Shape shape{33, 4097};
  const std::vector<std::int64_t> sample = sample_elements(shape, SampleOptions{0}, 1, "test");
  EXPECT_TRUE(std::is_sorted(sample.begin(), sample.end()));
  std::set<std::int64_t> rows, columns;
  for (std::int64_t i : sample) {
    rows.insert(i / 4097);
    columns.insert(i % 4097);
  }
  for (std::int64_t r : boundary_indices(33)) EXPECT_TRUE(rows.count(r)) << "row " << r;
  for (std::int64_t c : b) EXPECT_TRUE(columns.count(c)) << "column " << c;
  EXPECT_TRUE(std::count(sample.begin(), sample.end(), 33 * 4097 - 1)) << "the last element";
  // Along 10^8 elements: multiples of a wider step, and the last tile of every power-of-two size.
  const std::int64_t n = 100'000'000;
  const std::vector<std::int64_t> wide = boundary_indices(n);
  EXPECT_EQ(boundary_step(n), 32768);
  EXPECT_LE(wide.size(), 3 * 4096 + 3 * 27 + 4u);
  for (std::int64_t tile = 16; tile < n; tile *= 2)
    EXPECT_TRUE(std::count(wide.begin(), wide.end(), (n - 1) / tile * tile)) << "last tile of " << tile;
  EXPECT_EQ(boundary_step(65536), 16);
  // Random elements come on top, from the seed.
  EXPECT_GT(sample_elements(shape, SampleOptions{100}, 1, "test").size(), sample.size());
  EXPECT_EQ(sample_elements(shape, SampleOptions{100}, 1, "test"),
            sample_elements(shape, SampleOptions{100}, 1, "test"));
}

// A matmul kernel that mishandles the partial tile past 4096 along k: the first eight columns
// of it (one vector of lanes) of dA come out 1e-3 too large (a tile's scale applied twice, say).
// Every other element is exact.
void edge_tile_backward(const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                        const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
  exact_backward(call, in, out, dout, grads);
  const MatmulDims d = matmul_dims(call);
  if (d.k <= 4096 || !grads[0]) return;
  HostTensor& da = host(*grads[0]);
  for (std::int64_t i = 0; i < d.batch * d.m; ++i)
    for (std::int64_t p = 4096; p < std::min<std::int64_t>(d.k, 4104); ++p)
      da.set(i * d.k + p, da.get(i * d.k + p) * (1 + 1e-3));
}

std::vector<CheckResult> checks_with_edge_tile_bug(const Case& c, bool large) {
  FakeBackend backend;
  NiceMock<MockQueue> queue;
  ON_CALL(queue, backward).WillByDefault(Invoke(edge_tile_backward));
  RunContext run{5};
  run.sample.random = 0;  // the boundaries alone
  if (large) return check_sampled_on_backend(c, {"fake", &backend, &queue}, prepare_sampled_reference(c, run), run);
  return check_on_backend(c, {"fake", &backend, &queue}, prepare_reference(c, run.seed), run);
}

TEST(LargeTier, AnEdgeTileBugPastK4096FailsTheLargeCasesAndPassesTheSmallTier) {
  // K = 4097: the partial tile is the last column. K = 4111: its first 8 of 15 columns, which
  // no corner and no random element of a sample of 0 reaches: the tile boundaries do.
  for (std::int64_t k : {4097, 4111}) {
    const std::string id = "matmul(large,shape=33x" + std::to_string(k) + "|" + std::to_string(k) + "x31,dtype=f32)";
    std::vector<CheckResult> sampled, complete;
    for (CheckResult& r : checks_with_edge_tile_bug(case_named(id), true))
      (r.direction == Direction::forward || r.direction == Direction::backward ? sampled : complete).push_back(r);
    ASSERT_EQ(sampled.size(), 3u);
    ASSERT_EQ(complete.size(), 3u);
    for (const std::vector<CheckResult>* checks : {&sampled, &complete}) {
      const std::vector<CheckResult>& large = *checks;
      EXPECT_EQ(large[0].verdict, Verdict::pass) << large[0].reason;
      EXPECT_EQ(large[2].verdict, Verdict::pass) << large[2].reason;
      EXPECT_EQ(large[1].verdict, Verdict::fail) << id;
      EXPECT_GE(large[1].metrics.worst.index % k, 4096) << large[1].reason;
      EXPECT_THAT(large[1].reason, HasSubstr("exceeds bound"));
    }
    EXPECT_LT(sampled[1].metrics.elements, sampled[1].metrics.tensor_elements);
    EXPECT_EQ(complete[1].metrics.elements, complete[1].metrics.tensor_elements);
  }
  // The small tier's longest inner size is 4096: no partial tile, nothing wrong.
  for (const CheckResult& r :
       checks_with_edge_tile_bug(case_named("matmul(long,shape=8x4096|4096x5,dtype=f32)"), false))
    EXPECT_NE(r.verdict, Verdict::fail) << check_label(r) << ": " << r.reason;
}

// One element of a GEMM's output wrong by 1e-3 of its value, away from every tile boundary and
// corner: the sample (its boundaries alone) does not hold it and passes; the complete check
// compares every element and fails there. A correct kernel passes both.
TEST(LargeTier, AWrongElementAwayFromTheSampleFailsTheCompleteCheck) {
  const Case& c = case_named("matmul(large,shape=33x4097|4097x31,dtype=f32)");
  RunContext run{4};
  run.sample.random = 0;
  const SampledReference reference = prepare_sampled_reference(c, run);
  const std::int64_t wrong = 5 * 31 + 7;  // row 5, column 7
  ASSERT_FALSE(std::count(reference.tensors[0].index.begin(), reference.tensors[0].index.end(), wrong));
  auto checks = [&](bool bug) {
    FakeBackend backend;
    NiceMock<MockQueue> queue;
    ON_CALL(queue, forward)
        .WillByDefault(
            Invoke([bug, wrong](const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
              exact_forward(call, in, out);
              if (bug) host(out).set(wrong, host(out).get(wrong) * (1 + 1e-3));
            }));
    return check_sampled_on_backend(c, {"fake", &backend, &queue}, reference, run);
  };
  for (const CheckResult& r : checks(false)) EXPECT_EQ(r.verdict, Verdict::pass) << check_label(r) << ": " << r.reason;
  const std::vector<CheckResult> wrong_one = checks(true);
  ASSERT_EQ(wrong_one.size(), 6u);
  EXPECT_EQ(wrong_one[0].direction, Direction::forward);
  EXPECT_EQ(wrong_one[0].verdict, Verdict::pass) << "the sample does not hold the element";
  EXPECT_EQ(wrong_one[1].direction, Direction::forward_complete);
  EXPECT_EQ(wrong_one[1].verdict, Verdict::fail);
  EXPECT_EQ(wrong_one[1].metrics.worst.index, wrong) << wrong_one[1].reason;
  EXPECT_EQ(wrong_one[1].metrics.elements, 33 * 31);
  EXPECT_LT(wrong_one[1].metrics.detection_threshold, 1e-4) << wrong_one[1].tolerance;
}

// A fake device whose forward output (forward_bug), or whose first input's gradient
// (backward_bug), is wrong at element `wrong`: off by 10^-3 of its value, or for a gradient with
// `by_largest`, of the gradient's largest magnitude.
struct OneWrongElement {
  std::int64_t wrong = 0;
  bool forward_bug = false, backward_bug = false, by_largest = false;
};
std::vector<CheckResult> checks_with(const Case& c, const SampledReference& reference, const RunContext& run,
                                     const OneWrongElement& bug) {
  FakeBackend backend;
  NiceMock<MockQueue> queue;
  ON_CALL(queue, forward)
      .WillByDefault(Invoke([=](const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
        exact_forward(call, in, out);
        if (bug.forward_bug) host(out).set(bug.wrong, host(out).get(bug.wrong) * (1 + 1e-3));
      }));
  ON_CALL(queue, backward)
      .WillByDefault(Invoke([=](const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                                const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
        exact_backward(call, in, out, dout, grads);
        if (!bug.backward_bug) return;
        HostTensor& g = host(*grads[0]);
        double scale = std::fabs(g.get(bug.wrong));
        if (bug.by_largest)
          for (std::int64_t i = 0; i < g.numel(); ++i) scale = std::max(scale, std::fabs(g.get(i)));
        g.set(bug.wrong, g.get(bug.wrong) + std::copysign(1e-3 * scale, g.get(bug.wrong)));
      }));
  return check_sampled_on_backend(c, {"fake", &backend, &queue}, reference, run);
}

// Beside the sample, every element of a line-wise op's output and gradients is compared with its
// own bound (harness/large/complete_lines.hpp): a softmax element off by 10^-3 of its value, or a
// gradient element off by 10^-3 of the gradient's largest magnitude, away from every sampled
// element, fails the complete check at that element; above --complete-elements there is none,
// and the sampled check says so.
TEST(LargeTier, AWrongElementAwayFromTheSampleFailsTheLineCompleteCheck) {
  const Case& c = case_named("softmax(large,axis=-1,shape=8x32000,dtype=f32)");
  RunContext run{4};
  run.sample.random = 0;
  const SampledReference reference = prepare_sampled_reference(c, run);
  const std::int64_t wrong = 3 * 32000 + 12345;  // row 3, an odd column
  for (const SampledTensor& t : reference.tensors) ASSERT_FALSE(std::count(t.index.begin(), t.index.end(), wrong));
  auto checks = [&](bool forward_bug, bool backward_bug) {
    return checks_with(c, reference, run, {wrong, forward_bug, backward_bug, true});
  };
  const std::vector<CheckResult> right = checks(false, false);
  ASSERT_EQ(right.size(), 4u);
  EXPECT_EQ(right[1].direction, Direction::forward_complete);
  EXPECT_EQ(right[3].direction, Direction::backward_complete);
  for (const CheckResult& r : right) EXPECT_EQ(r.verdict, Verdict::pass) << check_label(r) << ": " << r.reason;
  EXPECT_EQ(right[1].metrics.elements, 8 * 32000);
  EXPECT_LT(right[1].metrics.detection_threshold, 1e-4) << right[1].tolerance;
  EXPECT_THAT(right[1].tolerance, HasSubstr("its line's evaluation"));
  EXPECT_THAT(right[1].tolerance, HasSubstr("fails at 100 % of the elements"));
  for (const auto& [forward_bug, at] : {std::pair{true, 0}, std::pair{false, 2}}) {
    const std::vector<CheckResult> wrong_one = checks(forward_bug, !forward_bug);
    const CheckResult& sampled = wrong_one[static_cast<std::size_t>(at)];
    const CheckResult& complete = wrong_one[static_cast<std::size_t>(at) + 1];
    EXPECT_EQ(sampled.verdict, Verdict::pass) << "the sample does not hold the element";
    EXPECT_EQ(complete.verdict, Verdict::fail) << check_label(complete);
    EXPECT_EQ(complete.metrics.worst.index, wrong) << complete.reason;
  }
  run.sample.complete_elements = 8 * 32000 - 1;
  const std::vector<CheckResult> above = checks(false, false);
  ASSERT_EQ(above.size(), 2u) << "no complete check above --complete-elements";
  EXPECT_THAT(above[0].tolerance, HasSubstr("no complete check: 256000 elements, above --complete-elements 255999"));
}

// An elementwise tensor above --complete-elements is still compared whole, block by block on
// each device with nothing kept: the same verdicts and metrics as from the kept references; an
// element off by 10^-3 away from the sample fails it there; above --streamed-complete-elements
// there is none, and the sampled check says so.
TEST(LargeTier, AStreamedCompleteCheckJudgesAsTheKeptOneAndCatchesAWrongElement) {
  const Case& c = case_named("tanh(shape=64x128,dtype=f32)");
  RunContext run{4};
  run.sample.random = 0;
  const SampledReference reference = prepare_sampled_reference(c, run);
  const std::int64_t wrong = 37 * 128 + 77;
  for (const SampledTensor& t : reference.tensors) ASSERT_FALSE(std::count(t.index.begin(), t.index.end(), wrong));
  auto checks = [&](bool forward_bug, bool backward_bug, const RunContext& at) {
    return checks_with(c, reference, at, {wrong, forward_bug, backward_bug, false});
  };
  RunContext streamed = run;
  streamed.sample.complete_elements = 0;
  for (const auto& [forward_bug, backward_bug] : {std::pair{false, false}, {true, false}, {false, true}}) {
    const std::vector<CheckResult> kept = checks(forward_bug, backward_bug, run);
    const std::vector<CheckResult> each = checks(forward_bug, backward_bug, streamed);
    ASSERT_EQ(kept.size(), 4u);
    ASSERT_EQ(each.size(), 4u);
    for (std::size_t i = 0; i < kept.size(); ++i) {
      SCOPED_TRACE(check_label(each[i]));
      EXPECT_EQ(each[i].direction, kept[i].direction);
      EXPECT_EQ(each[i].verdict, kept[i].verdict);
      EXPECT_EQ(each[i].metrics.elements, kept[i].metrics.elements);
      EXPECT_EQ(each[i].metrics.margin, kept[i].metrics.margin);
      EXPECT_EQ(each[i].metrics.max_abs, kept[i].metrics.max_abs);
      EXPECT_EQ(each[i].metrics.worst.index, kept[i].metrics.worst.index);
      const double threshold = kept[i].metrics.detection_threshold;  // NaN for a sampled check
      if (std::isnan(threshold)) {
        EXPECT_TRUE(std::isnan(each[i].metrics.detection_threshold));
      } else {
        EXPECT_EQ(each[i].metrics.detection_threshold, threshold);
      }
    }
    EXPECT_THAT(each[1].tolerance, HasSubstr("block by block"));
    EXPECT_EQ(each[0].verdict, Verdict::pass) << "the sample does not hold the element";
    EXPECT_EQ(each[2].verdict, Verdict::pass) << "the sample does not hold the element";
    EXPECT_EQ(each[1].verdict, forward_bug ? Verdict::fail : Verdict::pass) << each[1].reason;
    EXPECT_EQ(each[3].verdict, backward_bug ? Verdict::fail : Verdict::pass) << each[3].reason;
    if (forward_bug) {
      EXPECT_EQ(each[1].metrics.worst.index, wrong);
    }
    if (backward_bug) {
      EXPECT_EQ(each[3].metrics.worst.index, wrong);
    }
  }
  streamed.sample.streamed_complete_elements = 64 * 128 - 1;
  const std::vector<CheckResult> none = checks(false, false, streamed);
  ASSERT_EQ(none.size(), 2u) << "no complete check above both limits";
  EXPECT_THAT(none[0].tolerance, HasSubstr("no complete check: 8192 elements, above --complete-elements 0 and "
                                           "--streamed-complete-elements 8191"));
}

// A reduction's gradient above --complete-elements is streamed line by line (each line's
// statistics once, its blocks on every core): the same judgement as from the kept references,
// lines along an inner-strided axis too; one element off by 10^-3 of the gradient's largest
// magnitude fails it there.
TEST(LargeTier, AReductionsGradientIsStreamedLineByLineAndJudgedAsTheKeptOne) {
  for (const char* id : {"sum(axis=0,keepdim=0,shape=16x33,dtype=f32)", "mean(axis=0,keepdim=0,shape=16x33,dtype=f32)",
                         "max(axis=-1,keepdim=0,shape=16x33,dtype=f32)",
                         "variance(axis=1,keepdim=1,correction=1,shape=4x7x9,dtype=f32)"}) {
    SCOPED_TRACE(id);
    const Case& c = case_named(id);
    RunContext run{4};
    run.sample.random = 0;
    const SampledReference reference = prepare_sampled_reference(c, run);
    RunContext streamed = run;
    streamed.sample.complete_elements = c.call.output_shape.numel();  // the output kept, the gradient streamed
    const std::int64_t wrong = c.call.input_shapes[0].numel() / 2 + 1;
    for (const bool bug : {false, true}) {
      const std::vector<CheckResult> kept = checks_with(c, reference, run, {wrong, false, bug, true});
      const std::vector<CheckResult> each = checks_with(c, reference, streamed, {wrong, false, bug, true});
      ASSERT_EQ(kept.size(), 4u);
      ASSERT_EQ(each.size(), 4u);
      const CheckResult &k = kept[3], &e = each[3];
      EXPECT_EQ(e.direction, Direction::backward_complete);
      EXPECT_THAT(e.tolerance, HasSubstr("block by block"));
      EXPECT_THAT(k.tolerance, Not(HasSubstr("block by block")));
      EXPECT_EQ(e.verdict, bug ? Verdict::fail : Verdict::pass) << e.reason;
      EXPECT_EQ(e.verdict, k.verdict);
      EXPECT_EQ(e.metrics.elements, c.call.input_shapes[0].numel());
      EXPECT_EQ(e.metrics.elements, k.metrics.elements);
      EXPECT_EQ(e.metrics.margin, k.metrics.margin);
      EXPECT_EQ(e.metrics.max_abs, k.metrics.max_abs);
      EXPECT_EQ(e.metrics.worst.index, k.metrics.worst.index);
      EXPECT_EQ(e.metrics.detection_threshold, k.metrics.detection_threshold);
      if (bug) {
        EXPECT_EQ(e.metrics.worst.index, wrong);
      }
    }
  }
}

// A max's gradient is one element per line, at the input's maximum: the sample holds it (the
// inputs' extremes), so the check compares it, and a kernel that sends it one element off fails.
TEST(LargeTier, TheSampleHoldsWhereAMaxSendsItsGradient) {
  const Case& c = case_named("max(large,axis=-1,keepdim=0,shape=1000000,dtype=f32)");
  RunContext run{2};
  run.sample.random = 0;
  run.sample.complete_elements = 0;  // the sampled check alone
  const SampledReference reference = prepare_sampled_reference(c, run);
  auto gradient_check = [&](bool off_by_one) {
    FakeBackend backend;
    NiceMock<MockQueue> queue;
    ON_CALL(queue, backward)
        .WillByDefault(
            Invoke([off_by_one](const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                                const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
              exact_backward(call, in, out, dout, grads);
              if (!off_by_one) return;
              HostTensor& g = host(*grads[0]);
              for (std::int64_t i = 0; i + 1 < g.numel(); ++i)
                if (g.get(i) != 0) {
                  g.set(i + 1, g.get(i));
                  g.set(i, 0);
                  return;
                }
            }));
    return check_sampled_on_backend(c, {"fake", &backend, &queue}, reference, run).at(1);
  };
  const CheckResult right = gradient_check(false);
  EXPECT_EQ(right.verdict, Verdict::pass) << right.reason;
  EXPECT_EQ(gradient_check(true).verdict, Verdict::fail);
}

// The cpu backend's long lanes: a running f32 sum of 10^6 squared deviations, of 131,072
// exponentials, stagnates beyond its bound (margins 1.6, 1.7, 1.5 before its sums went pairwise,
// backends/cpu/kernels/lanes.hpp).
TEST(LargeTier, TheCpuBackendsLongLanesStayWithinTheirBounds) {
  std::unique_ptr<Backend> cpu;
  for (const BackendProvider& p : backend_providers())
    if (p.name == "cpu") cpu = p.discover({}).at(0).create();
  ASSERT_TRUE(cpu);
  const std::unique_ptr<Queue> queue = cpu->create_queue();
  RunContext run{1};
  run.sample.random = 64;
  for (const char* id : {"variance(large,axis=-1,keepdim=0,correction=1,shape=1000000,dtype=f32)",
                         "softmax(large,axis=-1,shape=4x131072,dtype=f32)",
                         "logsumexp(large,axis=-1,keepdim=0,shape=4x131072,dtype=f32)"}) {
    const Case& c = case_named(id);
    for (const CheckResult& r :
         check_sampled_on_backend(c, {"cpu", cpu.get(), queue.get()}, prepare_sampled_reference(c, run), run))
      EXPECT_EQ(r.verdict, Verdict::pass) << id << " " << check_label(r) << ": " << r.reason;
  }
}

// What a call moves and computes (core/op_work.hpp): each tensor once, the contractions' 2mnk.
TEST(LargeTier, CallWorkCountsEachTensorOnceAndTheContractions) {
  const OpCall mm = make_call(OpKind::matmul, {}, DType::f32, {Shape{33, 4097}, Shape{4097, 31}});
  const std::int64_t a = 33 * 4097, b = 4097 * 31, c = 33 * 31;
  EXPECT_EQ(forward_work(mm).bytes, 4 * (a + b + c));
  EXPECT_EQ(forward_work(mm).flops, 2 * a * 31);
  EXPECT_EQ(backward_work(mm).bytes, 4 * (c + 2 * (a + b)));  // dC; dA and dB written, A and B read
  EXPECT_EQ(backward_work(mm).flops, 4 * a * 31);
  const OpCall add = make_call(OpKind::add, {}, DType::bf16, {Shape{1000}, Shape{1000}});
  EXPECT_EQ(forward_work(add).bytes, 2 * 3000);
  EXPECT_EQ(backward_work(add).bytes, 2 * 3000);  // its VJP reads the cotangent alone
  EXPECT_EQ(backward_work(add).flops, 0);
  const OpCall exp = make_call(OpKind::exp, {}, DType::f32, {Shape{1000}});
  EXPECT_EQ(backward_work(exp).bytes, 4 * 3000);
}

// Each check of a large case carries the time of the call it judges, from the device's timers
// where the queue has them, else from the host's clock, with the call's bytes and operations.
TEST(LargeTier, EachCheckCarriesTheSpeedOfItsCallAndItsCasesMemory) {
  class TimedQueue : public NiceMock<MockQueue> {
   public:
    std::optional<double> take_device_seconds() noexcept override { return 0.25; }
  };
  const Case& c = case_named("matmul(large,shape=33x4097|4097x31,dtype=f32)");
  RunContext run{3};
  run.sample.random = 0;
  const SampledReference reference = prepare_sampled_reference(c, run);
  FakeBackend backend;
  TimedQueue timed;
  const std::vector<CheckResult> device = check_sampled_on_backend(c, {"fake", &backend, &timed}, reference, run);
  ASSERT_EQ(device.size(), 6u);  // each tensor's sampled and complete check
  for (const CheckResult& r : device) {
    EXPECT_EQ(r.speed.seconds, 0.25) << check_label(r);
    EXPECT_EQ(r.memory.device_bytes, device_bytes(c));
    EXPECT_EQ(r.memory.host_bytes, large_case_host_bytes(c, backend.info()) + complete_check_host_bytes(c, run.sample));
    EXPECT_TRUE(r.speed.device_timer);
    const bool forward = r.direction == Direction::forward || r.direction == Direction::forward_complete;
    const CallWork w = forward ? forward_work(c.call) : backward_work(c.call);
    EXPECT_EQ(r.speed.bytes, w.bytes);
    EXPECT_EQ(r.speed.flops, w.flops);
  }
  NiceMock<MockQueue> untimed;
  for (const CheckResult& r : check_sampled_on_backend(c, {"fake", &backend, &untimed}, reference, run)) {
    EXPECT_GT(r.speed.seconds, 0) << check_label(r);
    EXPECT_FALSE(r.speed.device_timer);
  }
}

// A line past 2^24 elements is scanned in blocks on every core: the extremes are still the first
// index of the largest and of the smallest value, across block boundaries (blocks of 2^22).
TEST(LargeTier, ExtremesOfAHugeLineAreTheFirstIndicesAcrossBlocks) {
  const std::int64_t n = (std::int64_t{1} << 24) + 5, block = std::int64_t{1} << 22;
  HostTensor x(DType::f32, Shape{n});
  for (std::int64_t i = 0; i < n; ++i) x.set(i, static_cast<double>(i % 1000) / 1000);
  x.set(3 * block - 1, 7);  // the largest, last of block 2, tied by the first of block 3 and by the last element
  x.set(3 * block, 7);
  x.set(n - 1, 7);
  x.set(block + 17, -2);  // the smallest, tied in a later block
  x.set(2 * block + 4, -2);
  EXPECT_EQ(extreme_indices(x), (std::vector<std::int64_t>{3 * block - 1, block + 17}));
}

// A case whose buffers do not fit the device, or whose host copies do not fit the machine, SKIPs
// with the sizes (harness/check/memory_fit.hpp) instead of failing an allocation or being killed.
TEST(LargeTier, ACaseThatDoesNotFitSkipsWithTheSizes) {
  const Case& index = case_named("exp(large,shape=2147487745,dtype=bf16)");  // past 2^31 elements
  EXPECT_EQ(device_bytes(index), 4 * ((std::int64_t{1} << 31) + 4097) * 2);
  DeviceInfo roomy;
  roomy.memory_bytes = std::int64_t{40} << 30;
  roomy.max_buffer_bytes = std::int64_t{8} << 30;
  const std::int64_t host = std::int64_t{128} << 30;
  EXPECT_TRUE(fits_in_memory(index, roomy, host).ok);
  EXPECT_TRUE(fits_in_memory(index, DeviceInfo{}, host).ok);  // a device that reports nothing
  DeviceInfo small = roomy;
  small.memory_bytes = std::int64_t{15} << 30;
  EXPECT_EQ(fits_in_memory(index, small, host).reason,
            "its buffers need 16 GiB of device memory; the device has 15 GiB");
  small = roomy;
  small.max_buffer_bytes = std::int64_t{4} << 30;
  EXPECT_THAT(fits_in_memory(index, small, host).reason,
              HasSubstr("a tensor of 4 GiB exceeds the device's largest buffer"));
  EXPECT_THAT(fits_in_memory(index, roomy, std::int64_t{24} << 30).reason,
              HasSubstr("its host copies need about 32 GiB"));
  DeviceInfo in_host_memory = roomy;  // a device whose buffers are the host's
  in_host_memory.host_memory = true;
  EXPECT_TRUE(fits_in_memory(index, roomy, std::int64_t{48} << 30).ok);
  EXPECT_THAT(fits_in_memory(index, in_host_memory, std::int64_t{48} << 30).reason,
              HasSubstr("its host copies need about 96 GiB"));  // bf16: its f32 working copies
  // The small tier holds its tensors whole on the host in any case: only the device counts.
  EXPECT_TRUE(fits_in_memory(case_named("exp(shape=7,dtype=f32)"), roomy, 1).ok);

  // The subjects ask before the device does.
  class SmallDevice : public FakeBackend {
   public:
    SmallDevice() { info_.memory_bytes = std::int64_t{1} << 30; }
    const DeviceInfo& info() const override { return info_; }

   private:
    DeviceInfo info_ = FakeBackend().info();
  };
  SmallDevice device;
  EXPECT_THAT(SampledSubject(index).supports(device).reason, HasSubstr("device memory"));
  EXPECT_TRUE(PrimitiveSubject(case_named("exp(shape=7,dtype=f32)")).supports(device).ok);
}

// What the host-memory budget reserves for complete checks: kept references per device for the
// tensors within --complete-elements, a block per core for a case with a streamed tensor.
TEST(LargeTier, TheHostEstimateCountsKeptReferencesAndStreamedBlocks) {
  const Case& exp = case_named("exp(large,shape=100000000,dtype=f32)");
  const Case& index = case_named("exp(large,shape=2147487745,dtype=bf16)");
  const Case& softmax = case_named("softmax(large,axis=-1,shape=8x32000,dtype=f32)");
  const SampleOptions limits;
  EXPECT_EQ(complete_check_host_bytes(exp, limits), 0);
  EXPECT_EQ(streamed_check_host_bytes(exp, limits, 16), 16 * kCompleteBlockElements * 600);
  SampleOptions none = limits;
  none.streamed_complete_elements = 0;
  EXPECT_EQ(streamed_check_host_bytes(exp, none, 16), 0);
  EXPECT_EQ(streamed_check_host_bytes(index, limits, 16), 0) << "past --streamed-complete-elements";
  EXPECT_EQ(streamed_check_host_bytes(softmax, limits, 16), 0);
  EXPECT_EQ(complete_check_host_bytes(softmax, limits), 2 * 88 * 8 * 32000);  // output and gradient
}

TEST(LargeTier, TheCasesWithTheLongestSerialLinesAreTakenFirst) {
  Selection sel;
  sel.scale = Scale::all;
  sel.ops = {"variance", "sum", "exp", "matmul"};
  const std::vector<const Subject*> subjects = select_subjects(sel);
  std::vector<std::size_t> order;
  for (const WorkItem& item : work_items(subjects, 3, 16)) order.push_back(item.subject);
  auto serial = [&](std::size_t i) {
    const Case* c = subjects[i]->large_case();
    return c ? serial_line_elements(*c) : std::int64_t{0};
  };
  ASSERT_EQ(order.size(), subjects.size());
  EXPECT_EQ(serial(order[0]), std::int64_t{1} << 27) << subjects[order[0]]->id();
  EXPECT_EQ(serial(order[1]), std::int64_t{1} << 27) << subjects[order[1]]->id();
  for (std::size_t k = 1; k < order.size(); ++k) {
    EXPECT_GE(serial(order[k - 1]), serial(order[k])) << subjects[order[k]]->id();
    if (serial(order[k]) == 0) {  // the rest, the small tier first, in the catalog's order
      EXPECT_TRUE(serial(order[k - 1]) > 0 || order[k - 1] < order[k]) << subjects[order[k]]->id();
    }
  }
  EXPECT_EQ(serial(order.back()), 0);
}

TEST(LargeTier, ScaleSelectsTheTiers) {
  auto count = [](Scale scale) {
    Selection sel;
    sel.scale = scale;
    sel.ops = {"matmul"};
    std::pair<int, int> small_large{0, 0};
    for (const Subject* s : select_subjects(sel)) ++(s->tier() == Tier::large ? small_large.second : small_large.first);
    return small_large;
  };
  const auto small = count(Scale::small), large = count(Scale::large), all = count(Scale::all);
  EXPECT_GT(small.first, 0);
  EXPECT_EQ(small.second, 0);
  EXPECT_EQ(large.first, 0);
  EXPECT_GT(large.second, 0);
  EXPECT_EQ(all, std::make_pair(small.first, large.second));
  EXPECT_EQ(parse_scale("all"), Scale::all);
  EXPECT_THROW(parse_scale("huge"), UsageError);
  for (const Case& c : large_cases()) {
    EXPECT_TRUE(c.id.starts_with(std::string(op_name(c.decl.op)) + "(large,")) << c.id;
    EXPECT_NO_THROW(SampledSubject{c}) << c.id;  // every large case's op has element slices
  }
  // A broadcast input's gradient sums over the other dimensions: not an elementwise slice.
  const OpCall& bias_add = case_named("add(shape=16x33|33,dtype=f32)").call;
  EXPECT_TRUE(ref::has_element_slices(bias_add));
  EXPECT_TRUE(ref::has_elementwise_slices(bias_add, ref::kOutputTensor));
  EXPECT_TRUE(ref::has_elementwise_slices(bias_add, 0));
  EXPECT_FALSE(ref::has_elementwise_slices(bias_add, 1));
  EXPECT_EQ(ref::element_slice(bias_add, 1, 5).cotangent.size(), 16U);
}

}  // namespace
}  // namespace gp
