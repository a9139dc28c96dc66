// The run's profile: phases timed exclusively of the phases nested in them, nothing timed
// without a binding, and meta.profile through parity.json, parity.md and a merge of shards; and
// the order the run's workers take the subjects in.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "core/memory_size.hpp"
#include "harness/check/phase_clock.hpp"
#include "harness/run/runner.hpp"
#include "reports/json_report.hpp"
#include "reports/markdown_report.hpp"
#include "reports/merge.hpp"
#include "support/synthetic_report.hpp"

namespace gp {
namespace {

using namespace std::chrono_literals;

TEST(PhaseClock, NestedPhaseTimeIsNotCountedInTheOuterPhase) {
  PhaseRecorder recorder;
  {
    const PhaseBinding bound(&recorder, SubjectKind::model);
    const PhaseTimer outer(Phase::comparisons);
    const PhaseTimer inner(Phase::device_calls);
    std::this_thread::sleep_for(60ms);
  }
  const PhaseProfile p = recorder.profile();
  EXPECT_GE(p.at(Phase::device_calls, SubjectKind::model), 0.055);
  EXPECT_LT(p.at(Phase::comparisons, SubjectKind::model), 0.03);  // microseconds, not the inner 60 ms
  EXPECT_EQ(p.at(Phase::device_calls, SubjectKind::primitive), 0.0);
}

TEST(PhaseClock, OuterPhaseResumesAfterTheNestedOneAndTheBindingCountsTheRest) {
  PhaseRecorder recorder;
  {
    const PhaseBinding bound(&recorder, SubjectKind::primitive);
    {
      const PhaseTimer outer(Phase::bounds);
      { const PhaseTimer inner(Phase::inputs); }
      std::this_thread::sleep_for(40ms);
    }
    std::this_thread::sleep_for(40ms);
  }
  const PhaseProfile p = recorder.profile();
  EXPECT_GE(p.at(Phase::bounds, SubjectKind::primitive), 0.035);
  EXPECT_LT(p.at(Phase::inputs, SubjectKind::primitive), 0.02);
  EXPECT_GE(p.at(Phase::other, SubjectKind::primitive), 0.035);
}

TEST(PhaseClock, UnboundTimersRecordNothing) {
  PhaseRecorder recorder;
  { const PhaseTimer t(Phase::bounds); }
  {
    const PhaseBinding unbound(nullptr, SubjectKind::primitive);
    const PhaseTimer t(Phase::bounds);
  }
  EXPECT_EQ(recorder.profile().total(), 0.0);
}

// A queue whose device says it spent 0.25 s on each block of calls.
class TimedQueue final : public Queue {
 public:
  void upload(DeviceBuffer&, const HostTensor&) override {}
  HostTensor download(const DeviceBuffer& b) override { return HostTensor(b.dtype(), b.shape()); }
  void forward(const OpCall&, std::span<const DeviceBuffer* const>, DeviceBuffer&) override {}
  void backward(const OpCall&, std::span<const DeviceBuffer* const>, const DeviceBuffer&, const DeviceBuffer&,
                std::span<DeviceBuffer* const>) override {}
  void finish() override {}
  std::optional<double> take_device_seconds() noexcept override {
    ++taken;
    return timed ? std::optional<double>(0.25) : std::nullopt;
  }
  bool timed = true;
  int taken = 0;
};

TEST(PhaseClock, DeviceCallsCountTheDevicesOwnTimeForTheBoundKind) {
  PhaseRecorder recorder;
  TimedQueue queue;
  {
    const PhaseBinding bound(&recorder, SubjectKind::training);
    { const DeviceCallsTimer calls(queue); }
    { const DeviceCallsTimer calls(queue); }
    queue.timed = false;  // a device without timers adds nothing
    { const DeviceCallsTimer calls(queue); }
  }
  { const DeviceCallsTimer unbound(queue); }  // taken (a fresh count next), recorded nowhere
  const PhaseProfile p = recorder.profile();
  EXPECT_EQ(p.device_seconds[static_cast<std::size_t>(SubjectKind::training)], 0.5);
  EXPECT_EQ(p.device_total(), 0.5);
  EXPECT_EQ(queue.taken, 4);
  EXPECT_GT(p.at(Phase::device_calls, SubjectKind::training), 0.0);
}

// A subject that notes when a worker prepares it and has one check of the reference (and what
// `make` adds to it).
using MakePrepared = std::function<std::unique_ptr<PreparedSubject>(CheckResult reference)>;
class NotedSubject final : public Subject {
 public:
  NotedSubject(SubjectKind kind, std::string id, std::vector<std::string>& taken, MakePrepared make = {})
      : kind_(kind), id_(std::move(id)), taken_(taken), make_(std::move(make)) {}
  SubjectKind kind() const override { return kind_; }
  const std::string& id() const override { return id_; }
  std::string_view op_name() const override { return id_; }
  DType dtype() const override { return DType::f32; }
  Support supports(Backend&) const override { return Support::yes(); }
  std::unique_ptr<PreparedSubject> prepare(const RunContext&) const override;
  CheckResult blank(const std::string& device_id, std::uint64_t seed) const override {
    CheckResult r;
    r.case_id = id_;
    r.backend = device_id;
    r.seed = seed;
    return r;
  }

