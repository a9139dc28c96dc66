// Provider "plugin": devices of a library named on the command line (--backend
// plugin:PATH.so[:DEVICE]), each described by the plugin and checked here: its dtypes, whether
// it may flush subnormals, the math profile it declares by name, the library functions' budgets it
// declares in place of that profile's, and the backwards it declares to compute from the
// forward's value.
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/plugin/plugin_backend.hpp"
#include "backends/plugin/plugin_call.hpp"
#include "backends/registry.hpp"

namespace gp::plugin {

namespace {

constexpr const char* kCorrectlyRounded = "correctly-rounded";

// A profile gradparity already has, by name: a built-in provider's ("cpu", "opencl", "vulkan")
// or the ideal one. Undeclared means correctly rounded: a plugin gets no allowance for library
// error it has not claimed (docs/plugins.md).
const MathProfile& declared_profile(const Library& lib, const char* declared) {
  const std::string name = declared && *declared ? declared : kCorrectlyRounded;
  if (name == kCorrectlyRounded) return correctly_rounded_profile();
  std::string known = kCorrectlyRounded;
  for (const auto& p : backend_providers()) {
    if (!p.math || p.load) continue;
    if (p.name == name) return *p.math;
    known += ", " + p.name;
  }
  throw UsageError("plugin " + lib.path() + ": declares math profile '" + name + "'; profiles in this build: " + known);
}

std::vector<DType> dtypes_of(std::uint32_t bits) {
  std::vector<DType> out;
  for (DType t : {DType::f16, DType::bf16, DType::f32, DType::f64, DType::i32})
    if (bits & GP_DTYPE_BIT(to_c(t))) out.push_back(t);
  return out;
}

std::string text(const char* s) { return s ? s : ""; }

// The ops a device declares to differentiate from the forward's value (ABI version 3), each a
// catalog op name; the declaration's text for the report, empty when none.
std::vector<OpKind> backward_from_output(const Library& lib, int index, std::string* declared) {
  std::vector<OpKind> ops;
  const auto fn = lib.backward_reads_output();
  if (!fn) return ops;
  const std::string list = text(lib.locked(Scope::device, [&] { return fn(index); }));
  std::size_t start = 0;
  while (start < list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string name = list.substr(start, end - start);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    const std::optional<OpKind> op = parse_op(name);
    if (!op)
      throw UsageError("plugin " + lib.path() + ": device " + std::to_string(index) +
                       " declares a backward computed from the forward's value for '" + name +
                       "', which is not a catalog op (docs/ops.md)");
    ops.push_back(*op);
    start = end + 1;
  }
  *declared = list;
  return ops;
}

std::string known_math_functions() {
  std::string names;
  for (int i = 0; i < kMathFnCount; ++i) names += (i ? ", " : "") + std::string(math_fn_name(static_cast<MathFn>(i)));
  return names;
}

// The library functions' budgets device `index` declares (ABI version 4), each checked: a function
// the error model charges, a compute dtype, finite figures of at least 0, a source, once per
// function and dtype.
std::vector<DeclaredBudget> declared_budgets(const Library& lib, int index) {
  std::vector<DeclaredBudget> out;
  const auto fn = lib.math_budgets();
  if (!fn) return out;
  const gp_math_budget* list = nullptr;
  const std::int32_t n = lib.locked(Scope::device, [&] { return fn(index, &list); });
  const std::string where = "plugin " + lib.path() + ": device " + std::to_string(index) + " declares ";
  if (n < 0 || (n > 0 && !list)) throw UsageError(where + std::to_string(n) + " math budgets without an array of them");
  for (std::int32_t i = 0; i < n; ++i) {
    const gp_math_budget& b = list[i];
    const std::string name = text(b.function);
    const std::optional<MathFn> f = parse_math_fn(name);
    if (!f) throw UsageError(where + "a math budget for '" + name + "', not one of " + known_math_functions());
    if (b.dtype != GP_DTYPE_F32 && b.dtype != GP_DTYPE_F64)
      throw UsageError(where + "a budget for " + name + " in dtype " + std::to_string(b.dtype) +
                       ": budgets are per compute dtype, GP_DTYPE_F32 or GP_DTYPE_F64");
    if (!std::isfinite(b.ulps) || !std::isfinite(b.abs) || b.ulps < 0 || b.abs < 0)
      throw UsageError(where + "a budget for " + name + " of " + std::to_string(b.ulps) + " ULP + " +
                       std::to_string(b.abs) + ": both must be finite and at least 0");
    if (text(b.source).empty()) throw UsageError(where + "a budget for " + name + " without its source");
    const DeclaredBudget d{*f, b.dtype == GP_DTYPE_F32 ? DType::f32 : DType::f64, {b.ulps, b.abs}, text(b.source)};
    for (const DeclaredBudget& earlier : out)
      if (earlier.fn == d.fn && earlier.compute == d.compute)
        throw UsageError(where + "two budgets for " + name + " in " + std::string(dtype_name(d.compute)));
    out.push_back(d);
  }
  return out;
}

// Device notes on the declared budgets: each promise, and those looser than the named profile's.
void note_budgets(const std::vector<DeclaredBudget>& budgets, const MathProfile& named, const std::string& name,
                  std::vector<std::string>& notes) {
  if (budgets.empty()) return;
  std::string all, looser;
  for (const DeclaredBudget& b : budgets) {
    all += (all.empty() ? "" : "; ") + describe(b) + " (" + b.source + ")";
    if (looser_than(b, named)) looser += (looser.empty() ? "" : ", ") + describe(b);
  }
  notes.push_back("math budgets declared by the device: " + all);
  if (!looser.empty())
    notes.push_back("LOOSER than the " + name + " profile (checks are judged by the promise): " + looser);
}

DeviceInfo describe_device(const Library& lib, int index) {
  gp_device_info c{};
  lib.check(Scope::device, "device_info", "", [&] { return lib.api().device_info(index, &c); });
  DeviceInfo d;
  d.backend = "plugin";
  d.name = text(c.name).empty() ? lib.name() + " device " + std::to_string(index) : text(c.name);
  d.driver = text(c.driver);
  d.api_version = text(c.api_version);
  d.dtypes = dtypes_of(c.dtypes);
  d.may_flush_subnormals = c.may_flush_subnormals != 0;
  std::string forms;
  const MathProfile& named = declared_profile(lib, c.math_profile);
  const std::vector<DeclaredBudget> budgets = declared_budgets(lib, index);
  d.math = &with_backward_from_output(with_declared_budgets(named, budgets), backward_from_output(lib, index, &forms));
  d.notes = {"plugin " + lib.name() + " (" + lib.path() + "), ABI " + std::to_string(lib.abi_version()) +
                 ", thread-safety contract: " + contract_name(lib.api().threads) +
                 (lib.arithmetic_probe() ? ", arithmetic probe" : ""),
             "math profile: " + (text(c.math_profile).empty() ? std::string(kCorrectlyRounded) + " (undeclared)"
                                                              : text(c.math_profile))};
  note_budgets(budgets, named, text(c.math_profile).empty() ? kCorrectlyRounded : text(c.math_profile), d.notes);
  if (!forms.empty()) d.notes.push_back("backward computed from the forward's value (declared): " + forms);
  if (!text(c.notes).empty()) d.notes.push_back(text(c.notes));
  return d;
}

std::vector<DeviceEntry> load_devices(const std::string& path) {
  const std::shared_ptr<const Library> lib = Library::load(path);
  const std::int32_t count = lib->locked(Scope::device, [&] { return lib->api().device_count(); });
  std::vector<DeviceEntry> entries;
  if (count <= 0) {
    DeviceEntry none;
    none.info.backend = "plugin";
    none.info.name = lib->name();
    none.unavailable = "plugin " + path + " reports no device (device_count() = " + std::to_string(count) + ")";
    entries.push_back(std::move(none));
  }
  for (int i = 0; i < count; ++i) {
    DeviceEntry e;
    try {
      e.info = describe_device(*lib, i);
    } catch (const DeviceError& err) {  // a plugin that cannot describe its device cannot be used at all
      throw UsageError(err.what());
    }
    e.create = [lib, i, info = e.info] { return std::make_unique<PluginBackend>(lib, i, info); };
    e.run_in_child = true;
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace

}  // namespace gp::plugin

namespace gp {

BackendProvider make_plugin_provider() {
  BackendProvider p;
  p.name = "plugin";
  p.discover = [](const BackendOptions&) {
    return name_one_to_load("plugin", "an op library's plugin",
                            "name a library: --backend plugin:PATH.so[:DEVICE] (docs/plugins.md)");
  };
  p.load = [](const std::string& path, const BackendOptions&) { return plugin::load_devices(path); };
  return p;
}

}  // namespace gp
