#include "harness/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <regex>
#include <thread>

#include "core/error.hpp"
#include "harness/composite.hpp"
#include "harness/oracle_check.hpp"

namespace gp {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// A device as used by one run: its instance and whether it is still usable.
struct DeviceState {
  const SelectedDevice* selected;
  std::unique_ptr<Backend> backend;
  std::string unusable;  // reason, when the device cannot run cases
  std::mutex mutex;      // guards `unusable` after a device loss
};

void init_device(DeviceState& s) {
  if (!s.selected->entry.create) {
    s.unusable = s.selected->entry.unavailable.empty() ? "device unavailable" : s.selected->entry.unavailable;
    return;
  }
  try {
    s.backend = s.selected->entry.create();
  } catch (const std::exception& e) {
    s.unusable = std::string("could not open device: ") + e.what();
  }
}

std::vector<CheckResult> run_case_on(const Case& c, DeviceState& dev, Queue* queue, const ReferenceData* data,
                                     const RunOptions& opts) {
  const std::string& id = dev.selected->id;
  std::string unusable;
  {
    std::lock_guard lock(dev.mutex);
    unusable = dev.unusable;
  }
  auto skip = [&](const std::string& why) {
    CheckResult r = blank_result(c, id, Direction::forward, -1, opts.seed);
    r.verdict = Verdict::skip;
    r.reason = why;
    return std::vector<CheckResult>{r};
  };
  if (!unusable.empty()) return skip(unusable);
  Support s;
  try {
    s = dev.backend->supports(c.call);
  } catch (const std::exception& e) {  // a plugin's supports() may fail: an ERROR, not a SKIP
    CheckResult r = blank_result(c, id, Direction::forward, -1, opts.seed);
    r.verdict = Verdict::error;
    r.reason = e.what();
    return {r};
  }
  if (!s.ok) return skip(s.reason);
  if (!data || !queue) return skip("reference data unavailable");
  try {
    return check_on_backend(c, id, *dev.backend, *queue, *data, opts.seed, opts.numerical);
  } catch (const DeviceLost& e) {
    std::lock_guard lock(dev.mutex);
    dev.unusable = std::string("device lost earlier in this run: ") + e.what();
    CheckResult r = blank_result(c, id, Direction::forward, -1, opts.seed);
    r.verdict = Verdict::error;
    r.reason = e.what();
    return {r};
  }
}

// The checks of a composite on one device, as run_case_on for a primitive case.
std::vector<CheckResult> run_composite_on(const Composite& c, DeviceState& dev, Queue* queue,
                                          const CompositeReference* ref, const RunOptions& opts) {
  const std::string& id = dev.selected->id;
  std::string unusable;
  {
    std::lock_guard lock(dev.mutex);
    unusable = dev.unusable;
  }
  auto single = [&](Verdict v, const std::string& why) {
    CheckResult r = blank_composite_result(c, id, Direction::forward, "", opts.seed);
    r.verdict = v;
    r.reason = why;
    return std::vector<CheckResult>{r};
  };
  if (!unusable.empty()) return single(Verdict::skip, unusable);
  if (!ref || !queue) return single(Verdict::skip, "reference data unavailable");
  try {
    return check_composite_on_backend(c, id, *dev.backend, *queue, *ref, opts.seed);
  } catch (const DeviceLost& e) {
    std::lock_guard lock(dev.mutex);
    dev.unusable = std::string("device lost earlier in this run: ") + e.what();
    return single(Verdict::error, e.what());
  }
}

// Reference, reference numerics and every device's checks of one composite.
std::vector<CheckResult> run_composite(const Composite& c, std::vector<std::unique_ptr<DeviceState>>& states,
                                       std::vector<std::unique_ptr<Queue>>& queues, const RunOptions& opts) {
  std::vector<CheckResult> out;
  std::unique_ptr<CompositeReference> ref;
  try {
    ref = std::make_unique<CompositeReference>(prepare_composite_reference(c, opts.seed));
    if (opts.reference_checks)
      for (auto& r : check_composite_reference(c, *ref, opts.seed)) out.push_back(std::move(r));
  } catch (const std::exception& e) {
    CheckResult r = blank_composite_result(c, "reference", Direction::forward, "", opts.seed);
    r.verdict = Verdict::error;
    r.reason = std::string("reference failed: ") + e.what();
    out.push_back(std::move(r));
    ref.reset();
  }
  for (std::size_t d = 0; d < states.size(); ++d)
    for (auto& r : run_composite_on(c, *states[d], queues[d].get(), ref.get(), opts)) out.push_back(std::move(r));
  return out;
}

}  // namespace

