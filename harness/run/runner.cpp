#include "harness/run/runner.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "core/memory_size.hpp"
#include "core/parallel_blocks.hpp"
#include "harness/audit/oracle_check.hpp"
#include "harness/audit/oracle_large.hpp"
#include "harness/check/cached_reference_checks.hpp"
#include "harness/check/memory_fit.hpp"
#include "harness/check/phase_clock.hpp"
#include "harness/run/host_memory_budget.hpp"
#include "harness/run/progress.hpp"
#include "harness/run/work_items.hpp"

namespace gp {

namespace {

// A device as used by one run: its instance and whether it is still usable.
struct DeviceState {
  const SelectedDevice* selected = nullptr;
  OpenedDevice opened;
  std::mutex mutex;  // guards `opened.unusable` / `opened.reason` after a failure or a loss
  void mark_unusable(ReasonKind kind, std::string why) {
    std::lock_guard lock(mutex);
    opened.unusable = kind;
    opened.reason = std::move(why);
  }
  std::pair<ReasonKind, std::string> status() {
    std::lock_guard lock(mutex);
    return {opened.unusable, opened.reason};
  }
};

CheckResult decided(const Subject& s, const std::string& device_id, std::uint64_t seed, Verdict v, ReasonKind kind,
                    std::string why) {
  CheckResult r = s.blank(device_id, seed);
  r.verdict = v;
  r.reason_kind = kind;
  r.reason = std::move(why);
  return r;
}

// Every check of one subject on one device: a typed SKIP when the device cannot run it.
std::vector<CheckResult> run_subject_on(const Subject& s, const PreparedSubject* prepared, DeviceState& dev,
                                        Queue* queue, const RunContext& run) {
  const std::string& id = dev.selected->id;
  if (auto [kind, why] = dev.status(); kind != ReasonKind::none)
    return {decided(s, id, run.seed, Verdict::skip, kind, why)};
  Backend& backend = *dev.opened.backend;
  Support support;
  try {
    support = s.supports(backend);
  } catch (const std::exception& e) {  // a plugin's supports() may fail: an ERROR, not a SKIP
    return {decided(s, id, run.seed, Verdict::error, ReasonKind::device_error, e.what())};
  }
  if (!support.ok) return {decided(s, id, run.seed, Verdict::skip, ReasonKind::unsupported, support.reason)};
  if (!prepared || !queue)
    return {decided(s, id, run.seed, Verdict::skip, ReasonKind::reference_failed, "reference data unavailable")};
  try {
    PhaseTimer timer(Phase::comparisons);
    return prepared->check_on(DeviceContext{id, &backend, queue}, run);
  } catch (const DeviceLost& e) {
    dev.mark_unusable(ReasonKind::device_lost, std::string("device lost earlier in this run: ") + e.what());
    return {decided(s, id, run.seed, Verdict::error, ReasonKind::device_lost, e.what())};
  }
}

// The run's devices, opened once; the oracle check is made against their math profiles.
std::vector<std::unique_ptr<DeviceState>> open_devices(const std::vector<SelectedDevice>& devices) {
  std::vector<std::unique_ptr<DeviceState>> states;
  for (const auto& d : devices) {
    states.push_back(std::make_unique<DeviceState>());
    states.back()->selected = &d;
    states.back()->opened = open_device(d);
  }
  return states;
}

// Queues belong to one thread (backend contract): each worker opens its own.
std::vector<std::unique_ptr<Queue>> open_queues(std::vector<std::unique_ptr<DeviceState>>& states) {
  std::vector<std::unique_ptr<Queue>> queues(states.size());
  for (std::size_t d = 0; d < states.size(); ++d) {
    if (!states[d]->opened.backend) continue;
    try {
      queues[d] = states[d]->opened.backend->create_queue();
    } catch (const std::exception& e) {
      states[d]->mark_unusable(ReasonKind::device_failed, std::string("could not create a queue: ") + e.what());
    }
  }
  return queues;
}

}  // namespace

RunReport run_parity(const std::vector<const Subject*>& subjects, const std::vector<SelectedDevice>& devices,
                     const RunOptions& opts) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<DeviceState>> states = open_devices(devices);
  RunReport report;
  const RunContext& run = opts.context;
  report.meta.seed = run.seed;
  for (const auto& d : devices) report.meta.devices.push_back(summarize_device(d));

