// `gradparity repro` and `gradparity dump`: one case on one backend, in detail.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "harness/check/compare.hpp"
#include "harness/check/invalid_call_subject.hpp"
#include "harness/check/special_value_subject.hpp"
#include "harness/check/tolerance.hpp"
#include "reports/npy.hpp"

namespace gp::cli {

namespace {

struct OneCase {
  const Case* c = nullptr;
  SelectedDevice device;
  ReferenceData data;
  BackendOutputs outputs;
  std::vector<CheckResult> checks;
};

OneCase run_one(const OneCaseCommand& cmd, const Case& c) {
  OneCase one;
  one.c = &c;
  one.device = select_one_device(cmd);
  one.data = prepare_reference(*one.c, cmd.common.seed);
  one.checks = check_reference_numerics(*one.c, one.data, cmd.common.seed, cmd.common.numerical);
  auto skip = [&](ReasonKind kind, const std::string& why) {
    CheckResult r = blank_result(*one.c, one.device.id, Direction::forward, -1, cmd.common.seed);
    r.verdict = Verdict::skip;
    r.reason_kind = kind;
    r.reason = why;
    one.checks.push_back(r);
    return one;
  };
  OpenedDevice opened = open_device(one.device);
  if (!opened.backend) return skip(opened.unusable, opened.reason);
  Backend* backend = opened.backend.get();
  if (Support s = backend->supports(one.c->call); !s.ok) return skip(ReasonKind::unsupported, s.reason);
  auto queue = backend->create_queue();
  for (auto& r : check_on_backend(*one.c, {one.device.id, &*backend, &*queue}, one.data,
                                  {cmd.common.seed, cmd.common.numerical}, {nullptr, &one.outputs}))
    one.checks.push_back(std::move(r));
  return one;
}

// `expected` carries the error bounds under the device's math profile (the reference's part of
// each element's bound, before a 16-bit store's rounding); `check` judged this tensor.
void print_worst(const std::string& title, const ref::RefTensor& expected, const HostTensor& got, int count,
                 const CheckResult* check) {
  const std::int64_t judged = check ? check->metrics.worst.index : -1;
  const std::vector<std::int64_t> rows = worst_elements(expected, got, count, judged);
  if (rows.empty()) return;
  fmt::print(
      "  worst elements of {} (by error over bound; * the check's worst):\n  {:>9} {:>24} {:>24} {:>12} {:>12}\n",
      title, "index", "expected", "got", "abs err", "bound");
  for (const std::int64_t i : rows) {
    const auto at = static_cast<std::size_t>(i);
    const double e = static_cast<double>(expected.v[at]);
    fmt::print("  {:>8}{} {:>24.17g} {:>24.17g} {:>12.4g} {:>12.4g}\n", i, i == judged ? '*' : ' ', e, got.get(i),
               std::fabs(got.get(i) - e), expected.err.empty() ? 0.0 : propagated_error(expected.err[at]));
  }
}

const CheckResult* check_of(const std::vector<CheckResult>& checks, Direction direction, int input) {
  for (const auto& r : checks)
    if (r.direction == direction && (direction == Direction::forward || r.input == input)) return &r;
  return nullptr;
}

// A tensor the backend produced. Inputs without a gradient, and everything of a backend that
// skipped the case, hold a default tensor: shape () but no bytes, not a scalar.
bool produced(const HostTensor& t) { return t.bytes() > 0; }

}  // namespace

SelectedDevice select_one_device(const OneCaseCommand& cmd) {
  if (cmd.common.backends.size() != 1) throw UsageError("give exactly one --backend (for example cpu or opencl:0)");
  auto devices = select_devices(cmd.common.backends, cmd.common.backend);
  if (devices.size() != 1)
    throw UsageError("--backend " + cmd.common.backends[0] + " matches " + std::to_string(devices.size()) +
                     " devices; pick one, e.g. " + cmd.common.backends[0] + ":0");
  return devices[0];
}

HostTensor widen(const ref::RefTensor& t) {
  HostTensor h(DType::f64, t.shape);
  for (std::int64_t i = 0; i < t.numel(); ++i) h.set(i, static_cast<double>(t.v[static_cast<std::size_t>(i)]));
  return h;
}

DumpFolder::DumpFolder(const std::string& d) : dir(d) { std::filesystem::create_directories(dir); }

std::string DumpFolder::device_tag(const std::string& device_id) {
  std::string tag = device_id;
  if (const auto slash = tag.rfind('/'); slash != std::string::npos)
    tag = tag.substr(0, tag.find(':') + 1) + tag.substr(slash + 1);
  std::replace(tag.begin(), tag.end(), ':', '_');
  return tag;
}

void DumpFolder::put(const std::string& name, const HostTensor& t) {
  write_npy(dir / name, t);
  written.push_back(name);
}

int exit_code(const std::vector<CheckResult>& checks) {
  for (const auto& r : checks)
    if (r.verdict == Verdict::fail || r.verdict == Verdict::error) return 1;
  return 0;
}

// A call the catalog refuses: the one check is whether the device's supports() refuses it.
int repro_refusal(const OneCaseCommand& cmd, const InvalidCall& call) {
  const SelectedDevice device = select_one_device(cmd);
  fmt::print("call {} on {} ({}): the catalog refuses it ({})\n", call.c.id, device.id, device.entry.info.name,
             call.problem);
  OpenedDevice opened = open_device(device);
  if (!opened.backend) throw UsageError(device.id + " cannot be used: " + opened.reason);
  const CheckResult r =
      check_refusal(call.c, call.problem, {device.id, opened.backend.get(), nullptr}, cmd.common.seed);
  fmt::print("{:<10} {} {}\n           {}\n", verdict_name(r.verdict), r.backend, check_label(r), r.reason);
  return exit_code({r});
}

// An op at IEEE special values: its checks against the exact sets of docs/special-values.md, the
// wrong elements named with their inputs.
int repro_special_values(const OneCaseCommand& cmd, const Case& c) {
  const SelectedDevice device = select_one_device(cmd);
  fmt::print("case {} on {} ({}): IEEE special values, exact sets (docs/special-values.md)\n", c.id, device.id,
             device.entry.info.name);
  OpenedDevice opened = open_device(device);
  if (!opened.backend) throw UsageError(device.id + " cannot be used: " + opened.reason);
  if (const Support s = opened.backend->supports(c.call); !s.ok) {
    fmt::print("SKIP       {}: {}\n", device.id, s.reason);
    return 0;
  }
  auto queue = opened.backend->create_queue();
  const std::vector<CheckResult> checks =
      check_special_values(c, {device.id, opened.backend.get(), queue.get()}, cmd.common.seed);
  for (const auto& r : checks) {
    fmt::print("{:<10} {} {}\n", verdict_name(r.verdict), r.backend, check_label(r));
    if (!r.reason.empty()) fmt::print("           {}\n", r.reason);
  }
  return exit_code(checks);
}

int repro_command(const OneCaseCommand& cmd) {
  const Subject& subject = require_subject(cmd.case_id);
  if (const auto* invalid = dynamic_cast<const InvalidCallSubject*>(&subject))
    return repro_refusal(cmd, invalid->call());
  if (const auto* special = dynamic_cast<const SpecialValueSubject*>(&subject))
    return repro_special_values(cmd, special->special_case());
  if (subject.tier() == Tier::large) return repro_large(cmd, subject);
  if (!subject.primitive_case()) return repro_composite(cmd, subject);
  OneCase one = run_one(cmd, *subject.primitive_case());
  fmt::print("case {} on {} ({}), seed {}\n", one.c->id, one.device.id, one.device.entry.info.name, cmd.common.seed);
  for (const auto& r : one.checks) {
    fmt::print(
        "{:<10} {:<28} max_abs {:.4g}  max_rel {:.4g}  max_ulp {:.4g}  margin {:.4g}  sensitivity {:.3g} ulp  [{}]\n",
        verdict_name(r.verdict), std::string(r.backend) + " " + check_label(r), r.metrics.max_abs, r.metrics.max_rel,
        r.metrics.max_ulp, r.metrics.margin, r.metrics.sensitivity_ulp, r.tolerance);
    if (!r.reason.empty()) fmt::print("           {}\n", r.reason);
  }
  if (produced(one.outputs.output)) {
    const DeviceInfo& info = one.device.entry.info;
    const ref::Bounded& b = one.data.bounded(info.math, info.may_flush_subnormals);
    print_worst("the output", b.output, one.outputs.output, cmd.worst, check_of(one.checks, Direction::forward, -1));
    for (std::size_t k = 0; k < one.outputs.grads.size(); ++k)
      if (produced(one.outputs.grads[k]))
        print_worst("the gradient of input " + std::to_string(k), b.grads[k], one.outputs.grads[k], cmd.worst,
                    check_of(one.checks, Direction::backward, static_cast<int>(k)));
  }
  return exit_code(one.checks);
}

int dump_command(const OneCaseCommand& cmd) {
  if (cmd.out_dir.empty()) throw UsageError("dump needs --out DIR");
  const Subject& subject = require_subject(cmd.case_id);
  if (subject.tier() == Tier::large)
    throw UsageError("dump takes small-tier cases and models: " + subject.id() +
                     " is a large case, whose reference is evaluated on a sample only (docs/scale.md)");
  if (dynamic_cast<const InvalidCallSubject*>(&subject))
    throw UsageError("dump takes small-tier cases and models: " + subject.id() +
                     " is a call the catalog refuses, which nothing computes (docs/invalid-calls.md)");
  if (dynamic_cast<const SpecialValueSubject*>(&subject))
    throw UsageError("dump takes small-tier cases and models: " + subject.id() +
                     " is a special-values case, whose inputs and expected values docs/special-values.md lists");
  if (!subject.primitive_case()) return dump_composite(cmd, subject);
  OneCase one = run_one(cmd, *subject.primitive_case());
  DumpFolder folder(cmd.out_dir);
  const std::filesystem::path& dir = folder.dir;
  const std::vector<std::string>& written = folder.written;
  auto put = [&](const std::string& name, const HostTensor& t) { folder.put(name, t); };
  for (std::size_t k = 0; k < one.data.inputs.size(); ++k)
    put("input" + std::to_string(k) + ".npy", one.data.inputs[k]);
  put("cotangent.npy", one.data.cotangent);
  put("reference_output.npy", widen(one.data.output));
  const std::string tag = DumpFolder::device_tag(one.device.id);
  for (std::size_t k = 0; k < one.data.grads.size(); ++k)
    if (!one.data.grads[k].v.empty()) put("reference_grad" + std::to_string(k) + ".npy", widen(one.data.grads[k]));
  if (produced(one.outputs.output)) put(tag + "_output.npy", one.outputs.output);
  for (std::size_t k = 0; k < one.outputs.grads.size(); ++k)
    if (produced(one.outputs.grads[k])) put(tag + "_grad" + std::to_string(k) + ".npy", one.outputs.grads[k]);
  std::ofstream meta(dir / "README.txt");
  meta << "case " << one.c->id << "\nbackend " << one.device.id << " (" << one.device.entry.info.name << ")\nseed "
       << cmd.common.seed << "\nreference arrays: the long-double reference rounded to float64\nfiles:\n";
  for (const auto& w : written) meta << "  " << w << "\n";
  fmt::print("wrote {} arrays to {}\n", written.size(), dir.string());
  return exit_code(one.checks);
}

}  // namespace gp::cli
