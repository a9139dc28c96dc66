// gradparity bench: the rank test, the comparison of two benches, bench.json, and the runner on
// a fake device (times are never asserted: only what was timed, how often, and what it means).
#include <gtest/gtest.h>

#include "bench/arithmetic_probe.hpp"
#include "bench/bench_runner.hpp"
#include "core/op_work.hpp"
#include "harness/run/subjects.hpp"
#include "reports/bench_accuracy.hpp"
#include "reports/bench_compare.hpp"
#include "reports/bench_html.hpp"
#include "reports/bench_json.hpp"
#include "reports/bench_markdown.hpp"
#include "reports/json_report.hpp"
#include "reports/rank_test.hpp"
#include "support/fake_backend.hpp"
#include "support/lookup.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;
using testing::case_named;

BenchItems cases_of(std::vector<const Case*> cases) {
  BenchItems items;
  items.cases = std::move(cases);
  return items;
}

TEST(RankTest, ExactTailMatchesTheCountedOrderings) {
  // n = 3 earlier, m = 4 later: of the C(7, 3) = 35 orderings, 4 have U >= 10 (U = 10: 2, 11: 1,
  // 12: 1), counted by enumerating the orderings.
  const RankTest t = later_is_larger({1, 2, 5}, {3, 4, 6, 7});
  EXPECT_TRUE(t.exact);
  EXPECT_EQ(t.u, 10);
  EXPECT_NEAR(t.p_value, 4.0 / 35.0, 1e-15);
  // Every later value above every earlier one: the one ordering of C(20, 10).
  std::vector<double> a, b;
  for (int i = 0; i < 10; ++i) {
    a.push_back(i);
    b.push_back(100 + i);
  }
  EXPECT_NEAR(later_is_larger(a, b).p_value, 1.0 / 184756, 1e-18);
  EXPECT_NEAR(smallest_p_value(10, 10), 1.0 / 184756, 1e-18);
  EXPECT_NEAR(later_is_larger(b, a).p_value, 1.0, 1e-15);  // the other way round: nothing larger
}

TEST(RankTest, TiesUseTheNormalApproximationWithTheirCorrection) {
  // U = 3 of 9 pairs with one tie; the normal tail with the tie-corrected variance
  // 3*3/12 * (7 - (8 - 2) / 30) = 5.1 and the continuity correction: P(Z >= (3 - 4.5 - 0.5) / sqrt(5.1)).
  const RankTest t = later_is_larger({1, 2, 3}, {1.5, 0.5, 3});
  EXPECT_FALSE(t.exact);
  EXPECT_EQ(t.u, 3.5);
  EXPECT_NEAR(t.p_value, 0.5 * std::erfc((3.5 - 4.5 - 0.5) / std::sqrt(5.1) / std::sqrt(2.0)), 1e-12);
}

BenchRow timed_row(const std::string& id, std::vector<double> seconds, bool device_timer = true) {
  BenchRow r;
  r.case_id = id;
  r.op = "exp";
  r.dtype = "f32";
  r.device = "opencl:0";
  r.repetition_seconds = std::move(seconds);
  r.calls_per_repetition = 100;
  r.device_timer = device_timer;
  r.bytes = 1 << 20;
  return r;
}

// Ten repetitions around `median` with a deterministic scatter of +-4 %.
std::vector<double> around(double median, int phase = 0) {
  std::vector<double> v;
  for (int i = 0; i < 10; ++i) v.push_back(median * (1 + 0.008 * ((i * 7 + phase) % 11 - 5)));
  return v;
}

