// `gradparity repro` and `gradparity dump` of a composite model id: its three checks on one
// backend, and every tensor of the graph (reference and backend) as .npy files.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "harness/graph/composite.hpp"
#include "harness/graph/model_subject.hpp"
#include "reports/npy.hpp"

namespace gp::cli {

namespace {

struct OneComposite {
  SelectedDevice device;
  std::unique_ptr<PreparedSubject> prepared;
  std::vector<CheckResult> checks;
  CompositeTensors device_tensors;
  const CompositeReference& ref() const { return static_cast<const PreparedComposite&>(*prepared).reference(); }
};

// A model, a training run or a large case (the subject decides which checks) on the one device;
// `keep_all` (models and training runs): every tensor the device computed, for dump.
OneComposite run_one(const OneCaseCommand& cmd, const Subject& subject, bool keep_all) {
  const RunContext run{cmd.common.seed, cmd.common.numerical, nullptr, cmd.common.sample};
  OneComposite one{select_one_device(cmd), subject.prepare(run), {}, {}};
  one.checks = one.prepared->check_reference(run);
  OpenedDevice opened = open_device(one.device);
  if (!opened.backend) {
    CheckResult r = subject.blank(one.device.id, cmd.common.seed);
    r.verdict = Verdict::skip;
    r.reason_kind = opened.unusable;
    r.reason = opened.reason;
    one.checks.push_back(r);
    return one;
  }
  auto queue = opened.backend->create_queue();
  for (auto& r : one.prepared->check_on(DeviceContext{one.device.id, opened.backend.get(), queue.get()}, run))
    one.checks.push_back(std::move(r));
  if (keep_all && std::none_of(one.checks.begin(), one.checks.end(), [](const CheckResult& r) {
        return r.verdict == Verdict::error || (r.verdict == Verdict::skip && r.part.empty());
      }))
    one.device_tensors = run_composite_keeping_all(static_cast<const CompositeSubject&>(subject).composite(),
                                                   *opened.backend, *queue, one.ref());
  return one;
}

}  // namespace

int repro_composite(const OneCaseCommand& cmd, const Subject& subject) {
  const Composite& c = static_cast<const CompositeSubject&>(subject).composite();
  OneComposite one = run_one(cmd, subject, false);
  fmt::print("model {} on {} ({}), seed {}\n{}\n", c.id, one.device.id, one.device.entry.info.name, cmd.common.seed,
             c.decl.formulation);
  // Node checks that pass are many (a GRU has 180 nodes): only the `worst` closest to their bound.
  std::vector<const CheckResult*> nodes;
  for (const auto& r : one.checks)
    if (r.direction == Direction::node && r.verdict == Verdict::pass) nodes.push_back(&r);
  std::sort(nodes.begin(), nodes.end(), [](auto a, auto b) { return a->metrics.margin > b->metrics.margin; });
  if (nodes.size() > static_cast<std::size_t>(cmd.worst)) nodes.resize(static_cast<std::size_t>(cmd.worst));
  std::size_t hidden = 0;
  for (const auto& r : one.checks) {
    if (r.direction == Direction::node && r.verdict == Verdict::pass &&
        std::find(nodes.begin(), nodes.end(), &r) == nodes.end()) {
      ++hidden;
      continue;
    }
    fmt::print("{:<10} {:<10} {:<48} max_abs {:.4g}  max_rel {:.4g}  margin {:.4g}\n", verdict_name(r.verdict),
               r.backend, check_label(r), r.metrics.max_abs, r.metrics.max_rel, r.metrics.margin);
    if (!r.reason.empty()) fmt::print("           {}\n", r.reason);
  }
  if (hidden) fmt::print("({} more passing node checks, farther from their bounds)\n", hidden);
  return exit_code(one.checks);
}

int repro_large(const OneCaseCommand& cmd, const Subject& subject) {
  OneComposite one = run_one(cmd, subject, false);
  fmt::print("large case {} on {} ({}), seed {}, sampled comparisons (docs/scale.md)\n", subject.id(), one.device.id,
             one.device.entry.info.name, cmd.common.seed);
  for (const auto& r : one.checks) {
    fmt::print("{:<10} {:<28} max_abs {:.4g}  max_rel {:.4g}  margin {:.4g}  {} of {} elements\n",
               verdict_name(r.verdict), std::string(r.backend) + " " + check_label(r), r.metrics.max_abs,
               r.metrics.max_rel, r.metrics.margin, r.metrics.elements, r.metrics.tensor_elements);
    if (!r.reason.empty()) fmt::print("           {}\n", r.reason);
  }
  return exit_code(one.checks);
}

int dump_composite(const OneCaseCommand& cmd, const Subject& subject) {
  const Composite& c = static_cast<const CompositeSubject&>(subject).composite();
  OneComposite one = run_one(cmd, subject, true);
  DumpFolder folder(cmd.out_dir);
  const std::filesystem::path& dir = folder.dir;
  const std::vector<std::string>& written = folder.written;
  auto put = [&](const std::string& name, const HostTensor& t) { folder.put(name, t); };
  const std::string tag = DumpFolder::device_tag(one.device.id);
  for (const auto& [name, t] : one.ref().exact.value) put("reference_" + name + ".npy", widen(t));
  for (const auto& [name, t] : one.ref().exact.grad) put("reference_grad_" + name + ".npy", widen(t));
  for (const auto& [name, t] : one.device_tensors.values) put(fmt::format("{}_{}.npy", tag, name), t);
  for (const auto& [name, t] : one.device_tensors.grads) put(fmt::format("{}_grad_{}.npy", tag, name), t);
  std::ofstream meta(dir / "README.txt");
  meta << "model " << c.id << "\n"
       << c.decl.formulation << "\nbackend " << one.device.id << " (" << one.device.entry.info.name << ")\nseed "
       << cmd.common.seed
       << "\nreference arrays: the long-double reference rounded to float64 (leaves: the inputs both sides got)\n"
       << "nodes (output = op(inputs), layer):\n";
  for (const auto& n : c.decl.nodes) {
    meta << "  " << n.output << " = " << op_name(n.op) << "(";
    for (std::size_t k = 0; k < n.inputs.size(); ++k) meta << (k ? ", " : "") << n.inputs[k];
    meta << ")  " << n.layer << "\n";
  }
  meta << "files:\n";
  for (const auto& w : written) meta << "  " << w << "\n";
  fmt::print("wrote {} arrays to {}\n", written.size(), dir.string());
  return exit_code(one.checks);
}

}  // namespace gp::cli
