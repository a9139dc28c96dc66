#include "bench/device_bench.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>

#include "bench/arithmetic_probe.hpp"
#include "bench/creation_call.hpp"
#include "bench/graph_call.hpp"
#include "bench/resident_call.hpp"
#include "core/memory_size.hpp"
#include "harness/check/inputs.hpp"
#include "harness/check/memory_fit.hpp"

namespace gp {

void mark_rows(std::vector<BenchRow>& rows, std::size_t from, BenchOutcome outcome, const std::string& reason) {
  for (std::size_t i = from; i < rows.size(); ++i) {
    rows[i].outcome = outcome;
    rows[i].reason = reason;
  }
}

namespace {

// Rows of calls, or a probe of the device's limits (DeviceLimit).
enum class EntryKind : std::uint8_t { calls, copy_probe, arithmetic_probe };

// What one device times across the rounds: a case's calls or a probe, its rows, and its buffers
// while they stay resident.
struct BenchEntry {
  EntryKind kind = EntryKind::calls;
  std::string id;  // the case's id, for traces and errors
  DType dtype = DType::f32;
  std::int64_t bytes = 0;  // the device memory it holds while resident
  std::function<std::unique_ptr<TimedCall>(Queue&, std::vector<BenchRow>& rows)> make;
  std::vector<BenchRow> rows;
  std::unique_ptr<TimedCall> resident;
  bool keep_resident = false;
  bool pending() const {
    for (const BenchRow& r : rows)
      if (r.outcome == BenchOutcome::timed) return true;
    return false;
  }
};

// Cases whose buffers stay on the device between rounds, in all: beyond it they are uploaded
// again each round, so that the large tier's bench needs one case's memory at a time.
constexpr std::int64_t kResidentBudget = std::int64_t{1} << 30;

class DeviceBench {
 public:
  DeviceBench(const SelectedDevice& d, Backend& backend, const BenchOptions& opts)
      : device_(d), backend_(backend), opts_(opts) {}

  void add(const Case& c, EntryKind kind = EntryKind::calls) {
    BenchEntry e;
    e.kind = kind;
    e.id = c.id;
    e.dtype = c.dtype;
    e.bytes = device_bytes(c);
    e.make = [this, &c](Queue& q, std::vector<BenchRow>&) -> std::unique_ptr<TimedCall> {
      return std::make_unique<ResidentCall>(c, backend_, q, make_inputs(c, opts_.seed), make_cotangent(c, opts_.seed));
    };
    e.rows = bench_rows_of(c, device_.id);
    if (kind == EntryKind::copy_probe) e.rows.resize(1);  // the forward: a copy
    add_supported(std::move(e), [&] {
      const Support s = backend_.supports(c.call);
      return s.ok ? fits_in_memory(c, backend_.info(), host_memory_bytes()) : s;
    });
  }

  void add(const CompositeSubject& s) {
    BenchEntry e;
    e.id = s.id();
    e.dtype = s.dtype();
    for (const auto& [name, shape] : s.composite().shapes)  // values and gradients
      e.bytes += 2 * shape.numel() * static_cast<std::int64_t>(dtype_size(s.dtype()));
    e.make = [this, &s](Queue& q, std::vector<BenchRow>&) -> std::unique_ptr<TimedCall> {
      const std::vector<HostTensor> leaves = s.functions().reference(s.composite(), opts_.seed).leaves;
      if (s.kind() == SubjectKind::training)
        return std::make_unique<TrainingStepCall>(s.composite(), backend_, q, leaves);
      return std::make_unique<GraphCall>(s.composite(), backend_, q, leaves);
    };
    e.rows = bench_rows_of(s, device_.id);
    add_supported(std::move(e), [&] { return s.supports(backend_); });
  }

  void add(const CreationSize& size) {
    BenchEntry e;
    e.id = size.id();
    e.dtype = size.dtype;
    e.make = [this, size](Queue&, std::vector<BenchRow>&) -> std::unique_ptr<TimedCall> {
      return std::make_unique<CreationCall>(backend_, size.dtype, size.elements, opts_.seed);
    };
    e.rows = bench_rows_of(size, device_.id);
    entries_.push_back(std::move(e));  // a buffer of bytes: every device takes it
  }