TEST(BenchCompare, FlagsARowMadeSlowerBeyondItsNoiseAndNotTheSameTimesAgain) {
  BenchReport before, after;
  before.rows = {timed_row("a", around(1e-5)), timed_row("b", around(2e-5)), timed_row("c", around(3e-5)),
                 timed_row("d", around(4e-5), false)};
  after.rows = {timed_row("a", around(1e-5, 3)), timed_row("b", around(2.6e-5, 1)),  // 1.3x slower
                timed_row("c", around(3.24e-5, 2)),  // 8 %, significant: below what counts
                timed_row("d", around(4e-5)), timed_row("e", around(1e-5))};
  const BenchComparison cmp = compare_bench(before, after, {});
  ASSERT_EQ(cmp.slower.size(), 1u);
  EXPECT_EQ(cmp.slower[0].after->case_id, "b");
  EXPECT_NEAR(cmp.slower[0].ratio, 1.3, 0.01);
  EXPECT_EQ(cmp.compared, 3u);
  EXPECT_EQ(cmp.timer_changed, 1u);
  EXPECT_EQ(cmp.only_after, 1u);
  // A row stopped before its first repetition (an interrupted bench) is counted, not compared.
  BenchReport interrupted = after;
  interrupted.rows[1].repetition_seconds.clear();
  const BenchComparison stopped = compare_bench(before, interrupted, {});
  EXPECT_TRUE(stopped.slower.empty());
  EXPECT_EQ(stopped.not_timed, 1u);
  EXPECT_TRUE(compare_bench(before, before, {}).slower.empty());
  // A noisy row whose median moved by 30 % by chance is not a slowdown: the test sees the noise.
  BenchReport noisy_before, noisy_after;
  noisy_before.rows = {timed_row("n", {1, 1.6, 0.8, 1.9, 1.2, 0.7, 1.5, 1.1, 2.0, 0.9})};
  noisy_after.rows = {timed_row("n", {1.3, 2.1, 1.0, 2.4, 1.6, 0.9, 1.9, 1.4, 2.6, 1.2})};
  EXPECT_TRUE(compare_bench(noisy_before, noisy_after, {}).slower.empty());
  const std::string text = bench_comparison_text(cmp, {});
  EXPECT_NE(text.find("slower (1):\n  opencl:0   b forward: 20.1 µs -> 26 µs (1.29x; 1.29x of the device's shift; "
                      "p = 5.4e-06)"),
            std::string::npos)
      << text;
}

// Twelve rows of one device; `scale` multiplies every row's times, `row_scale` row 0's alone.
BenchReport device_of_twelve(double scale, double row_scale) {
  BenchReport r;
  for (int i = 0; i < 12; ++i) {
    std::vector<double> t = around((1 + i) * 1e-5 * scale * (i == 0 ? row_scale : 1), i % 3);
    r.rows.push_back(timed_row("r" + std::to_string(i), t));
  }
  return r;
}

TEST(BenchCompare, AWholeDeviceThatMovedIsTheMachineAndARowMustMoveAgainstIt) {
  const BenchReport base = device_of_twelve(1, 1);
  // The machine twice as slow: every row 2x, none slower than its device.
  BenchComparison cmp = compare_bench(base, device_of_twelve(2, 1), {});
  EXPECT_TRUE(cmp.slower.empty());
  ASSERT_EQ(cmp.shifts.size(), 1u);
  EXPECT_TRUE(cmp.shifts[0].applied);
  EXPECT_NEAR(cmp.shifts[0].ratio, 2, 1e-9);
  EXPECT_NE(bench_comparison_text(cmp, {}).find("the whole device moved"), std::string::npos);
  // As measured alone, every row is slower.
  BenchCompareOptions absolute;
  absolute.absolute = true;
  EXPECT_EQ(compare_bench(base, device_of_twelve(2, 1), absolute).slower.size(), 12u);
  // The machine a third faster and one row as before: it did not become slower.
  EXPECT_TRUE(compare_bench(base, device_of_twelve(0.67, 1 / 0.67), {}).slower.empty());
  // One row 1.3x on an unchanged machine, and 1.3x past a machine twice as slow: both flagged.
  for (double machine : {1.0, 2.0}) {
    cmp = compare_bench(base, device_of_twelve(machine, 1.3), {});
    ASSERT_EQ(cmp.slower.size(), 1u) << machine;
    EXPECT_EQ(cmp.slower[0].after->case_id, "r0");
    EXPECT_NEAR(cmp.slower[0].relative, 1.3, 0.01);
  }
}