void parse_shard(const std::string& text, Selection& sel) {
  int i = 0, n = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &i, &slash, &n, &extra) != 3 || slash != '/' || n < 1 || i < 1 || i > n)
    throw UsageError("malformed --shard '" + text + "': expected I/N with 1 <= I <= N, e.g. 2/4");
  sel.shard_index = i;
  sel.shard_count = n;
}

std::vector<const Case*> select_cases(const Selection& sel) {
  const std::vector<std::string> models = model_names();
  for (const auto& o : sel.ops) {
    if (!parse_op(o) && std::count(models.begin(), models.end(), o) == 0) {
      std::vector<std::string> names;
      for (OpKind k : all_ops()) names.emplace_back(op_name(k));
      throw UsageError("unknown op '" + o + "'; valid ops: " + join(names) + "; models: " + join(models));
    }
  }
  for (const auto& d : sel.dtypes)
    if (!parse_dtype(d) || !is_float(*parse_dtype(d)))
      throw UsageError("unknown dtype '" + d + "'; valid dtypes: f16, bf16, f32, f64");
  std::regex re;
  try {
    re = std::regex(sel.filter.empty() ? ".*" : sel.filter);
  } catch (const std::regex_error& e) {
    throw UsageError("malformed --filter regex '" + sel.filter + "': " + e.what());
  }
  std::vector<const Case*> out;
  std::size_t index = 0;
  for (const auto& c : all_cases()) {
    const bool op_ok = sel.ops.empty() || std::count(sel.ops.begin(), sel.ops.end(), std::string(op_name(c.decl.op)));
    const bool dt_ok =
        sel.dtypes.empty() || std::count(sel.dtypes.begin(), sel.dtypes.end(), std::string(dtype_name(c.dtype)));
    if (!op_ok || !dt_ok || !std::regex_search(c.id, re)) continue;
    if (static_cast<int>(index++ % static_cast<std::size_t>(sel.shard_count)) == sel.shard_index - 1) out.push_back(&c);
  }
  return out;
}

std::vector<const Composite*> select_composites(const Selection& sel) {
  select_cases(sel);  // the same validation of every option
  const std::regex re(sel.filter.empty() ? ".*" : sel.filter);
  std::vector<const Composite*> out;
  std::size_t index = 0;
  for (const auto& c : all_composites()) {
    const bool op_ok = sel.ops.empty() || std::count(sel.ops.begin(), sel.ops.end(), c.decl.model);
    const bool dt_ok =
        sel.dtypes.empty() || std::count(sel.dtypes.begin(), sel.dtypes.end(), std::string(dtype_name(c.dtype)));
    if (!op_ok || !dt_ok || !std::regex_search(c.id, re)) continue;
    if (static_cast<int>(index++ % static_cast<std::size_t>(sel.shard_count)) == sel.shard_index - 1) out.push_back(&c);
  }
  return out;
}

