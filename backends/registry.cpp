#include "backends/registry.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "core/error.hpp"

namespace gp {

std::vector<BackendProvider> generated_backend_providers();  // from the CMake-generated table

const std::vector<BackendProvider>& backend_providers() {
  static const std::vector<BackendProvider> providers = generated_backend_providers();
  return providers;
}

FoundFault find_fault(std::string_view name) {
  for (const auto& p : backend_providers())
    for (const auto& f : p.faults)
      if (f.name == name) return {p.name, &f};
  return {};
}

std::vector<std::string> fault_names() {
  std::vector<std::string> names;
  for (const auto& p : backend_providers())
    for (const auto& f : p.faults) names.push_back(f.name + " (" + p.name + ")");
  return names;
}

std::vector<DeviceEntry> name_one_to_load(const std::string& backend, std::string what, std::string how) {
  DeviceEntry e;
  e.info.backend = backend;
  e.info.name = std::move(what);
  e.unavailable = std::move(how);
  return {std::move(e)};
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& p : backend_providers()) names.push_back(p.name);
  return names;
}

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string joined_names() {
  std::string s;
  for (const auto& n : backend_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::vector<SelectedDevice> select_devices(const std::vector<std::string>& wanted, const BackendOptions& given) {
  BackendOptions opts = given;
  if (opts.cache_dir.empty())
    if (const char* env = std::getenv("GRADPARITY_CACHE_DIR")) opts.cache_dir = env;
  if (const char* env = std::getenv("GP_VK_VALIDATION"); env && std::string(env) == "1") opts.vulkan_validation = true;
  std::vector<SelectedDevice> out;
  // `prefix` + index names a device: "opencl:" for a provider, "plugin:PATH:" for a library.
  auto add_entries = [&](const std::string& what, const std::string& prefix, std::vector<DeviceEntry> entries,
                         const std::string& selector) {
    auto listed = [&] {
      std::string have;
      for (std::size_t i = 0; i < entries.size(); ++i)
        have += (have.empty() ? "" : ", ") + prefix + std::to_string(i) + " (" + entries[i].info.name + ")";
      return have.empty() ? std::string("none") : have;
    };
    // A selector of digits is an index and nothing else: a device name with that digit in it
    // ("avx512", "device 1") must not stand in for a device that is not there.
    const bool is_index = !selector.empty() && std::all_of(selector.begin(), selector.end(),
                                                           [](unsigned char ch) { return std::isdigit(ch) != 0; });
    const std::size_t index = is_index && selector.size() <= 9 ? std::stoul(selector) : entries.size();
    if (is_index && index >= entries.size())
      throw UsageError("no " + what + " device " + selector + ": " +
                       (entries.empty() ? std::string("it has none")
                                        : "its device indices go from 0 to " + std::to_string(entries.size() - 1) +
                                              "; devices: " + listed()));
    bool any = false;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      std::string id = entries.size() == 1 && !entries[i].create ? what : prefix + std::to_string(i);
      if (what == "cpu") id = "cpu";
      const bool match =
          selector.empty() ||
          (is_index ? i == index : lower(entries[i].info.name).find(lower(selector)) != std::string::npos);
      if (!match) continue;
      any = true;
      if (std::none_of(out.begin(), out.end(), [&](const SelectedDevice& d) { return d.id == id; }))
        out.push_back({id, entries[i]});
    }
    if (!any) throw UsageError("no " + what + " device matches '" + selector + "'; devices: " + listed());
  };
  auto add_provider = [&](const BackendProvider& p, const std::string& selector) {
    add_entries(p.name, p.name + ":", p.discover(opts), selector);
  };
  // "PATH" or "PATH:DEVICE": a device selector is a last ':' after the last '/'.
  auto add_library = [&](const BackendProvider& p, const std::string& argument) {
    const auto colon = argument.rfind(':');
    const auto slash = argument.rfind('/');
    const bool has_device = colon != std::string::npos && (slash == std::string::npos || colon > slash);
    const std::string path = has_device ? argument.substr(0, colon) : argument;
    add_entries(p.name + ":" + path, p.name + ":" + path + ":", p.load(path, opts),
                has_device ? argument.substr(colon + 1) : "");
  };
  if (wanted.empty()) {
    for (const auto& p : backend_providers())
      if (!p.load) add_provider(p, "");
    return out;
  }
  for (const auto& w : wanted) {
    auto colon = w.find(':');
    std::string name = w.substr(0, colon);
    std::string selector = colon == std::string::npos ? "" : w.substr(colon + 1);
    auto it = std::find_if(backend_providers().begin(), backend_providers().end(),
                           [&](const BackendProvider& p) { return p.name == name; });
    if (it == backend_providers().end())
      throw UsageError("unknown backend '" + name + "'; valid backends: " + joined_names());
    if (it->load && !selector.empty())
      add_library(*it, selector);
    else
      add_provider(*it, selector);
  }
  return out;
}

}  // namespace gp
