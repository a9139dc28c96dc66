#include "harness/audit/stress.hpp"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <thread>

#include "core/enum_table.hpp"
#include "core/error.hpp"
#include "harness/audit/in_flight.hpp"
#include "harness/check/open_device.hpp"

namespace gp {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxNotes = 12;

// Switches an injectable fault of the backend on for its lifetime (RAII, so an exception never
// leaves a fault on for the next mode). An empty name switches nothing.
class FaultSwitch {
 public:
  explicit FaultSwitch(const std::string& name) : fault_(name.empty() ? nullptr : find_fault(name).fault) {
    if (!name.empty() && !fault_) throw UsageError("unknown fault '" + name + "'");
    if (fault_) fault_->set(true);
  }
  ~FaultSwitch() {
    if (fault_) fault_->set(false);
  }
  FaultSwitch(const FaultSwitch&) = delete;
  FaultSwitch& operator=(const FaultSwitch&) = delete;

 private:
  const InjectableFault* fault_;
};
constexpr std::size_t kMaxValidationTexts = 20;

// One subject at its prepared inputs, and the serial result every concurrent result must equal.
struct Baseline {
  const Subject* subject = nullptr;
  std::unique_ptr<PreparedSubject> prepared;
  std::vector<HostTensor> expected;
};

// Counters shared by the threads of one mode.
struct Tally {
  std::atomic<std::int64_t> calls{0}, mismatches{0}, nonfinite{0}, errors{0}, validation{0};
  std::mutex mutex;  // guards the lists
  std::vector<std::string> notes, validation_texts;

  void note(std::string text) {
    std::lock_guard lock(mutex);
    if (notes.size() < kMaxNotes) notes.push_back(std::move(text));
  }
  // Validation messages and canary violations an instance collected; called before it dies.
  void drain(Backend& backend) {
    for (auto& v : backend.take_canary_violations()) {
      ++errors;
      note("canary violation: " + v);
    }
    auto messages = backend.take_validation_messages();
    validation += static_cast<std::int64_t>(messages.size());
    std::lock_guard lock(mutex);
    for (auto& m : messages)
      if (validation_texts.size() < kMaxValidationTexts) validation_texts.push_back(std::move(m));
  }
};

bool same_bytes(const HostTensor& a, const HostTensor& b) {
  return a.dtype() == b.dtype() && a.bytes() == b.bytes() && std::memcmp(a.data(), b.data(), a.bytes()) == 0;
}

// NaN or Inf in `got` at an element where `expected` is finite.
bool nonfinite_appeared(const HostTensor& got, const HostTensor& expected) {
  // Inputs without a gradient come back as empty tensors (no bytes, though numel() is 1).
  if (got.bytes() == 0 || got.bytes() != expected.bytes() || got.dtype() != expected.dtype()) return false;
  for (std::int64_t i = 0; i < got.numel(); ++i)
    if (!std::isfinite(got.get(i)) && std::isfinite(expected.get(i))) return true;
  return false;
}

// One run of a subject on the device (a primitive's forward and backward, a model's graph, a
// training run's steps), every tensor compared with its baseline.
void run_and_compare(int slot, const Baseline& b, Backend& backend, Queue& queue, Tally& tally) {
  const InFlight running(slot, b.subject->id());
  try {
    const std::vector<HostTensor> got = b.prepared->run_on(DeviceContext{"", &backend, &queue});
    bool equal = got.size() == b.expected.size();
    bool appeared = false;
    for (std::size_t k = 0; k < got.size() && k < b.expected.size(); ++k) {
      equal = equal && same_bytes(got[k], b.expected[k]);
      appeared = appeared || nonfinite_appeared(got[k], b.expected[k]);
    }
    ++tally.calls;
    if (!equal) {
      ++tally.mismatches;
      tally.note("mismatch: " + b.subject->id());
    }
    if (appeared) ++tally.nonfinite;
  } catch (const std::exception& e) {
    ++tally.calls;
    ++tally.errors;
    tally.note(std::string("error: ") + e.what());
  }
}

std::vector<Baseline> make_baselines(const std::vector<const Subject*>& subjects, Backend& backend, std::uint64_t seed,
                                     Tally& tally) {
  std::vector<Baseline> out;
  auto queue = backend.create_queue();
  for (const Subject* s : subjects) {
    if (!s->supports(backend).ok) continue;
    Baseline b;
    b.subject = s;
    const InFlight running(0, s->id());
    try {
      b.prepared = s->prepare(RunContext{seed, {}});
      b.expected = b.prepared->run_on(DeviceContext{"", &backend, queue.get()});
    } catch (const std::exception& e) {
      // Not a threading problem: the parity run reports it. The subject just cannot be stressed.
      tally.note("baseline failed, case left out: " + s->id() + ": " + e.what());
      continue;
    }
    out.push_back(std::move(b));
  }
  return out;
}

// The loop of one thread: `iterations` calls, or until the deadline when one is set.
template <typename Body>
std::int64_t loop(const StressOptions& opts, Clock::time_point start, Body&& body) {
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opts.duration_s));
  std::int64_t i = 0;
  for (; opts.duration_s > 0 ? Clock::now() < deadline : i < opts.iterations; ++i) body(i);
  return i;
}