TEST(BenchJson, RoundTripsEveryFieldAndIsToldFromParityJson) {
  BenchReport r;
  r.meta.version = "0.1.0";
  r.meta.seed = 7;
  r.meta.devices.push_back({"opencl:0", "opencl", "PoCL", "3.1", "OpenCL 3.0", true, "", {}});
  r.min_time = 0.02;
  r.repetitions = 3;
  r.rows.push_back(timed_row("exp(shape=7,dtype=f32)", {1e-6, 1.5e-6, 1.2e-6}));
  BenchRow skipped = timed_row("exp(shape=7,dtype=f16)", {});
  skipped.outcome = BenchOutcome::skipped;
  skipped.reason = "dtype f16 not supported";
  skipped.direction = Direction::backward;
  r.rows.push_back(skipped);
  r.rows[0].accuracy = RowAccuracy{Verdict::pass, 0.33, 2.4, 1};
  r.parity_source = "out/parity.json";
  BenchRow arithmetic = timed_row("arithmetic(elements=4096,steps=4096,dtype=f32)", {1e-3, 1e-3, 1.1e-3});
  arithmetic.flops = 2 * 4096 * 4096;
  r.limits.push_back(
      {"opencl:0", "f32", timed_row("reshape(copy,shape=1024,dtype=f32)", {1e-7, 2e-7, 1e-7}), arithmetic});
  BenchRow mm = timed_row("matmul(shape=64x64|64x64,dtype=f32)", {1e-4, 1e-4, 1e-4});
  mm.op = "matmul";
  mm.flops = 2 * 64 * 64 * 64;
  mm.bytes = 3 * 64 * 64 * 4;
  r.rows.push_back(mm);
  const std::string text = bench_to_json_text(r);
  EXPECT_TRUE(is_bench_json_text(text));
  const BenchReport back = bench_from_json_text(text);
  EXPECT_EQ(back.meta.seed, 7u);
  EXPECT_EQ(back.min_time, 0.02);
  EXPECT_EQ(back.repetitions, 3);
  ASSERT_EQ(back.rows.size(), 3u);
  EXPECT_EQ(back.rows[0].repetition_seconds, r.rows[0].repetition_seconds);
  EXPECT_EQ(back.rows[0].median_seconds(), 1.2e-6);
  EXPECT_TRUE(back.rows[0].device_timer);
  EXPECT_EQ(back.rows[0].bytes, 1 << 20);
  EXPECT_EQ(back.rows[1].outcome, BenchOutcome::skipped);
  EXPECT_EQ(back.rows[1].direction, Direction::backward);
  EXPECT_EQ(back.rows[1].reason, "dtype f16 not supported");
  ASSERT_TRUE(back.rows[0].accuracy);
  EXPECT_EQ(back.rows[0].accuracy->margin, 0.33);
  EXPECT_EQ(back.rows[0].accuracy->sensitivity_ulp, 2.4);
  EXPECT_FALSE(back.rows[1].accuracy);
  EXPECT_EQ(back.parity_source, "out/parity.json");
  ASSERT_EQ(back.limits.size(), 1u);
  EXPECT_EQ(back.limits[0].copy.repetition_seconds, r.limits[0].copy.repetition_seconds);
  EXPECT_EQ(back.copy_fraction(back.rows[0]), r.copy_fraction(r.rows[0]));
  EXPECT_GT(back.copy_fraction(back.rows[0]), 0);
  EXPECT_EQ(back.limits[0].arithmetic.flops, 2 * 4096 * 4096);
  // The matmul row: 5.24 GFLOP/s at 10.7 operations per byte, under a roofline of min(33.6 GFLOP/s,
  // 1.05e4 GB/s x 10.7): 0.156 of the arithmetic rate.
  EXPECT_NEAR(back.roofline_fraction(back.rows[2]), (2.0 * 64 * 64 * 64 / 1e-4) / (2.0 * 4096 * 4096 / 1e-3), 1e-9);
  EXPECT_EQ(back.copy_fraction(back.rows[2]), 0);
  // With a copy of 1.05 GB/s the bandwidth bounds it: 1.05 x 10.7 = 11.2 GFLOP/s.
  BenchReport slow_copy = back;
  slow_copy.limits[0].copy.repetition_seconds = {1e-3, 1e-3, 1e-3};
  const double intensity = 2.0 * 64 * 64 * 64 / (3 * 64 * 64 * 4);
  EXPECT_NEAR(slow_copy.roofline_fraction(slow_copy.rows[2]), (2.0 * 64 * 64 * 64 / 1e-4) / (1.048576e9 * intensity),
              1e-9);
  EXPECT_EQ(back.roofline_fraction(back.rows[0]), 0);
  EXPECT_EQ(bench_to_json_text(back), text);
  EXPECT_FALSE(is_bench_json_text(report_to_json_text(RunReport{})));
  EXPECT_THROW(bench_from_json_text(R"({"bench_schema_version": "2.0"})"), Error);
  const std::string md = bench_to_markdown(r);
  EXPECT_NE(md.find("| `exp(shape=7,dtype=f32)` | forward | 1.2 µs |"), std::string::npos) << md;
  EXPECT_NE(md.find("| ✅ | 0.33 | 2.4 |"), std::string::npos) << md;
  // bench.html: the bandwidth picture with the copy line and the timed row, the accuracy picture.
  const std::string html = bench_to_html(r);
  EXPECT_NE(html.find("opencl:0: bandwidth-bound calls"), std::string::npos);
  EXPECT_NE(html.find("<title>copy f32 1.05e+04 GB/s</title>"), std::string::npos) << html;
  EXPECT_NE(html.find("exp: speed and accuracy"), std::string::npos);
  std::size_t dots = 0;
  for (std::size_t at = html.find("<circle"); at != std::string::npos; at = html.find("<circle", at + 1)) ++dots;
  EXPECT_EQ(dots, 3u);  // exp in the bandwidth and the accuracy picture, matmul under the roofline
  EXPECT_NE(html.find("<title>arithmetic f32 33.6 GFLOP/s</title>"), std::string::npos) << html;
}

