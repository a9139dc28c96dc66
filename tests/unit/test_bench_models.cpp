// gradparity bench on models, training runs, tensor creation and the library-report preset: what
// each row times (its graph's calls, by the device's timers), what it counts, and that repeated
// training steps do not pile up buffers. Times are never asserted, only what a fake device's
// timer reports for the calls it was given.
#include <gtest/gtest.h>

#include "bench/bench_runner.hpp"
#include "bench/presets.hpp"
#include "harness/run/subjects.hpp"
#include "harness/training/training_loop.hpp"
#include "reports/bench_accuracy.hpp"
#include "reports/bench_json.hpp"
#include "reports/bench_markdown.hpp"
#include "support/fake_backend.hpp"
#include "support/lookup.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;

constexpr double kSecondsPerCall = 1e-3;

// A device whose timer gives every forward and backward call one millisecond, and which counts
// its live buffers at the end of each timed call.
class TimedBackend : public FakeBackend {
 public:
  class Buffer : public HostBuffer {
   public:
    Buffer(DType t, const Shape& s, int& live) : HostBuffer(t, s), live_(live) { ++live_; }
    ~Buffer() override { --live_; }

   private:
    int& live_;
  };
  class TimedQueue : public NiceMock<MockQueue> {
   public:
    explicit TimedQueue(TimedBackend& b) : backend_(b) {
      ON_CALL(*this, forward).WillByDefault(Invoke([this](const OpCall& call, auto in, DeviceBuffer& out) {
        ++calls_;
        exact_forward(call, in, out);
      }));
      ON_CALL(*this, backward)
          .WillByDefault(Invoke(
              [this](const OpCall& call, auto in, const DeviceBuffer& out, const DeviceBuffer& dout, auto grads) {
                ++calls_;
                exact_backward(call, in, out, dout, grads);
              }));
    }
    std::optional<double> take_device_seconds() noexcept override {
      backend_.live_at_take.push_back(backend_.live);
      const double s = static_cast<double>(calls_) * kSecondsPerCall;
      calls_ = 0;
      return s;
    }

   private:
    TimedBackend& backend_;
    int calls_ = 0;
  };

  std::unique_ptr<DeviceBuffer> allocate(DType t, const Shape& s) override {
    return std::make_unique<Buffer>(t, s, live);
  }
  std::unique_ptr<Queue> create_queue() override { return std::make_unique<TimedQueue>(*this); }

  int live = 0;
  std::vector<int> live_at_take;
};

SelectedDevice device_of(TimedBackend*& made) {
  SelectedDevice d{"fake", {}};
  d.entry.info.backend = "fake";
  d.entry.create = [&made] {
    auto b = std::make_unique<TimedBackend>();
    made = b.get();
    return b;
  };
  return d;
}

BenchOptions quick() {
  BenchOptions opts;
  opts.min_time = 1e-4;
  opts.repetitions = 3;
  opts.probes = false;
  return opts;
}

const CompositeSubject& composite_subject(const std::string& id) {
  const auto* s = dynamic_cast<const CompositeSubject*>(find_subject(id));
  if (!s) throw Error("missing composite " + id);
  return *s;
}

// A model's forward row is its graph's forward calls, its backward row the forward and the
// backward; each timed by the device's timer over exactly the calls of one run of the graph.
TEST(BenchModels, AModelsRowsTimeItsWholeGraphByTheDevicesTimer) {
  const CompositeSubject& mlp = composite_subject("mlp(layers=3,batch=7,act=tanh,dtype=f32)");
  BenchItems items;
  items.composites = {&mlp};
  TimedBackend* made = nullptr;
  const std::vector<BenchRow> rows = run_bench(items, {device_of(made)}, quick()).rows;
  ASSERT_EQ(rows.size(), 2u);
  const Composite& c = mlp.composite();
  EXPECT_EQ(rows[0].subject, BenchSubject::model);
  EXPECT_EQ(bench_call_name(rows[0]), "forward");
  EXPECT_EQ(bench_call_name(rows[1]), "forward+backward");
  for (const BenchRow& r : rows) {
    EXPECT_EQ(r.outcome, BenchOutcome::timed) << r.reason;
    EXPECT_TRUE(r.device_timer);
    EXPECT_EQ(r.repetition_seconds.size(), 3u);
  }
  // Six nodes: the forward alone is six calls; the backward adds a VJP per node.
  EXPECT_DOUBLE_EQ(rows[0].median_seconds(), static_cast<double>(c.calls.size()) * kSecondsPerCall);
  EXPECT_DOUBLE_EQ(rows[1].median_seconds(), 2 * static_cast<double>(c.calls.size()) * kSecondsPerCall);
  EXPECT_EQ(rows[0].bytes, graph_work(c, false).bytes);
  EXPECT_EQ(rows[1].flops, graph_work(c, true).flops);
  EXPECT_GT(rows[1].flops, 2 * rows[0].flops);  // the matmuls' VJPs count twice their forward
}

