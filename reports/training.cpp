#include "reports/training.hpp"

#include <cmath>
#include <map>

#include "reports/models.hpp"

namespace gp {

bool is_training(const CheckResult& c) { return c.subject == SubjectKind::training; }

std::vector<TrainingRow> training_rows(const std::vector<CheckResult>& checks) {
  std::vector<TrainingRow> rows;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const CheckResult& c : checks) {
    if (!is_training(c) || c.backend == "reference") continue;
    auto [it, fresh] = index.emplace(std::make_pair(c.case_id, c.backend), rows.size());
    if (fresh) {
      rows.emplace_back();
      rows.back().case_id = c.case_id;
      rows.back().backend = c.backend;
      rows.back().dtype = c.dtype;
      rows.back().verdict = c.verdict;
    }
    TrainingRow& r = rows[it->second];
    if (verdict_severity(c.verdict) > verdict_severity(r.verdict)) r.verdict = c.verdict;
    if (c.steps.first_out > 0 && (r.first_out == 0 || c.steps.first_out < r.first_out)) r.first_out = c.steps.first_out;
    if (c.steps.loss.empty()) continue;
    r.curve = c.steps;
    for (std::size_t k = 0; k < r.curve.loss.size(); ++k) {
      const double ratio = std::fabs(r.curve.loss[k] - r.curve.reference[k]) / r.curve.bound[k];
      if (!(ratio <= r.worst_ratio)) {
        r.worst_ratio = ratio;
        r.worst_step = static_cast<int>(k) + 1;
      }
    }
    for (double a : r.curve.amplification) {
      r.amplification_max = std::max(r.amplification_max, a);
      r.amplification_product *= a;
    }
  }
  return rows;
}

}  // namespace gp
