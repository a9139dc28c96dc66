// harness/stress: clean runs on the CPU backend are bit-identical in every mode, and a backend
// that misbehaves only when calls overlap is caught (mismatch, NaN/Inf, error). The reports'
// stress section is tested in test_stress_report.cpp: this program links the engine alone, for
// CI's ThreadSanitizer stage (tests/CMakeLists.txt).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include "core/error.hpp"
#include "harness/audit/stress.hpp"
#include "harness/run/runner.hpp"

namespace gp {
namespace {

using ::testing::HasSubstr;

std::vector<const Subject*> small_subjects() {
  Selection sel;
  sel.ops = {"exp", "add", "softmax", "matmul", "sum"};
  sel.dtypes = {"f32"};
  auto subjects = select_subjects(sel);
  EXPECT_GE(subjects.size(), 5u);
  return subjects;
}

// A three-layer MLP, a fused GRU and a training run: a model's whole graph (forward, backward,
// gradient sums) and a training run's steps are one stress call each.
std::vector<const Subject*> small_models() {
  std::vector<const Subject*> out;
  for (const char* id :
       {"mlp(layers=3,batch=7,act=gelu,dtype=f32)", "gru(seq=10,batch=8,input=16,hidden=32,cell=fused,dtype=f32)",
        "train(model=mlp,opt=sgd_nesterov,steps=20,batch=16,dtype=f32)"}) {
    const Subject* s = find_subject(id);
    EXPECT_NE(s, nullptr) << id;
    if (s) out.push_back(s);
  }
  return out;
}

SelectedDevice cpu_device() {
  auto devices = select_devices({"cpu"}, {});
  EXPECT_EQ(devices.size(), 1u);
  return devices.front();
}

StressOptions small_options(int threads = 4, int iterations = 6) {
  StressOptions o;
  o.threads = threads;
  o.iterations = iterations;
  return o;
}

TEST(StressNames, ModesAndFaultsRoundTrip) {
  for (StressMode m : kAllStressModes) EXPECT_EQ(parse_stress_mode(stress_mode_name(m)), m);
  EXPECT_FALSE(parse_stress_mode("parallel"));
  // Faults come from the providers compiled in (backends/registry.hpp).
  for (const auto& p : backend_providers())
    for (const auto& f : p.faults) EXPECT_EQ(find_fault(f.name).backend, p.name) << f.name;
  EXPECT_EQ(find_fault("no-such-fault").fault, nullptr);
  EXPECT_GE(default_stress_threads(), 4);
}

TEST(StressCpu, EveryModeIsBitIdenticalToTheSerialRun) {
  const auto cases = small_subjects();
  const SelectedDevice cpu = cpu_device();
  for (StressMode m : kAllStressModes) {
    StressResult r = run_stress_mode(cpu, cases, m, small_options());
    SCOPED_TRACE(std::string(stress_mode_name(m)));
    EXPECT_EQ(r.backend, "cpu");
    EXPECT_EQ(r.mode, stress_mode_name(m));
    EXPECT_EQ(r.threads, 4);
    EXPECT_EQ(r.iterations, 6);
    EXPECT_EQ(r.calls, 24);
    EXPECT_EQ(r.mismatches, 0);
    EXPECT_EQ(r.nonfinite, 0);
    EXPECT_EQ(r.errors, 0) << (r.notes.empty() ? "" : r.notes.front());
    EXPECT_FALSE(r.failed());
  }
}

TEST(StressCpu, ModelsAndTrainingRunsAreBitIdenticalToTheSerialRun) {
  const auto models = small_models();
  ASSERT_EQ(models.size(), 3u);
  EXPECT_EQ(models[2]->kind(), SubjectKind::training);
  StressResult r = run_stress_mode(cpu_device(), models, StressMode::shared, small_options(4, 3));
  EXPECT_EQ(r.calls, 12);
  EXPECT_EQ(r.mismatches, 0);
  EXPECT_EQ(r.errors, 0) << (r.notes.empty() ? "" : r.notes.front());
  EXPECT_FALSE(r.failed());
}

TEST(StressCpu, DurationBoundsTheRunInsteadOfIterations) {
  StressOptions o = small_options(2, 1);
  o.duration_s = 0.3;
  const auto t0 = std::chrono::steady_clock::now();
  StressResult r = run_stress_mode(cpu_device(), small_subjects(), StressMode::shared, o);
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.3);
  EXPECT_GT(r.calls, 2);  // far more than one iteration per thread
  EXPECT_FALSE(r.failed());
}

// A CPU backend whose queues misbehave only while another call of the same backend overlaps:
// what a missing lock looks like from outside. Race-free itself (atomics), so TSan stays quiet.
enum class Misbehaviour { flip_bit, write_nan, throw_error };

class OverlapFaultBackend : public Backend {
 public:
  explicit OverlapFaultBackend(Misbehaviour m) : inner_(select_devices({"cpu"}, {}).front().entry.create()), mis_(m) {}
  const DeviceInfo& info() const override { return inner_->info(); }
  Support supports(const OpCall& c) const override { return inner_->supports(c); }
  std::unique_ptr<DeviceBuffer> allocate(DType t, const Shape& s) override { return inner_->allocate(t, s); }
  std::unique_ptr<Queue> create_queue() override;