// A training run's row is one optimizer step, and steps repeated without end hold the same
// buffers after each: the spent ones are freed.
TEST(BenchModels, ATrainingRowIsOneStepAndStepsDoNotPileUpBuffers) {
  const CompositeSubject& train = composite_subject("train(model=mlp,opt=adamw,steps=20,batch=16,dtype=f32)");
  BenchItems items;
  items.composites = {&train};
  TimedBackend* made = nullptr;
  const std::vector<BenchRow> rows = run_bench(items, {device_of(made)}, quick()).rows;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].subject, BenchSubject::training);
  EXPECT_EQ(bench_call_name(rows[0]), "step");
  EXPECT_EQ(rows[0].bytes, training_step_work(train.composite()).bytes);
  const Composite& c = train.composite();
  const auto optimizer_calls = [&] {
    std::size_t n = 0;
    for (const auto& l : c.decl.leaves) n += l.parameter && l.gradient ? 1 : 0;
    return n * 7;  // the step, then a slice and a reshape for each of its three rows
  }();
  EXPECT_DOUBLE_EQ(rows[0].median_seconds(),
                   static_cast<double>(2 * c.calls.size() + optimizer_calls) * kSecondsPerCall);
  // Every timed step ends with the same number of live buffers: a step's own, the leaves,
  // the parameters and the states.
  const std::vector<int>& live = made->live_at_take;
  ASSERT_GT(live.size(), 4u);
  EXPECT_EQ(*std::min_element(live.begin() + 2, live.end()), *std::max_element(live.begin() + 2, live.end()));
}

// The preset's every row is in the catalog, and its table shows each on every device.
TEST(BenchModels, TheLibraryReportPresetsRowsAreInTheCatalogAndItsTable) {
  const BenchPreset* p = find_bench_preset("library-report");
  ASSERT_NE(p, nullptr);
  const BenchItems items = preset_items(*p);  // throws for an id the catalog lacks
  EXPECT_EQ(items.size(), p->rows.size());
  EXPECT_EQ(items.creations.size(), 2u);
  EXPECT_EQ(find_bench_preset("library"), nullptr);

  // Two creations only, on the fake device: one row each, host-timed, one table line each.
  BenchItems two;
  two.creations = p->creations;
  TimedBackend* made = nullptr;
  BenchReport report;
  report.rows = run_bench(two, {device_of(made)}, quick()).rows;
  ASSERT_EQ(report.rows.size(), 2u);
  for (const BenchRow& r : report.rows) {
    EXPECT_EQ(r.outcome, BenchOutcome::timed) << r.reason;
    EXPECT_FALSE(r.device_timer);
    EXPECT_EQ(bench_call_name(r), "create");
  }
  EXPECT_EQ(report.rows[1].bytes, 4'000'000);
  EXPECT_EQ(made->live, 0);
  report.preset = "library-report";
  report.preset_rows = {p->rows[0], p->rows[1], p->rows[2]};
  const std::string table = preset_table(report);
  EXPECT_NE(table.find("| tensor creation, 1,000 elements | `creation(elements=1000,dtype=f32)` | "), std::string::npos)
      << table;
  EXPECT_NE(table.find("| add, 100x100 | `add(shape=100x100\\|100x100,dtype=f32)` | — |"), std::string::npos) << table;
  const BenchReport back = bench_from_json_text(bench_to_json_text(report), "bench.json");
  ASSERT_EQ(back.preset_rows.size(), 3u);
  EXPECT_EQ(back.preset_rows[2].id, p->rows[2].id);
  EXPECT_EQ(back.rows[0].subject, BenchSubject::creation);
}

// A model's forward row shows its forward checks; its gradient row, which runs the forward too,
// the worst of its forward and backward checks; a creation none.
TEST(BenchModels, AModelsRowsCarryTheChecksOfWhatTheyRun) {
  const std::string id = "mlp(layers=3,batch=7,act=tanh,dtype=f32)";
  auto check = [&](Direction d, Verdict v, double margin) {
    CheckResult c;
    c.case_id = id;
    c.backend = "fake";
    c.subject = SubjectKind::model;
    c.direction = d;
    c.verdict = v;
    c.metrics.margin = margin;
    c.metrics.sensitivity_ulp = 2;
    return c;
  };
  RunReport parity;
  parity.checks = {check(Direction::forward, Verdict::pass, 0.2), check(Direction::backward, Verdict::fail, 1.5),
                   check(Direction::node, Verdict::fail, 9)};
  BenchReport bench;
  bench.rows = bench_rows_of(composite_subject(id), "fake");
  for (BenchRow& r : bench_rows_of(CreationSize{DType::f32, 1000}, "fake")) bench.rows.push_back(r);
  EXPECT_EQ(attach_accuracy(bench, parity), 2u);
  ASSERT_TRUE(bench.rows[0].accuracy && bench.rows[1].accuracy);
  EXPECT_EQ(bench.rows[0].accuracy->verdict, Verdict::pass);
  EXPECT_EQ(bench.rows[0].accuracy->margin, 0.2);
  EXPECT_EQ(bench.rows[1].accuracy->verdict, Verdict::fail);
  EXPECT_EQ(bench.rows[1].accuracy->margin, 1.5);
  EXPECT_EQ(bench.rows[1].accuracy->checks, 2);
  EXPECT_FALSE(bench.rows[2].accuracy);
}

}  // namespace
}  // namespace gp