  std::vector<std::vector<CheckResult>> per_subject(subjects.size());
  // The oracle check of the reference (metadata), light profile, on the reference data the
  // workers prepare anyway (preparing it a second time would cost more than the check), against
  // the bounds of this run's devices, which the backend checks compute anyway.
  std::vector<OracleCaseResult> oracle(opts.oracle_check ? subjects.size() : 0);
  OracleOptions oracle_options = light_oracle_options();
  for (const auto& s : states)
    if (s->opened.backend && s->opened.backend->info().math)
      oracle_options.devices.push_back(
          {s->opened.backend->info().math, s->opened.backend->info().may_flush_subnormals});
  LargeOracleOptions large_oracle;
  large_oracle.devices = oracle_options.devices;
  // Each subject is prepared once, by the first worker that takes one of its items; its last
  // item to finish puts its checks together (the reference's, then each device's in order).
  struct SubjectWork {
    std::once_flag prepare_once;
    std::unique_ptr<PreparedSubject> prepared;
    std::vector<CheckResult> reference;
    std::vector<std::vector<CheckResult>> on_device;
    std::atomic<std::size_t> parts_left{0};
    bool started = false;  // under take_mutex
  };
  const int jobs = std::max(1, opts.jobs);
  const std::vector<WorkItem> items = work_items(subjects, states.size(), static_cast<std::size_t>(jobs));
  std::vector<SubjectWork> work(subjects.size());
  for (SubjectWork& w : work) w.on_device.resize(states.size());
  for (const WorkItem& item : items) ++work[item.subject].parts_left;
  std::size_t next = 0;
  std::mutex take_mutex;
  PhaseRecorder recorder;
  Progress progress(opts.progress, subjects.size());
  // After a stop no subject is started, and every part of a started one still runs.
  auto take = [&]() -> const WorkItem* {
    std::lock_guard lock(take_mutex);
    for (; next < items.size(); ++next) {
      SubjectWork& w = work[items[next].subject];
      if (opts.stop && opts.stop->load() && !w.started) continue;
      w.started = true;
      return &items[next++];
    }
    return nullptr;
  };
  // A large subject that no device runs is not prepared: its reference data alone may need more
  // memory and time than the machine has (the index case past 2^31 elements).
  auto any_device_runs = [&](const Subject& s) {
    for (const auto& st : states) {
      if (!st->opened.backend || st->status().first != ReasonKind::none) continue;
      try {
        if (s.supports(*st->opened.backend).ok) return true;
      } catch (const std::exception&) {  // a plugin's supports() may fail: its item says so
        return true;
      }
    }
    return false;
  };
  // A large subject's host copies for its devices one after the other (the largest of them), its
  // complete checks' references, kept for every device, and a streamed check's blocks. The
  // budget leaves a sixth of the machine to what the estimates do not count (the process's
  // catalog and caches, the reference's working sets, the allocator's slack): at the whole
  // physical memory, the tier on the H200 host (125 GiB) was killed for memory at 130.8 GB.
  HostMemoryBudget memory(host_memory_bytes() / 6 * 5);
  auto host_bytes = [&](const Case& c) {
    std::int64_t copies = 0, devices = 0;
    for (const auto& st : states) {
      if (!st->opened.backend) continue;
      copies = std::max(copies, large_case_host_bytes(c, st->opened.backend->info()));
      ++devices;
    }
    return copies + devices * complete_check_host_bytes(c, run.sample) + streamed_check_host_bytes(c, run.sample);
  };
  auto prepare = [&](const Subject& s, SubjectWork& w, std::size_t i) {
    if (s.tier() == Tier::large && !any_device_runs(s)) return;
    try {
      w.prepared = s.prepare(run);
      if (opts.reference_checks) {
        PhaseTimer timer(Phase::reference_checks);
        for (auto& r : reference_checks(s, *w.prepared, run)) w.reference.push_back(std::move(r));
      }
      if (opts.oracle_check && (s.primitive_case() || w.prepared->sampled_data())) {
        PhaseTimer timer(Phase::oracle_sample);
        try {
          oracle[i] =
              s.primitive_case()
                  ? cached_oracle_check_case(*s.primitive_case(), *w.prepared->primitive_data(), run, oracle_options)
                  : cached_oracle_check_large_case(*s.large_case(), *w.prepared->sampled_data(), run, large_oracle);
        } catch (const std::exception& e) {  // reported in the metadata, not as a check of the case
          oracle[i].case_id = s.id();
          oracle[i].error = e.what();
        }
      }
    } catch (const std::exception& e) {
      w.reference.push_back(decided(s, "reference", run.seed, Verdict::error, ReasonKind::reference_failed,
                                    std::string("reference failed: ") + e.what()));
      w.prepared.reset();
    }
  };
  auto run_item = [&](const WorkItem& item, std::vector<std::unique_ptr<Queue>>& queues) {
    const std::size_t i = item.subject;
    const Subject& s = *subjects[i];
    SubjectWork& w = work[i];
    // A large case on every device times its phases apart for its progress line; they join the
    // run's profile when the binding has ended (declared first, so destroyed last).
    const bool own_line = s.tier() == Tier::large && item.device == WorkItem::kEveryDevice;
    struct MergedAtEnd {
      PhaseRecorder& run;
      PhaseRecorder part;
      ~MergedAtEnd() { run.merge(part); }
    } case_phases{recorder, {}};
    const PhaseBinding phases(own_line ? &case_phases.part : &recorder, s.kind());
    // The pool's threads go to the work taken first (the longest large cases): the run's long pole.
    const BlockRank rank(&item - items.data());
    if (opts.on_item_start) opts.on_item_start(s.id());
    std::optional<HostMemoryBudget::Reservation> held;
    if (s.tier() == Tier::large && s.primitive_case() && any_device_runs(s))
      held.emplace(memory, host_bytes(*s.primitive_case()));
    const auto began = std::chrono::steady_clock::now();
    std::call_once(w.prepare_once, [&] { prepare(s, w, i); });
    for (std::size_t d = 0; d < states.size(); ++d)
      if (item.device == WorkItem::kEveryDevice || item.device == d)
        w.on_device[d] = run_subject_on(s, w.prepared.get(), *states[d], queues[d].get(), run);
    if (--w.parts_left > 0) return;
    std::vector<CheckResult>& out = per_subject[i];
    out = std::move(w.reference);
    for (auto& checks : w.on_device)
      for (auto& r : checks) out.push_back(std::move(r));
    w.prepared.reset();
    if (opts.on_item_done) opts.on_item_done(s.id(), out);
    if (own_line) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      progress.done_large(s.id(), seconds, phase_breakdown(case_phases.part.profile(), s.kind(), seconds));
    } else {
      progress.done(s.id());
    }
  };
  auto worker = [&] {
    std::vector<std::unique_ptr<Queue>> queues = open_queues(states);
    while (const WorkItem* item = take()) run_item(*item, queues);
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  for (auto& v : per_subject)
    for (auto& r : v) report.checks.push_back(std::move(r));
  if (opts.oracle_check) report.meta.reference_accuracy = reference_accuracy(oracle);
  report.meta.profile = recorder.profile();
  report.meta.profile.workers = jobs;
  report.meta.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

DeviceSummary summarize_device(const SelectedDevice& d) {
  DeviceSummary s;
  s.id = d.id;
  s.backend = d.entry.info.backend;
  s.name = d.entry.info.name;
  s.driver = d.entry.info.driver;
  s.api_version = d.entry.info.api_version;
  s.available = static_cast<bool>(d.entry.create);
  s.unavailable_reason = d.entry.unavailable;
  s.notes = d.entry.info.notes;
  return s;
}

}  // namespace gp