CheckResult check(const std::string& id, Direction d, int input, Verdict v, double margin, double sensitivity) {
  CheckResult c;
  c.case_id = id;
  c.backend = "opencl:0";
  c.direction = d;
  c.input = input;
  c.verdict = v;
  c.metrics.margin = margin;
  c.metrics.sensitivity_ulp = sensitivity;
  return c;
}

TEST(BenchAccuracy, ARowGetsItsCallsChecksTheWorstOfEveryGradient) {
  RunReport parity;
  parity.checks = {check("a", Direction::forward, -1, Verdict::pass, 0.3, 2.5),
                   check("a", Direction::backward, 0, Verdict::pass, 0.2, 5),
                   check("a", Direction::backward, 1, Verdict::fail, 1.7, 0.4),
                   check("a", Direction::numerical_backend, 0, Verdict::pass, 0.9, 1),
                   check("b", Direction::backward, 0, Verdict::skip, 0, std::nan(""))};
  BenchReport bench;
  bench.rows = {timed_row("a", {1}), timed_row("a", {1}), timed_row("b", {1}), timed_row("c", {1})};
  bench.rows[1].direction = bench.rows[2].direction = Direction::backward;
  EXPECT_EQ(attach_accuracy(bench, parity), 3u);
  ASSERT_TRUE(bench.rows[0].accuracy && bench.rows[1].accuracy && bench.rows[2].accuracy);
  EXPECT_EQ(bench.rows[0].accuracy->margin, 0.3);
  EXPECT_EQ(bench.rows[0].accuracy->sensitivity_ulp, 2.5);
  EXPECT_EQ(bench.rows[1].accuracy->verdict, Verdict::fail);
  EXPECT_EQ(bench.rows[1].accuracy->margin, 1.7);
  EXPECT_EQ(bench.rows[1].accuracy->sensitivity_ulp, 0.4);
  EXPECT_EQ(bench.rows[1].accuracy->checks, 2);  // not the finite differences
  EXPECT_EQ(bench.rows[2].accuracy->verdict, Verdict::skip);
  EXPECT_FALSE(bench.rows[3].accuracy);
}