  // For each dtype of the rows the device takes, a copy probe and an arithmetic probe, timed
  // first in every round.
  void add_probes() {
    std::vector<DType> dtypes;
    for (const BenchEntry& e : entries_)
      if (e.pending() && std::find(dtypes.begin(), dtypes.end(), e.dtype) == dtypes.end()) dtypes.push_back(e.dtype);
    std::vector<BenchEntry> cases = std::move(entries_);
    entries_.clear();
    for (DType t : dtypes) {
      // Halved until the device takes it (Vulkan's storage buffer range is not in DeviceInfo).
      Case probe = copy_probe_case(t, backend_.info());
      for (std::int64_t n = probe.call.output_shape.numel(); n > (1 << 16) && !takes(probe);)
        probe = copy_probe_case(t, backend_.info(), n /= 2);
      add(probes_.emplace_back(std::move(probe)), EntryKind::copy_probe);
      add_arithmetic_probe(t);
    }
    for (BenchEntry& e : cases) entries_.push_back(std::move(e));
  }

  BenchMeasurement run() {
    try {
      queue_ = backend_.create_queue();
    } catch (const std::exception& e) {
      lost_ = e.what();
    }
    for (int round = 0; round <= opts_.repetitions; ++round) {
      if (round > 0 && opts_.stop && opts_.stop->load()) break;
      for (BenchEntry& e : entries_) {
        if (!e.pending()) continue;
        if (opts_.on_entry) opts_.on_entry(e.id, round);
        time_entry(e, round);
      }
      if (opts_.on_round) opts_.on_round(round, opts_.repetitions, device_.id);
    }
    return measurement();
  }

 private:
  // The entry with its rows skipped where `support` says no, errors where it throws (a plugin's
  // supports() can fail).
  template <typename Check>
  void add_supported(BenchEntry e, const Check& support) {
    try {
      if (const auto s = support(); !s.ok) mark_rows(e.rows, 0, BenchOutcome::skipped, s.reason);
    } catch (const std::exception& ex) {
      mark_rows(e.rows, 0, BenchOutcome::error, std::string("supports: ") + ex.what());
    }
    entries_.push_back(std::move(e));
  }

  bool takes(const Case& c) const {
    try {
      return backend_.supports(c.call).ok;
    } catch (const std::exception&) {
      return true;  // add() makes its rows the error
    }
  }

  void add_arithmetic_probe(DType dtype) {
    BenchEntry e;
    e.kind = EntryKind::arithmetic_probe;
    e.id = fmt::format("arithmetic(dtype={})", dtype_name(dtype));
    e.dtype = dtype;
    BenchRow row;
    row.case_id = e.id;
    row.op = "arithmetic";
    row.dtype = std::string(dtype_name(dtype));
    row.device = device_.id;
    e.rows.push_back(row);
    // Sized on its first call; the row then names its size and counts its work.
    e.make = [this, dtype](Queue& q, std::vector<BenchRow>& rows) -> std::unique_ptr<TimedCall> {
      auto probe = std::make_unique<ArithmeticProbe>(backend_, q, dtype);
      BenchRow& r = rows.front();
      r.case_id = fmt::format("arithmetic(elements={},steps={},dtype={})", probe->elements(), ArithmeticProbe::kSteps,
                              dtype_name(dtype));
      r.flops = probe->flops();
      r.bytes = probe->bytes();
      return probe;
    };
    entries_.push_back(std::move(e));
  }

  BenchMeasurement measurement() {
    BenchMeasurement m;
    std::map<std::string, DeviceLimit> limits;
    for (BenchEntry& e : entries_) {
      const std::string dtype(dtype_name(e.dtype));
      if (e.kind == EntryKind::calls) {
        for (BenchRow& r : e.rows) m.rows.push_back(std::move(r));
        continue;
      }
      DeviceLimit& l = limits.try_emplace(dtype, DeviceLimit{device_.id, dtype, {}, {}}).first->second;
      (e.kind == EntryKind::copy_probe ? l.copy : l.arithmetic) = std::move(e.rows.front());
    }
    for (auto& [dtype, l] : limits) m.limits.push_back(std::move(l));
    return m;
  }

