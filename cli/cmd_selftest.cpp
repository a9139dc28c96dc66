// `gradparity selftest`: how much a green run proves. Every selected case runs on one device
// through a perturbing decorator, once per fault class; the table says, per class, how many
// cases caught it, and per op family the detection threshold eps* of gradient x (1 + eps). A model
// or training run named with --op gets each fault class on one node's kernel at a time, and its
// detection table per node and fault class (harness/audit/model_selftest.hpp).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "harness/audit/large_selftest.hpp"
#include "harness/audit/model_selftest.hpp"
#include "harness/audit/selftest.hpp"
#include "harness/check/open_device.hpp"

namespace gp::cli {

namespace {

std::string fault_label(const Fault& f) {
  std::string s(fault_class_name(f.kind));
  if (f.epsilon > 0) s += fmt::format("({:g})", f.epsilon);
  return s;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(std::lround(q * static_cast<double>(v.size() - 1)))];
}

// Per fault class and dtype: the cases it applies to, those of them where it must be caught (a
// gross fault the case's bounds resolve), and what was caught and missed.
struct Tally {
  int applies = 0, must = 0, caught = 0, missed_must = 0;
};

nlohmann::json to_json(const SelectedDevice& d, const std::vector<CaseSelftest>& results) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json faults = nlohmann::json::array();
    for (const auto& f : r.faults)
      faults.push_back({{"fault", fault_label(f.fault)},
                        {"applies", f.applies},
                        {"must_catch", f.must_catch},
                        {"caught", f.caught},
                        {"evidence", f.evidence}});
    nlohmann::json c = {{"case_id", r.c->id}, {"family", r.c->family()}, {"faults", faults}};
    if (!r.baseline_problem.empty()) c["baseline_problem"] = r.baseline_problem;
    c["epsilon_star"] = std::isinf(r.epsilon_star) ? nlohmann::json("inf") : nlohmann::json(r.epsilon_star);
    cases.push_back(std::move(c));
  }
  return {{"device", d.id}, {"device_name", d.entry.info.name}, {"cases", cases}};
}

nlohmann::json to_json(const std::vector<ModelSelftest>& models) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : models) {
    nlohmann::json faults = nlohmann::json::array();
    for (const auto& f : m.outcomes)
      faults.push_back({{"node", f.label},
                        {"fault", fault_label(f.fault)},
                        {"caught", f.caught},
                        {"changes", f.changes},
                        {"at_node", f.at_node},
                        {"evidence", f.evidence}});
    nlohmann::json j = {{"case_id", m.subject->id()}, {"faults", faults}};
    if (!m.baseline_problem.empty()) j["baseline_problem"] = m.baseline_problem;
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json to_json(const std::vector<LargeSelftest>& large) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : large) {
    nlohmann::json faults = nlohmann::json::array();
    for (const auto& f : r.faults)
      faults.push_back({{"fault", fault_label(f.fault)},
                        {"tensor", f.tensor},
                        {"trials", f.trials},
                        {"caught", f.caught},
                        {"must_catch", f.must_catch},
                        {"evidence", f.evidence}});
    nlohmann::json j = {{"case_id", r.c->id}, {"faults", faults}};
    if (!r.baseline_problem.empty()) j["baseline_problem"] = r.baseline_problem;
    out.push_back(std::move(j));
  }
  return out;
}

// The large cases' table: per case and fault class, caught trials of all trials ("n/a" where the
// fault cannot change the case's results), and the first failing check.
void print_large_table(const std::vector<LargeSelftest>& large) {
  fmt::print("\nlarge tier: caught trials of each fault class (element_perturbed: one element anywhere)\n");
  for (const auto& r : large) {
    fmt::print("\n{}\n", r.c->id);
    if (!r.baseline_problem.empty()) {
      fmt::print("  baseline not clean: {}\n", r.baseline_problem);
      continue;
    }
    for (const auto& f : r.faults) {
      const std::string rate = f.trials ? fmt::format("{}/{}", f.caught, f.trials) : "n/a";
      const std::string label = fault_label(f.fault) + (f.tensor.empty() ? "" : " " + f.tensor);
      fmt::print("  {:<36} {:>7}  {}\n", label, rate, f.evidence);
    }
  }
}