SelectedDevice fake_device(std::function<std::unique_ptr<Backend>()> create) {
  SelectedDevice d{"fake", {}};
  d.entry.info.backend = "fake";
  d.entry.create = std::move(create);
  return d;
}

TEST(BenchRunner, TimesEachCallOverTheRepetitionsWithTheCatalogsWork) {
  const Case& mm = case_named("matmul(shape=16x33|33x9,dtype=f32)");
  const Case& step =
      case_named("adamw_step(lr=0.001,beta1=0.9,beta2=0.999,eps=1e-08,wd=0.01,step=10,shape=127,dtype=f32)");
  // The ops of the forward calls in order: the repetitions go round the cases.
  std::vector<OpKind> order;
  class RecordingBackend : public FakeBackend {
   public:
    explicit RecordingBackend(std::vector<OpKind>& order) : order_(order) {}
    std::unique_ptr<Queue> create_queue() override {
      auto q = std::make_unique<NiceMock<MockQueue>>();
      ON_CALL(*q, forward).WillByDefault(Invoke([this](const OpCall& call, auto in, DeviceBuffer& out) {
        if (order_.empty() || order_.back() != call.kind) order_.push_back(call.kind);
        exact_forward(call, in, out);
      }));
      return q;
    }

   private:
    std::vector<OpKind>& order_;
  };
  const SelectedDevice d = fake_device([&order] { return std::make_unique<RecordingBackend>(order); });
  BenchOptions opts;
  opts.min_time = 1e-4;
  opts.repetitions = 3;
  opts.probes = false;
  std::vector<int> rounds;
  opts.on_round = [&](int round, int, const std::string&) { rounds.push_back(round); };
  const std::vector<BenchRow> rows = run_bench(cases_of({&mm, &step}), {d}, opts).rows;
  ASSERT_EQ(rows.size(), 3u);  // the optimizer step is forward only
  EXPECT_EQ(rounds, (std::vector<int>{0, 1, 2, 3}));
  // Calibration and three rounds, each of the matmul's calls and then the step's.
  EXPECT_EQ(order.size(), 8u);
  for (const BenchRow& r : rows) {
    EXPECT_EQ(r.outcome, BenchOutcome::timed) << r.reason;
    EXPECT_EQ(r.repetition_seconds.size(), 3u);
    EXPECT_GE(r.calls_per_repetition, 1);
    EXPECT_FALSE(r.device_timer);
    EXPECT_GT(r.median_seconds(), 0);
  }
  EXPECT_EQ(rows[0].direction, Direction::forward);
  EXPECT_EQ(rows[1].direction, Direction::backward);
  EXPECT_EQ(rows[0].flops, forward_work(mm.call).flops);
  EXPECT_EQ(rows[1].bytes, backward_work(mm.call).bytes);
  EXPECT_EQ(rows[2].case_id, step.id);
}

// A device that fails one case's backward: that case's rows are errors naming the call, the
// next case is timed on a new queue.
class FailingBackend : public FakeBackend {
 public:
  std::unique_ptr<Queue> create_queue() override {
    ++queues;
    auto q = std::make_unique<NiceMock<MockQueue>>();
    ON_CALL(*q, backward)
        .WillByDefault(
            Invoke([](const OpCall& call, auto in, const DeviceBuffer& out, const DeviceBuffer& dout, auto grads) {
              if (call.kind == OpKind::exp) throw Error("clEnqueueNDRangeKernel: CL_OUT_OF_RESOURCES");
              exact_backward(call, in, out, dout, grads);
            }));
    return q;
  }
  int queues = 0;
};