class ModeRun {
 public:
  ModeRun(const SelectedDevice& device, const std::vector<Baseline>& baselines, Backend& shared,
          const StressOptions& opts, StressMode mode, Tally& tally)
      : device_(device),
        baselines_(baselines),
        shared_(shared),
        opts_(opts),
        mode_(mode),
        tally_(tally),
        sync_(opts.threads) {}

  // Runs every thread and returns the iterations they ran in total.
  std::int64_t run() {
    std::atomic<std::int64_t> total{0};
    std::atomic<int> finished{0};
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(opts_.threads));
    for (int t = 0; t < opts_.threads; ++t)
      threads.emplace_back([&, t] {
        total += thread_body(t);
        ++finished;
      });
    if (opts_.progress) report_progress(finished);
    for (auto& th : threads) th.join();
    return total.load();
  }

 private:
  const Baseline& pick(int thread, std::int64_t i) const {
    // Threads start on different cases so that different kernels/pipelines overlap.
    return baselines_[static_cast<std::size_t>(std::int64_t{thread} * 7 + i) % baselines_.size()];
  }

  std::int64_t thread_body(int t) {
    try {
      switch (mode_) {
        case StressMode::shared:
          return shared_thread(t);
        case StressMode::per_thread:
          return own_instance_thread(t);
        case StressMode::churn:
          return (t % 2 == 0) ? shared_thread(t) : churn_thread(t);
      }
    } catch (const std::exception& e) {  // a queue or an instance could not be created
      ++tally_.errors;
      tally_.note(std::string("thread setup failed: ") + e.what());
    }
    return 0;
  }

  std::int64_t shared_thread(int t) {
    std::unique_ptr<Queue> queue;
    try {
      queue = shared_.create_queue();
    } catch (...) {
      sync_.arrive_and_drop();
      throw;
    }
    sync_.arrive_and_wait();
    return loop(opts_, Clock::now(), [&](std::int64_t i) { run_and_compare(t, pick(t, i), shared_, *queue, tally_); });
  }

  // Creation happens after the barrier, so that instances are created concurrently too.
  std::int64_t own_instance_thread(int t) {
    sync_.arrive_and_wait();
    std::unique_ptr<Backend> own = device_.entry.create();
    std::int64_t n = 0;
    {
      auto queue = own->create_queue();
      n = loop(opts_, Clock::now(), [&](std::int64_t i) { run_and_compare(t, pick(t, i), *own, *queue, tally_); });
    }
    tally_.drain(*own);
    return n;
  }

  // Every 4th iteration a whole new instance (programs/pipelines built again), otherwise a new
  // queue of the shared instance; buffers are created and freed by every call anyway.
  std::int64_t churn_thread(int t) {
    sync_.arrive_and_wait();
    return loop(opts_, Clock::now(), [&](std::int64_t i) {
      try {
        if (i % 4 == 0) {
          std::unique_ptr<Backend> own = device_.entry.create();
          {
            auto queue = own->create_queue();
            run_and_compare(t, pick(t, i), *own, *queue, tally_);
          }
          tally_.drain(*own);
        } else {
          auto queue = shared_.create_queue();
          run_and_compare(t, pick(t, i), shared_, *queue, tally_);
        }
      } catch (const std::exception& e) {
        ++tally_.errors;
        tally_.note(std::string("churn: ") + e.what());
      }
    });
  }

  void report_progress(std::atomic<int>& finished) const {
    const std::int64_t planned = opts_.duration_s > 0 ? 0 : opts_.iterations * opts_.threads;
    auto last = Clock::now();
    while (finished.load() < opts_.threads) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (Clock::now() - last < std::chrono::seconds(2)) continue;
      last = Clock::now();
      if (planned)
        std::fprintf(stderr, "  [%s %s] %lld/%lld calls\n", device_.id.c_str(),
                     std::string(stress_mode_name(mode_)).c_str(), static_cast<long long>(tally_.calls.load()),
                     static_cast<long long>(planned));
      else
        std::fprintf(stderr, "  [%s %s] %lld calls\n", device_.id.c_str(), std::string(stress_mode_name(mode_)).c_str(),
                     static_cast<long long>(tally_.calls.load()));
    }
  }

  const SelectedDevice& device_;
  const std::vector<Baseline>& baselines_;
  Backend& shared_;
  const StressOptions& opts_;
  StressMode mode_;
  Tally& tally_;
  std::barrier<> sync_;  // every thread passes it exactly once (arrive_and_drop when setup fails)
};

}  // namespace