// The primitive cases' tables: per fault class and dtype, and eps* per family and dtype.
void print_case_tables(const std::map<std::string, Tally>& by_fault,
                       const std::map<std::string, std::vector<double>>& eps_by_family) {
  fmt::print("{:<32} {:>8} {:>10} {:>8} {:>8} {:>12}\n", "fault class, dtype", "applies", "must catch", "caught",
             "missed", "missed must");
  for (const auto& [name, t] : by_fault)
    fmt::print("{:<32} {:>8} {:>10} {:>8} {:>8} {:>12}\n", name, t.applies, t.must, t.caught, t.applies - t.caught,
               t.missed_must);
  fmt::print("\ndetection threshold eps* of gradient x (1 + eps), per family and dtype:\n");
  fmt::print("{:<24} {:>6} {:>10} {:>10} {:>10}\n", "family dtype", "cases", "median", "p90", "max");
  for (const auto& [family, v] : eps_by_family)
    fmt::print("{:<24} {:>6} {:>10.3g} {:>10.3g} {:>10.3g}\n", family, v.size(), percentile(v, 0.5), percentile(v, 0.9),
               percentile(v, 1.0));
}

// A model's detection table: a row per fault class, a column per faulted node: "+" caught, "-"
// missed, "." the fault changed nothing the model computes.
void print_model_table(const ModelSelftest& m) {
  fmt::print("\n{} ({})\n", m.subject->id(), subject_kind_name(m.subject->kind()));
  if (!m.baseline_problem.empty()) return fmt::print("  baseline not clean: {}\n", m.baseline_problem);
  std::vector<std::string> faults;
  for (const auto& o : m.outcomes)
    if (std::find(faults.begin(), faults.end(), fault_label(o.fault)) == faults.end())
      faults.push_back(fault_label(o.fault));
  fmt::print("  {:<28}", "fault class / node");
  for (std::size_t n : m.nodes)
    fmt::print(" {:>16}", fmt::format("{} {}", n, op_name(m.subject->composite().decl.nodes[n].op)));
  fmt::print("  caught\n");
  for (const auto& f : faults) {
    fmt::print("  {:<28}", f);
    int caught = 0;
    for (const auto& o : m.outcomes)
      if (fault_label(o.fault) == f) {
        fmt::print(" {:>16}", o.caught ? "+" : o.changes ? "-" : ".");
        caught += o.caught;
      }
    fmt::print("  {}/{}\n", caught, m.nodes.size());
  }
}

}  // namespace