TEST(BenchRunner, ACallThatThrowsIsAnErrorRowAndTheRestIsTimed) {
  const Case& e = case_named("exp(shape=7,dtype=f32)");
  const Case& m = case_named("mul(shape=16x33|16x33,dtype=f32)");
  FailingBackend* made = nullptr;
  const SelectedDevice d = fake_device([&made] {
    auto b = std::make_unique<FailingBackend>();
    made = b.get();
    return b;
  });
  BenchOptions opts;
  opts.min_time = 1e-4;
  opts.repetitions = 2;
  opts.probes = false;
  const std::vector<BenchRow> rows = run_bench(cases_of({&e, &m}), {d}, opts).rows;
  ASSERT_EQ(rows.size(), 4u);
  for (int i : {0, 1}) {
    EXPECT_EQ(rows[i].outcome, BenchOutcome::error);
    EXPECT_NE(rows[i].reason.find("backward calibration: clEnqueueNDRangeKernel: CL_OUT_OF_RESOURCES"),
              std::string::npos)
        << rows[i].reason;
    EXPECT_TRUE(rows[i].repetition_seconds.empty());
  }
  for (int i : {2, 3}) {
    EXPECT_EQ(rows[i].outcome, BenchOutcome::timed) << rows[i].reason;
    EXPECT_EQ(rows[i].repetition_seconds.size(), 2u);
  }
  ASSERT_NE(made, nullptr);
  EXPECT_EQ(made->queues, 2);  // a new queue after the failure
}

// A device of 8 MiB: its copy probe of an eighth of that, per dtype of the rows it runs, and each
// bandwidth-bound row read as a fraction of the probe of its dtype.
TEST(BenchRunner, EachDtypeOfADeviceGetsACopyProbeThatTheRowsAreReadAgainst) {
  class SmallDevice : public FakeBackend {
   public:
    SmallDevice() {
      info_ = FakeBackend::info();
      info_.memory_bytes = 8 << 20;
    }
    const DeviceInfo& info() const override { return info_; }

   private:
    DeviceInfo info_;
  };
  const Case& e32 = case_named("exp(shape=16x33,dtype=f32)");
  const Case& e64 = case_named("exp(shape=16x33,dtype=f64)");
  const Case& mm = case_named("matmul(shape=16x7|7x9,dtype=f32)");
  const SelectedDevice d = fake_device([] { return std::make_unique<SmallDevice>(); });
  BenchOptions opts;
  opts.min_time = 1e-4;
  opts.repetitions = 2;
  BenchReport report;
  BenchMeasurement m = run_bench(cases_of({&e32, &mm, &e64}), {d}, opts);
  ASSERT_EQ(m.limits.size(), 2u);
  EXPECT_EQ(m.limits[0].dtype, "f32");
  EXPECT_EQ(m.limits[0].copy.case_id, "reshape(copy,shape=262144,dtype=f32)");  // 1 MiB of 8
  EXPECT_EQ(m.limits[1].copy.case_id, "reshape(copy,shape=131072,dtype=f64)");
  EXPECT_EQ(m.limits[0].copy.bytes, 2 * (1 << 20));  // read once, written once
  for (const DeviceLimit& l : m.limits) {
    EXPECT_GT(l.copy_gb_per_s(), 0) << l.copy.reason;
    EXPECT_EQ(l.arithmetic.outcome, BenchOutcome::skipped);  // the mock queue has no arithmetic probe
    EXPECT_NE(l.arithmetic.reason.find("no arithmetic probe"), std::string::npos) << l.arithmetic.reason;
  }
  report.rows = std::move(m.rows);
  report.limits = std::move(m.limits);
  ASSERT_EQ(report.rows.size(), 6u);
  EXPECT_NEAR(report.copy_fraction(report.rows[0]),
              report.rows[0].speed().gb_per_s() / report.limits[0].copy_gb_per_s(), 1e-12);
  EXPECT_NEAR(report.copy_fraction(report.rows[4]),
              report.rows[4].speed().gb_per_s() / report.limits[1].copy_gb_per_s(), 1e-12);
  EXPECT_EQ(report.copy_fraction(report.rows[2]), 0) << "a contraction is not read against bandwidth";
}