RunReport run_parity(const std::vector<const Case*>& cases, const std::vector<SelectedDevice>& devices,
                     const RunOptions& opts, const std::vector<const Composite*>& composites) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<DeviceState>> states;
  for (const auto& d : devices) {
    states.push_back(std::make_unique<DeviceState>());
    states.back()->selected = &d;
    init_device(*states.back());
  }
  RunReport report;
  report.meta.seed = opts.seed;
  for (const auto& d : devices) report.meta.devices.push_back(summarize_device(d));

  // Work items: the cases, then the composites.
  const std::size_t items = cases.size() + composites.size();
  std::vector<std::vector<CheckResult>> per_case(items);
  // The oracle check of the reference (metadata), light profile, on the reference data the
  // workers prepare anyway (preparing it a second time would cost more than the check).
  std::vector<OracleCaseResult> oracle(opts.oracle_check ? cases.size() : 0);
  // Against the bounds of this run's devices, which the backend checks compute anyway.
  OracleOptions oracle_options = light_oracle_options();
  for (const auto& s : states)
    if (s->backend && s->backend->info().math)
      oracle_options.devices.push_back({s->backend->info().math, s->backend->info().may_flush_subnormals});
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex print_mutex;
  const bool tty = isatty(STDERR_FILENO);
  auto report_progress = [&](const std::string& id) {
    const std::size_t n = ++done;
    if (!opts.progress) return;
    std::lock_guard lock(print_mutex);
    if (tty) {
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", n, items, id.c_str());
      if (n == items) std::fputc('\n', stderr);
    } else if (n == items || n % std::max<std::size_t>(1, items / 10) == 0) {
      std::fprintf(stderr, "[%zu/%zu] cases done\n", n, items);
    }
  };
  auto worker = [&] {
    // Queues belong to one thread (backend contract): each worker opens its own.
    std::vector<std::unique_ptr<Queue>> queues(states.size());
    for (std::size_t d = 0; d < states.size(); ++d) {
      if (!states[d]->backend) continue;
      try {
        queues[d] = states[d]->backend->create_queue();
      } catch (const std::exception& e) {
        std::lock_guard lock(states[d]->mutex);
        states[d]->unusable = std::string("could not create a queue: ") + e.what();
      }
    }
    auto stopped = [&] { return opts.stop && opts.stop->load(); };
    for (std::size_t i; !stopped() && (i = next++) < items;) {
      if (i >= cases.size()) {
        const Composite& m = *composites[i - cases.size()];
        if (opts.on_item_start) opts.on_item_start(m.id);
        per_case[i] = run_composite(m, states, queues, opts);
        if (opts.on_item_done) opts.on_item_done(m.id, per_case[i]);
        report_progress(m.id);
        continue;
      }
      const Case& c = *cases[i];
      if (opts.on_item_start) opts.on_item_start(c.id);
      std::vector<CheckResult>& out = per_case[i];
      std::unique_ptr<ReferenceData> data;
      try {
        data = std::make_unique<ReferenceData>(prepare_reference(c, opts.seed));
        if (opts.reference_checks)
          for (auto& r : check_reference_numerics(c, *data, opts.seed, opts.numerical)) out.push_back(std::move(r));
        if (opts.oracle_check) {
          try {
            oracle[i] = oracle_check_case(c, *data, opts.seed, oracle_options);
          } catch (const std::exception& e) {  // reported in the metadata, not as a check of the case
            oracle[i].case_id = c.id;
            oracle[i].error = e.what();
          }
        }
      } catch (const std::exception& e) {
        CheckResult r = blank_result(c, "reference", Direction::forward, -1, opts.seed);
        r.verdict = Verdict::error;
        r.reason = std::string("reference failed: ") + e.what();
        out.push_back(std::move(r));
        data.reset();
      }
      for (std::size_t d = 0; d < states.size(); ++d)
        for (auto& r : run_case_on(c, *states[d], queues[d].get(), data.get(), opts)) out.push_back(std::move(r));
      if (opts.on_item_done) opts.on_item_done(c.id, out);
      report_progress(c.id);
    }
  };
  const int jobs = std::max(1, opts.jobs);
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  for (auto& v : per_case)
    for (auto& r : v) report.checks.push_back(std::move(r));
  if (opts.oracle_check) report.meta.reference_accuracy = reference_accuracy(oracle);
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