int selftest_command(const SelftestCommand& cmd) {
  // --sample thins the primitive cases; models run where --op names them.
  const std::vector<const CompositeSubject*> models = select_named_models(cmd.selection);
  std::vector<const Case*> cases = select_cases(cmd.selection);
  const std::vector<const Subject*> large_cases = select_large_cases(cmd.selection);
  if (cmd.sample > 0 && static_cast<int>(cases.size()) > cmd.sample) {
    // Every k-th case, so that every family of the selection keeps its share.
    std::vector<const Case*> every;
    every.reserve(static_cast<std::size_t>(cmd.sample));
    const double stride = static_cast<double>(cases.size()) / cmd.sample;
    for (int i = 0; i < cmd.sample; ++i) every.push_back(cases[static_cast<std::size_t>(i * stride)]);
    cases = every;
  }
  if (cmd.common.backends.size() != 1) throw UsageError("give exactly one --backend (for example cpu or opencl:0)");
  auto devices = select_devices(cmd.common.backends, cmd.common.backend);
  if (devices.size() != 1)
    throw UsageError("--backend " + cmd.common.backends[0] + " matches " + std::to_string(devices.size()) +
                     " devices; pick one, e.g. " + cmd.common.backends[0] + ":0");
  const SelectedDevice& device = devices[0];
  OpenedDevice opened = open_device(device);
  if (!opened.backend) {
    fmt::print(stderr, "gradparity: {}: {}\n", device.id, opened.reason);
    return 3;
  }
  std::unique_ptr<Backend> backend = std::move(opened.backend);
  SelftestOptions opts;
  opts.seed = cmd.common.seed;
  opts.numerical = cmd.common.numerical;

  std::vector<CaseSelftest> results;
  std::map<std::string, Tally> by_fault;
  std::map<std::string, std::vector<double>> eps_by_family;
  std::vector<std::string> baseline_failures, must_misses;
  int done = 0;
  for (const Case* c : cases) {
    if (cmd.progress) fmt::print(stderr, "[{}/{}] {}\n", ++done, cases.size(), c->id);
    if (!backend->supports(c->call).ok) continue;
    CaseSelftest r = selftest_case(*c, device, *backend, opts);
    if (!r.baseline_problem.empty()) baseline_failures.push_back(c->id + ": " + r.baseline_problem);
    for (const auto& f : r.faults) {
      Tally& t = by_fault[fault_label(f.fault) + " " + std::string(dtype_name(c->dtype))];
      if (!f.applies) continue;
      ++t.applies;
      t.must += f.must_catch;
      t.caught += f.caught;
      if (f.must_catch && !f.caught) {
        ++t.missed_must;
        must_misses.push_back(fmt::format("{} missed {}", c->id, fault_label(f.fault)));
      }
    }
    if (r.baseline_problem.empty() && r.epsilon_star > 0)
      eps_by_family[c->family() + " " + std::string(dtype_name(c->dtype))].push_back(r.epsilon_star);
    results.push_back(std::move(r));
  }

  std::vector<ModelSelftest> model_results;
  for (const CompositeSubject* m : models) {
    if (cmd.progress) fmt::print(stderr, "model {}\n", m->id());
    if (!m->supports(*backend).ok) continue;
    model_results.push_back(selftest_model(*m, device, *backend, opts));
    if (!model_results.back().baseline_problem.empty())
      baseline_failures.push_back(m->id() + ": " + model_results.back().baseline_problem);
  }

  std::vector<LargeSelftest> large_results;
  const std::unique_ptr<ReferenceCache> cache = open_reference_cache(cmd.common);
  const LargeSelftestOptions large_opts{{cmd.common.seed, cmd.common.numerical, cache.get(), cmd.common.sample},
                                        cmd.positions};
  for (const Subject* s : large_cases) {
    if (cmd.progress) fmt::print(stderr, "large {}\n", s->id());
    if (!s->supports(*backend).ok) continue;
    large_results.push_back(selftest_large_case(*s->large_case(), device, *backend, large_opts));
    if (!large_results.back().baseline_problem.empty())
      baseline_failures.push_back(s->id() + ": " + large_results.back().baseline_problem);
    for (const auto& f : large_results.back().faults)
      if (f.must_catch && f.caught < f.trials)
        must_misses.push_back(fmt::format("{} missed {}", s->id(), fault_label(f.fault)));
  }

  fmt::print("selftest on {} ({}), seed {}: {} cases, {} models, {} large cases\n\n", device.id, device.entry.info.name,
             cmd.common.seed, results.size(), model_results.size(), large_results.size());
  if (!results.empty()) print_case_tables(by_fault, eps_by_family);
  for (const auto& m : model_results) print_model_table(m);
  if (!large_results.empty()) print_large_table(large_results);
  for (const auto& b : baseline_failures) fmt::print("baseline not clean: {}\n", b);
  for (const auto& m : must_misses) fmt::print("MISSED (must catch): {}\n", m);

  if (!cmd.report_dir.empty()) {
    std::filesystem::create_directories(cmd.report_dir);
    const auto path = std::filesystem::path(cmd.report_dir) / "selftest.json";
    nlohmann::json doc = to_json(device, results);
    doc["models"] = to_json(model_results);
    doc["large_cases"] = to_json(large_results);
    std::ofstream(path) << doc.dump(1) << "\n";
    fmt::print("report: {}\n", path.string());
  }
  return baseline_failures.empty() && must_misses.empty() ? 0 : 1;
}

}  // namespace gp::cli