 private:
  SubjectKind kind_;
  std::string id_;
  std::vector<std::string>& taken_;
  MakePrepared make_;
};

class NotedPrepared final : public PreparedSubject {
 public:
  explicit NotedPrepared(CheckResult r) : result_(std::move(r)) {}
  std::vector<CheckResult> check_reference(const RunContext&) const override { return {result_}; }
  std::vector<CheckResult> check_on(const DeviceContext&, const RunContext&) const override { return {}; }
  std::vector<HostTensor> run_on(const DeviceContext&) const override { return {}; }

 private:
  CheckResult result_;
};

std::unique_ptr<PreparedSubject> NotedSubject::prepare(const RunContext&) const {
  taken_.push_back(id_);
  if (make_) return make_(blank("reference", 1));
  return std::make_unique<NotedPrepared>(blank("reference", 1));
}

TEST(RunOrder, WorkersTakeModelsAndTrainingRunsFirstAndTheReportKeepsTheCatalogsOrder) {
  std::vector<std::string> taken;
  const NotedSubject a(SubjectKind::primitive, "exp", taken), b(SubjectKind::model, "mlp", taken),
      c(SubjectKind::primitive, "log", taken), d(SubjectKind::training, "train", taken);
  RunOptions opts;
  opts.oracle_check = false;
  const RunReport report = run_parity({&a, &b, &c, &d}, {}, opts);
  EXPECT_EQ(taken, (std::vector<std::string>{"mlp", "train", "exp", "log"}));
  std::vector<std::string> reported;
  for (const CheckResult& r : report.checks) reported.push_back(r.case_id);
  EXPECT_EQ(reported, (std::vector<std::string>{"exp", "mlp", "log", "train"}));
}

// A model whose check on each device waits, up to a second, for its check on the other device to
// start: it meets the other only when the two devices run on different workers at once.
class MeetingPrepared final : public PreparedSubject {
 public:
  MeetingPrepared(CheckResult r, std::atomic<int>& arrived) : result_(std::move(r)), arrived_(arrived) {}
  std::vector<CheckResult> check_reference(const RunContext&) const override { return {result_}; }
  std::vector<CheckResult> check_on(const DeviceContext& device, const RunContext&) const override {
    ++arrived_;
    const auto until = std::chrono::steady_clock::now() + 1s;
    while (arrived_.load() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(1ms);
    CheckResult r = result_;
    r.backend = device.id;
    r.verdict = arrived_.load() >= 2 ? Verdict::pass : Verdict::fail;
    return {r};
  }
  std::vector<HostTensor> run_on(const DeviceContext&) const override { return {}; }

 private:
  CheckResult result_;
  std::atomic<int>& arrived_;
};

TEST(RunOrder, AModelsDevicesRunOnDifferentWorkersAtOnceAfterOnePreparation) {
  std::vector<std::string> taken;
  std::atomic<int> arrived{0};
  const NotedSubject model(SubjectKind::model, "mlp", taken,
                           [&](CheckResult r) { return std::make_unique<MeetingPrepared>(std::move(r), arrived); });
  std::vector<SelectedDevice> devices = select_devices({"cpu"}, {});
  ASSERT_EQ(devices.size(), 1u);
  devices.push_back(devices.front());
  devices.back().id = "cpu-again";
  RunOptions opts;
  opts.oracle_check = false;
  opts.jobs = 2;
  const RunReport report = run_parity({&model}, devices, opts);
  EXPECT_EQ(taken, std::vector<std::string>{"mlp"});  // prepared once
  std::vector<std::string> order;
  for (const CheckResult& r : report.checks) {
    order.push_back(r.backend);
    EXPECT_NE(r.verdict, Verdict::fail) << r.backend << " ran alone";
  }
  EXPECT_EQ(order, (std::vector<std::string>{"reference", "cpu", "cpu-again"}));
}

PhaseProfile sample_profile() {
  PhaseProfile p;
  p.workers = 2;
  p.at(Phase::bounds, SubjectKind::model) = 12.5;
  p.at(Phase::device_calls, SubjectKind::primitive) = 0.25;
  p.at(Phase::reference, SubjectKind::training) = 1.0;
  p.reports_seconds = 0.5;
  return p;
}

TEST(ParityJsonProfile, DeviceSecondsRoundTripAsSchema19AndMergeAdds) {
  RunReport r = synthetic_report();
  r.meta.profile = sample_profile();
  r.meta.profile.device_seconds[static_cast<std::size_t>(SubjectKind::model)] = 2.5;
  const std::string text = report_to_json_text(r);
  EXPECT_NE(text.find("\"schema_version\": \"1.9\""), std::string::npos);
  const RunReport back = report_from_json_text(text, "test");
  EXPECT_EQ(back.meta.profile.device_seconds, r.meta.profile.device_seconds);
  EXPECT_NE(report_to_markdown(r).find("the devices' own timers: 2.5 s of the 0.25 s of device calls"),
            std::string::npos);
  RunReport shard = back;
  shard.meta.shard = "2/2";
  shard.checks.clear();
  EXPECT_EQ(merge_reports({r, shard}).meta.profile.device_total(), 5.0);
}

TEST(ParityJsonProfile, RoundTripsAsSchema18) {
  RunReport r = synthetic_report();
  r.meta.profile = sample_profile();
  const std::string text = report_to_json_text(r);
  EXPECT_NE(text.find("\"schema_version\": \"1.8\""), std::string::npos);
  const RunReport back = report_from_json_text(text, "test");
  for (Phase ph : kAllPhases)
    for (SubjectKind k : kAllSubjectKinds) EXPECT_EQ(back.meta.profile.at(ph, k), r.meta.profile.at(ph, k));
  EXPECT_EQ(back.meta.profile.workers, 2);
  EXPECT_EQ(back.meta.profile.reports_seconds, 0.5);
  EXPECT_EQ(report_to_json_text(synthetic_report()).find("\"profile\""), std::string::npos);  // none measured
}

// The run's peak memory: schema 1.16, read back, in parity.md's profile row; merged shards keep the largest.
TEST(ParityJsonProfile, PeakHostBytesRoundTripAsSchema116AndMergeKeepsTheLargest) {
  RunReport r = synthetic_report();
  r.meta.profile = sample_profile();
  r.meta.profile.peak_host_bytes = std::int64_t{3} << 29;
  const std::string text = report_to_json_text(r);
  EXPECT_NE(text.find("\"schema_version\": \"1.16\""), std::string::npos);
  const RunReport back = report_from_json_text(text, "test");
  EXPECT_EQ(back.meta.profile.peak_host_bytes, std::int64_t{3} << 29);
  EXPECT_NE(report_to_markdown(r).find("training 1 s; peak host memory 1.5 GiB |"), std::string::npos);
  RunReport shard = back;
  shard.meta.shard = "2/2";
  shard.checks.clear();
  shard.meta.profile.peak_host_bytes = std::int64_t{1} << 30;
  EXPECT_EQ(merge_reports({r, shard}).meta.profile.peak_host_bytes, std::int64_t{3} << 29);
  EXPECT_EQ(merge_reports({shard, r}).meta.profile.peak_host_bytes, std::int64_t{3} << 29);
  EXPECT_GT(peak_resident_bytes(), 0);  // this process's, from the system
}

TEST(ParityJsonProfile, MarkdownStatesTheProfileAndMergeAddsShards) {
  RunReport a = synthetic_report(), b = synthetic_report();
  a.meta.profile = sample_profile();
  b.meta.profile = sample_profile();
  b.meta.shard = "2/2";
  b.checks.clear();
  const std::string md = report_to_markdown(a);
  EXPECT_NE(md.find("| Time per phase | 13.8 s of 2 workers: reference 1 s (7%), bounds 12.5 s (91%), device_calls "
                    "0.25 s (2%); by kind: primitive 0.25 s, model 12.5 s, training 1 s |"),
            std::string::npos)
      << md.substr(0, 1500);
  const RunReport merged = merge_reports({a, b});
  EXPECT_EQ(merged.meta.profile.workers, 4);
  EXPECT_EQ(merged.meta.profile.at(Phase::bounds, SubjectKind::model), 25.0);
}

}  // namespace
}  // namespace gp