namespace {
constexpr std::string_view kStressModeNames[] = {"shared", "per-thread", "churn"};  // kAllStressModes' order
static_assert(std::size(kStressModeNames) == std::size(kAllStressModes));
}  // namespace

std::string_view stress_mode_name(StressMode m) { return enum_row(kStressModeNames, m); }

std::optional<StressMode> parse_stress_mode(std::string_view name) {
  return enum_from_name<StressMode>(name, kStressModeNames);
}

int default_stress_threads() {
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(4, 2 * cores);
}

StressResult run_stress_mode(const SelectedDevice& device, const std::vector<const Subject*>& subjects, StressMode mode,
                             const StressOptions& opts) {
  const auto t0 = Clock::now();
  StressResult r;
  r.backend = device.id;
  r.device = device.entry.info.name;
  r.mode = std::string(stress_mode_name(mode));
  r.inject = opts.inject;
  r.threads = std::max(1, opts.threads);
  StressOptions o = opts;
  o.threads = r.threads;

  Tally tally;
  std::int64_t total_iterations = 0;
  OpenedDevice opened = open_device(device);
  if (!opened.backend) {
    ++tally.errors;
    tally.note(opened.reason);
  } else {
    try {
      std::unique_ptr<Backend> shared = std::move(opened.backend);
      const std::vector<Baseline> baselines = make_baselines(subjects, *shared, o.seed, tally);
      if (baselines.empty()) {
        tally.note("no selected case runs on this device");
      } else {
        FaultSwitch fault(o.inject);  // on only while the threads run
        total_iterations = ModeRun(device, baselines, *shared, o, mode, tally).run();
      }
      tally.drain(*shared);
    } catch (const std::exception& e) {
      ++tally.errors;
      tally.note(std::string("stress run stopped: ") + e.what());
    }
  }
  r.iterations = total_iterations / r.threads;
  r.calls = tally.calls;
  r.mismatches = tally.mismatches;
  r.nonfinite = tally.nonfinite;
  r.errors = tally.errors;
  r.validation_count = tally.validation;
  r.validation_messages = std::move(tally.validation_texts);
  r.notes = std::move(tally.notes);
  r.time_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

}  // namespace gp
