// `gradparity list [ops|cases|backends]`
#include <fmt/core.h>

#include <map>

#include "backends/registry.hpp"
#include "cases/registry.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace gp::cli {

namespace {

void list_ops() {
  std::map<OpKind, int> cases_per_op;
  for (const auto& c : all_cases()) ++cases_per_op[c.decl.op];
  fmt::print("ops ({}):\n", all_ops().size());
  for (OpKind k : all_ops())
    fmt::print("  {:<20} {:<10} {:>4} cases\n", op_name(k), family_name(op_family(k)), cases_per_op[k]);
}

void list_cases() {
  fmt::print("cases ({}):\n", all_cases().size());
  for (const auto& c : all_cases()) fmt::print("  {}\n", c.id);
}

void list_backends(const BackendOptions& opts) {
  fmt::print("backends:\n");
  for (const auto& p : backend_providers()) {
    auto entries = p.discover(opts);
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto& e = entries[i];
      std::string id = p.name == "cpu" ? "cpu" : p.name + ":" + std::to_string(i);
      if (!e.create) {
        fmt::print("  {:<10} unavailable: {}\n", p.name, e.unavailable);
        continue;
      }
      std::string dtypes;
      for (DType t : e.info.dtypes) dtypes += (dtypes.empty() ? "" : ",") + std::string(dtype_name(t));
      fmt::print("  {:<10} {} | driver {} | api {} | dtypes {}\n", id, e.info.name, e.info.driver, e.info.api_version,
                 dtypes);
      for (const auto& n : e.info.notes) fmt::print("  {:<10}   {}\n", "", n);
    }
  }
}

}  // namespace

int list_command(const std::string& what, const BackendOptions& opts) {
  if (what != "all" && what != "ops" && what != "cases" && what != "backends")
    throw UsageError("unknown list '" + what + "'; valid: ops, cases, backends, all");
  if (what == "all" || what == "ops") list_ops();
  if (what == "all" || what == "cases") list_cases();
  if (what == "all" || what == "backends") list_backends(opts);
  return 0;
}

}  // namespace gp::cli
