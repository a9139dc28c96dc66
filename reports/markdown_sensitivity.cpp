// parity.md's sensitivity section: per op, for each backend and dtype, the median and the worst
// sensitivity_ulp of the passing comparisons, after a per backend x dtype digest. Bounded in size
// by the catalog (ops x backends x dtypes), not by the number of checks.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <tuple>

#include "reports/markdown_sections.hpp"
#include "reports/summary.hpp"

namespace gp::md {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[(v.size() - 1) / 2];
}

}  // namespace

void append_sensitivity(std::string& out, const RunReport& report) {
  const std::vector<SensitivityCell> table = sensitivity_table(report.checks);
  if (table.empty()) return;
  auto o = std::back_inserter(out);
  out +=
      "## Sensitivity (ULP)\n\n"
      "Per passing comparison, the smallest uniform relative error, in ULPs of the result at the element that "
      "fails first, that the check would fail: a green check proves the kernel errs by less. ÷ budget divides "
      "by what the device's specification allows its math functions there (1 when it allows correct rounding "
      "only).\n\n| Backend | Dtype | Comparisons | Median | p90 | Median ÷ budget |\n|---|---|---:|---:|---:|---:|\n";
  std::map<std::pair<std::string, DType>, std::vector<double>> sens, ratio;
  for (const CheckResult& c : report.checks)
    if (auto s = sensitivity_of(c)) {
      sens[{c.backend, c.dtype}].push_back(*s);
      ratio[{c.backend, c.dtype}].push_back(
          *s / std::max(1.0, std::isnan(c.metrics.budget_ulp) ? 1.0 : c.metrics.budget_ulp));
    }
  for (const std::string& b : backends_in_order(report))
    for (DType d : float_dtypes()) {
      auto it = sens.find({b, d});
      if (it == sens.end()) continue;
      std::vector<double> v = it->second;
      std::sort(v.begin(), v.end());
      fmt::format_to(o, "| {} | {} | {} | {} | {} | {} |\n", code(b), dtype_name(d), v.size(), g3(median(v)),
                     g3(v[(v.size() - 1) * 9 / 10]), g3(median(ratio[{b, d}])));
    }
  // Per op: one column per backend x dtype that has comparisons; cells "median / worst".
  std::vector<std::pair<std::string, DType>> columns;
  for (const std::string& b : backends_in_order(report))
    for (DType d : float_dtypes())
      if (sens.count({b, d})) columns.emplace_back(b, d);
  std::map<std::tuple<std::string, std::string, DType>, const SensitivityCell*> cell_of;
  for (const SensitivityCell& c : table) cell_of[{c.op, c.backend, c.dtype}] = &c;
  out += "\nPer op, median / worst:\n\n| Op |";
  for (const auto& [b, d] : columns) fmt::format_to(o, " {} {} |", code(b), dtype_name(d));
  out += "\n|---|";
  for (std::size_t i = 0; i < columns.size(); ++i) out += "---|";
  out += "\n";
  for (const std::string& op : ops_in_catalog_order(report.checks)) {
    std::string row = "| " + cell(op) + " |";
    bool any = false;
    for (const auto& [b, d] : columns) {
      auto it = cell_of.find({op, b, d});
      any = any || it != cell_of.end();
      row += it == cell_of.end() ? " — |" : fmt::format(" {} / {} |", g3(it->second->median), g3(it->second->worst));
    }
    if (any) out += row + "\n";
  }
  out += "\n";
}

}  // namespace gp::md