TEST(BenchSelection, TakesTheLargeTiersCasesToo) {
  Selection sel;
  sel.ops = {"sum"};
  sel.filter = "shape=1000000,";
  sel.scale = Scale::large;
  const std::vector<const Case*> large = bench_items_of(select_subjects(sel)).cases;
  ASSERT_EQ(large.size(), 1u);
  EXPECT_EQ(large[0]->id, "sum(large,axis=-1,keepdim=0,shape=1000000,dtype=f32)");
  sel.scale = Scale::small;
  EXPECT_TRUE(bench_items_of(select_subjects(sel)).cases.empty());
  sel.filter = "^sum\\(axis=0,keepdim=0,shape=7,dtype=f32\\)$";
  EXPECT_EQ(bench_items_of(select_subjects(sel)).cases.size(), 1u);
}

// The cpu backend's multiply-add chains: every chain's end what its links of x -> 0.999999 x +
// 1e-6 give (a probe whose loop ran short, or that the compiler dropped, would measure nothing).
TEST(BenchRunner, TheArithmeticProbeRunsEveryLinkOfItsChains) {
  std::vector<SelectedDevice> devices = select_devices({"cpu"}, {});
  ASSERT_EQ(devices.size(), 1u);
  std::unique_ptr<Backend> backend = devices[0].entry.create();
  std::unique_ptr<Queue> queue = backend->create_queue();
  for (DType dtype : {DType::f32, DType::f64, DType::bf16}) {
    ArithmeticProbe probe(*backend, *queue, dtype);
    EXPECT_EQ(probe.flops(), 2 * probe.elements() * ArithmeticProbe::kSteps);
    const CallTime t = probe.run(*queue, Direction::forward);
    EXPECT_FALSE(t.device_timer);
    EXPECT_GT(t.seconds, 0);
    // Its output: a fresh call into a buffer of the probe's size.
    auto out = backend->allocate(dtype, Shape{5});
    ASSERT_TRUE(queue->arithmetic_probe(*out, ArithmeticProbe::kSteps));
    const HostTensor got = queue->download(*out);
    const double a = dtype == DType::f64 ? 0.999999 : double(0.999999f), b = dtype == DType::f64 ? 1e-6 : double(1e-6f);
    // The cpu backend's 32 chains start at 1 + k / 31 + (i mod 7).
    const double links = ArithmeticProbe::kSteps / 32, grow = std::pow(a, links), add = b * (1 - grow) / (1 - a);
    for (std::int64_t i = 0; i < 5; ++i) {
      double want = 0;
      for (int lane = 0; lane < 32; ++lane) want += (1 + lane / 31.0 + double(i % 7)) * grow + add;
      EXPECT_NEAR(got.get(i), want, want * (dtype == DType::bf16 ? 1e-2 : 1e-4)) << dtype_name(dtype) << " " << i;
    }
  }
}

// A plugin's supports() may fail: that case's rows are errors naming it, the bench goes on.
TEST(BenchRunner, ASupportsThatThrowsIsThatCasesErrorRows) {
  class Refusing : public FakeBackend {
   public:
    Support supports(const OpCall& call) const override {
      if (call.kind == OpKind::exp) throw Error("gp_supports: GP_ERROR");
      return Support::yes();
    }
  };
  const Case& e = case_named("exp(shape=7,dtype=f32)");
  const Case& m = case_named("mul(shape=16x33|16x33,dtype=f32)");
  BenchOptions opts;
  opts.min_time = 1e-4;
  opts.repetitions = 1;
  opts.probes = false;
  const std::vector<BenchRow> rows =
      run_bench(cases_of({&e, &m}), {fake_device([] { return std::make_unique<Refusing>(); })}, opts).rows;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].outcome, BenchOutcome::error);
  EXPECT_EQ(rows[0].reason, "supports: gp_supports: GP_ERROR");
  EXPECT_EQ(rows[2].outcome, BenchOutcome::timed);
}

TEST(BenchRunner, CallsPerRepetitionFillTheMinimumTime) {
  EXPECT_EQ(calls_for(1e-6, 1e-2), 10000);
  EXPECT_EQ(calls_for(0.5, 1e-2), 1);
  EXPECT_EQ(calls_for(0, 1e-2, 50), 50);
}

}  // namespace
}  // namespace gp
