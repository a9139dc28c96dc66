// `gradparity hunt`: the search for each op x dtype's worst inputs on each device
// (harness/hunt/, docs/hunt.md); what it finds is written as a cases file (docs/cases-files.md).
#include <fmt/core.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/commands.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "harness/hunt/hunt.hpp"

namespace gp::cli {

namespace {

// Values as C99 hexadecimal floats, which carry every bit (indices as integers).
nlohmann::json values_of(const HostTensor& t) {
  nlohmann::json out = nlohmann::json::array();
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    if (!is_float(t.dtype())) {
      out.push_back(static_cast<std::int64_t>(t.get(i)));
    } else {
      out.push_back(fmt::format("{:a}", t.get(i)));
    }
  }
  return out;
}

nlohmann::json tensor_of(const HostTensor& t) { return {{"shape", t.shape().dims()}, {"values", values_of(t)}}; }

std::string margin_text(double m) { return std::isfinite(m) ? fmt::format("{:.3g}", m) : "inf"; }

nlohmann::json entry_of(const HuntResult& r, std::uint64_t seed) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const HostTensor& t : r.worst.inputs) inputs.push_back(tensor_of(t));
  const std::string note = fmt::format(
      "hunt, seed {}: margin {} of {} on {} after {} evaluations{}", seed, margin_text(r.worst.margin), r.worst.check,
      r.device, r.evaluations, r.finding == Finding::none ? "" : std::string(" (") + finding_name(r.finding) + ")");
  return {{"case", r.worst.base->id}, {"note", note}, {"inputs", inputs}, {"cotangent", tensor_of(r.worst.cotangent)}};
}

void write_cases(const std::string& path, const std::vector<HuntResult>& results, std::uint64_t seed) {
  // One entry per line: a file of hundreds of groups stays readable and diffable.
  std::string text = "{\"cases\": [\n";
  bool first = true;
  for (const HuntResult& r : results) {
    if (!r.worst.base) continue;
    text.append(first ? "" : ",\n").append(entry_of(r, seed).dump());
    first = false;
  }
  write_file_atomically(path, text + "\n]}\n");
}

void print_table(const std::vector<HuntResult>& results) {
  fmt::print("{:<28} {:<22} {:>9} {:>8} {:>10}  {:<22} {}\n", "op dtype", "device", "evals", "seconds", "worst",
             "check", "finding");
  for (const HuntResult& r : results) {
    const std::string finding = r.finding == Finding::none ? "" : finding_name(r.finding);
    fmt::print("{:<28} {:<22} {:>9} {:>8.1f} {:>10}  {:<22} {}{}\n", r.group, r.device, r.evaluations, r.seconds,
               r.worst.base ? margin_text(r.worst.margin) : "-", r.worst.check, finding,
               r.detail.empty() ? "" : ": " + r.detail);
  }
}

}  // namespace

int hunt_command(const HuntCommand& cmd) {
  if (cmd.common.backends.empty()) throw UsageError("hunt needs --backend (for example cpu or opencl:0)");
  const std::vector<HuntGroup> groups = hunt_groups(select_cases(cmd.selection));
  if (groups.empty()) throw UsageError("the selection matches no catalog case");
  if (!cmd.out.empty()) require_writable_file(cmd.out, "--out");
  std::vector<SelectedDevice> devices = select_devices(cmd.common.backends, cmd.common.backend);
  std::vector<OpenedDevice> opened;
  for (const SelectedDevice& d : devices) {
    opened.push_back(open_device(d));
    if (!opened.back().backend) {
      fmt::print(stderr, "gradparity: {} cannot run: {}\n", d.id, opened.back().reason);
      return kUnavailableExit;
    }
  }
  HuntOptions opts;
  opts.seed = cmd.common.seed;
  opts.budget_seconds = cmd.budget;
  opts.evaluations = cmd.evaluations;
  // Every device x group is one item; workers take them in order, each with its own queues.
  const std::size_t total = devices.size() * groups.size();
  std::vector<HuntResult> results(total);
  std::atomic<std::size_t> next{0}, finished{0};
  std::mutex print;
  auto work = [&] {
    std::vector<std::unique_ptr<Queue>> queues(devices.size());
    for (std::size_t item; (item = next++) < total;) {
      const std::size_t d = item / groups.size();
      if (!queues[d]) queues[d] = opened[d].backend->create_queue();
      const DeviceContext device{devices[d].id, opened[d].backend.get(), queues[d].get()};
      const HuntGroup& group = groups[item % groups.size()];
      try {
        results[item] = hunt_group(group, device, opts);
      } catch (const std::exception& e) {  // a plugin's supports() or the reference gave up: this item only
        results[item].group = group.label();
        results[item].device = device.id;
        results[item].finding = Finding::device_error;
        results[item].detail = e.what();
      }
      if (!cmd.progress) continue;
      const HuntResult& r = results[item];
      std::lock_guard lock(print);
      fmt::print(stderr, "[{}/{}] {} on {}: {} evaluations, worst margin {}{}\n", ++finished, total, r.group, r.device,
                 r.evaluations, r.worst.base ? margin_text(r.worst.margin) : "-",
                 r.finding == Finding::none ? "" : std::string(" ") + finding_name(r.finding));
    }
  };
  std::vector<std::thread> workers;
  for (int j = 1; j < cmd.jobs; ++j) workers.emplace_back(work);
  work();
  for (auto& w : workers) w.join();

  print_table(results);
  if (!cmd.out.empty()) {
    write_cases(cmd.out, results, opts.seed);
    fmt::print("wrote each group's worst inputs to {} (--cases-file runs them)\n", cmd.out);
  }
  int found = 0;
  for (const HuntResult& r : results) found += r.finding != Finding::none && r.finding != Finding::unsupported;
  fmt::print("{} groups on {} devices: {} findings\n", groups.size(), devices.size(), found);
  return found > 0 ? 1 : 0;
}

}  // namespace gp::cli