  TimedCall& resident(BenchEntry& e, int round) {
    if (e.resident) return *e.resident;
    std::unique_ptr<TimedCall> call = e.make(*queue_, e.rows);
    if (round == 0 && resident_bytes_ + e.bytes <= kResidentBudget) {
      resident_bytes_ += e.bytes;
      e.keep_resident = true;
    }
    e.resident = std::move(call);
    return *e.resident;
  }

  // Round 0 calibrates each call: as many calls as fill min_time make one repetition.
  void time_entry(BenchEntry& e, int round) {
    if (!queue_) {
      for (BenchRow& r : e.rows) r.repetition_seconds.clear();
      mark_rows(e.rows, 0, BenchOutcome::error, lost_);
      return;
    }
    std::size_t next = 0;
    try {
      TimedCall& call = resident(e, round);
      for (; next < e.rows.size(); ++next) {
        BenchRow& row = e.rows[next];
        if (round == 0) {
          row.calls_per_repetition = calibrate(call, row.direction);
          continue;
        }
        double sum = 0;
        for (std::int64_t i = 0; i < row.calls_per_repetition; ++i) {
          const CallTime t = call.run(*queue_, row.direction);
          sum += t.seconds;
          row.device_timer = t.device_timer;
        }
        row.repetition_seconds.push_back(sum / static_cast<double>(row.calls_per_repetition));
      }
    } catch (const NoArithmeticProbe& ex) {
      mark_rows(e.rows, 0, BenchOutcome::skipped, ex.what());
      e.resident.reset();
    } catch (const std::exception& ex) {
      for (BenchRow& r : e.rows) r.repetition_seconds.clear();
      const std::string when = round == 0 ? "" : fmt::format(" (repetition {})", round);
      mark_rows(e.rows, 0, BenchOutcome::error,
                fmt::format("{} {}{}: {}", direction_name(e.rows[std::min(next, e.rows.size() - 1)].direction),
                            round == 0 ? "calibration" : "call", when, ex.what()));
      e.resident.reset();
      renew_queue(e.id, ex.what());
    }
    if (!e.keep_resident) e.resident.reset();
  }

  std::int64_t calibrate(TimedCall& call, Direction direction) {
    using Clock = std::chrono::steady_clock;
    const auto since = Clock::now();
    std::int64_t calls = 0;
    double elapsed = 0;
    do {
      call.run(*queue_, direction);
      ++calls;
      elapsed = std::chrono::duration<double>(Clock::now() - since).count();
    } while (elapsed < opts_.min_time && calls < 1'000'000);
    return calls_for(elapsed / static_cast<double>(calls), opts_.min_time);
  }

  void renew_queue(const std::string& id, const std::string& error) {
    try {
      queue_ = backend_.create_queue();  // the failed one may hold a broken state
    } catch (const std::exception&) {
      queue_.reset();  // the device is gone: its remaining cases are errors with this one's
      lost_ = "the device failed in " + id + ": " + error;
    }
  }

  const SelectedDevice& device_;
  Backend& backend_;
  const BenchOptions& opts_;
  std::unique_ptr<Queue> queue_;
  std::string lost_;
  std::vector<BenchEntry> entries_;
  std::deque<Case> probes_;  // the copy probes' cases, which entries point to
  std::int64_t resident_bytes_ = 0;
};

}  // namespace

BenchMeasurement bench_device(const SelectedDevice& d, Backend& backend, const BenchItems& items,
                              const BenchOptions& opts) {
  DeviceBench bench(d, backend, opts);
  for (const CreationSize& s : items.creations) bench.add(s);
  for (const Case* c : items.cases) bench.add(*c);
  for (const CompositeSubject* s : items.composites) bench.add(*s);
  if (opts.probes) bench.add_probes();
  return bench.run();
}

}  // namespace gp
