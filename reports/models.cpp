#include "reports/models.hpp"

#include <cmath>
#include <iterator>
#include <map>

#include "core/enum_table.hpp"
#include "reports/training.hpp"
#include "results/result_names.hpp"

namespace gp {

int verdict_severity(Verdict v) {
  static constexpr int kSeverity[] = {1, 3, 0, 2, 4};  // PASS, FAIL, SKIP, MISTRUSTED, ERROR
  static_assert(std::size(kSeverity) == std::size(kAllVerdicts));
  return enum_row(kSeverity, v);
}

namespace {

void fold(Verdict& into, Verdict v, bool& seen) {
  if (!seen || verdict_severity(v) > verdict_severity(into)) into = v;
  seen = true;
}

double margin_or_zero(const CheckResult& c) { return std::isfinite(c.metrics.margin) ? c.metrics.margin : 0; }

}  // namespace

std::vector<ModelRow> model_rows(const std::vector<CheckResult>& checks) {
  std::vector<ModelRow> rows;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  struct Seen {
    bool e2e = false, node = false, numerical = false;
  };
  std::vector<Seen> seen;
  for (const CheckResult& c : checks) {
    if (c.subject != SubjectKind::model) continue;
    auto [it, fresh] = index.emplace(std::make_pair(c.case_id, c.backend), rows.size());
    if (fresh) {
      ModelRow row;
      row.case_id = c.case_id;
      row.model = c.op;
      row.backend = c.backend;
      row.dtype = c.dtype;
      rows.push_back(std::move(row));
      seen.emplace_back();
    }
    ModelRow& r = rows[it->second];
    Seen& s = seen[it->second];
    if (!c.formulation.empty()) r.formulation = c.formulation;
    const bool problem = is_problem(c.verdict);
    if (problem && r.problem.empty()) r.problem = check_label(c) + ": " + c.reason;
    if (c.direction == Direction::node) {
      const bool worse =
          problem ? !is_problem(r.node) || !s.node : !is_problem(r.node) && margin_or_zero(c) >= r.node_margin;
      if (c.verdict != Verdict::skip && worse) {
        r.worst_node = c.part;
        r.node_margin = margin_or_zero(c);
      }
      fold(r.node, c.verdict, s.node);
    } else if (c.direction == Direction::numerical_backend || c.direction == Direction::numerical_reference) {
      fold(r.numerical, c.verdict, s.numerical);
    } else {
      const bool worse =
          problem ? !is_problem(r.end_to_end) || !s.e2e : !is_problem(r.end_to_end) && margin_or_zero(c) >= r.margin;
      if (c.verdict != Verdict::skip && worse) {
        r.worst_part = c.part;
        r.margin = margin_or_zero(c);
        r.error = c.metrics.max_abs;
        r.bound = c.metrics.bound;
      }
      fold(r.end_to_end, c.verdict, s.e2e);
    }
  }
  return rows;
}

}  // namespace gp