  std::unique_ptr<Backend> inner_;
  Misbehaviour mis_;
  std::atomic<int> in_flight{0};
  std::atomic<bool> armed{false};  // the baseline runs alone; only concurrent calls misbehave
  std::atomic<int> queues_made_{0};
};

class OverlapFaultQueue : public Queue {
 public:
  OverlapFaultQueue(OverlapFaultBackend& b) : b_(b), inner_(b.inner_->create_queue()) {}
  void upload(DeviceBuffer& d, const HostTensor& s) override { inner_->upload(d, s); }
  HostTensor download(const DeviceBuffer& s) override {
    HostTensor t = inner_->download(s);
    if (corrupt_next_ && t.bytes() >= 4) {
      corrupt_next_ = false;
      if (b_.mis_ == Misbehaviour::flip_bit) t.data()[0] ^= std::byte{1};
      if (b_.mis_ == Misbehaviour::write_nan) t.set(0, std::numeric_limits<double>::quiet_NaN());
    }
    return t;
  }
  void forward(const OpCall& c, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) override {
    const int others = b_.in_flight++;
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // widen the window
    b_.in_flight--;
    if (others > 0 && b_.armed) {
      if (b_.mis_ == Misbehaviour::throw_error) throw DeviceError("fakeEnqueue", "FAKE_RACE", c.case_id, "overlap");
      corrupt_next_ = true;
    }
    inner_->forward(c, in, out);
  }
  void backward(const OpCall& c, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) override {
    inner_->backward(c, in, out, dout, grads);
  }
  void finish() override { inner_->finish(); }

 private:
  OverlapFaultBackend& b_;
  std::unique_ptr<Queue> inner_;
  bool corrupt_next_ = false;
};

std::unique_ptr<Queue> OverlapFaultBackend::create_queue() {
  // The first queue is the baseline's; later ones belong to the stress threads.
  if (queues_made_++ > 0) armed = true;
  return std::make_unique<OverlapFaultQueue>(*this);
}

SelectedDevice faulty_device(Misbehaviour m) {
  SelectedDevice d;
  d.id = "fake:0";
  d.entry.info.backend = "fake";
  d.entry.info.name = "overlap fault";
  d.entry.create = [m] { return std::make_unique<OverlapFaultBackend>(m); };
  return d;
}

TEST(StressDetection, OverlapBitFlipIsAMismatch) {
  StressResult r = run_stress_mode(faulty_device(Misbehaviour::flip_bit), small_subjects(), StressMode::shared,
                                   small_options(4, 10));
  EXPECT_GT(r.mismatches, 0);
  EXPECT_EQ(r.nonfinite, 0);
  EXPECT_TRUE(r.failed());
  ASSERT_FALSE(r.notes.empty());
  EXPECT_THAT(r.notes.front(), HasSubstr("mismatch: "));
}

// The positive control on models: the same overlap fault inside a model's graph is found, and
// the note names the model.
TEST(StressDetection, OverlapBitFlipInAModelIsAMismatch) {
  StressResult r =
      run_stress_mode(faulty_device(Misbehaviour::flip_bit), small_models(), StressMode::shared, small_options(4, 3));
  EXPECT_GT(r.mismatches, 0);
  EXPECT_TRUE(r.failed());
  ASSERT_FALSE(r.notes.empty());
  EXPECT_THAT(r.notes.front(), HasSubstr("mismatch: "));
  EXPECT_THAT(r.notes.front(), ::testing::AnyOf(HasSubstr("mlp("), HasSubstr("gru("), HasSubstr("train(")));
}

TEST(StressDetection, AppearingNanIsCountedSeparately) {
  StressResult r = run_stress_mode(faulty_device(Misbehaviour::write_nan), small_subjects(), StressMode::shared,
                                   small_options(4, 10));
  EXPECT_GT(r.nonfinite, 0);
  EXPECT_GE(r.mismatches, r.nonfinite);  // a NaN where a number was is also a byte difference
  EXPECT_TRUE(r.failed());
}

TEST(StressDetection, DeviceErrorsAreCountedAndTheRunGoesOn) {
  StressResult r = run_stress_mode(faulty_device(Misbehaviour::throw_error), small_subjects(), StressMode::shared,
                                   small_options(4, 10));
  EXPECT_GT(r.errors, 0);
  EXPECT_EQ(r.calls, 40);  // every iteration ran although some threw
  EXPECT_TRUE(r.failed());
  ASSERT_FALSE(r.notes.empty());
  EXPECT_THAT(r.notes.front(), HasSubstr("FAKE_RACE"));
}

TEST(StressDetection, UnavailableDeviceIsAnErrorNotACrash) {
  SelectedDevice d;
  d.id = "none:0";
  d.entry.unavailable = "no such driver";
  StressResult r = run_stress_mode(d, small_subjects(), StressMode::shared, small_options());
  EXPECT_TRUE(r.failed());
  EXPECT_EQ(r.calls, 0);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_THAT(r.notes.front(), HasSubstr("no such driver"));
}

}  // namespace
}  // namespace gp
