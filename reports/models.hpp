// The Models summary: per composite model x backend, the verdicts of its three checks (end to end,
// node by node, numerical), the end-to-end check closest to its bound and the worst node.
#pragma once

#include <string>
#include <vector>

#include "results/result.hpp"

namespace gp {

struct ModelRow {
  std::string case_id, model, backend;
  DType dtype = DType::f32;
  // Each the worst verdict among its checks (ERROR > FAIL > MISTRUSTED > PASS > SKIP); SKIP when
  // there were none.
  Verdict end_to_end = Verdict::skip, node = Verdict::skip, numerical = Verdict::skip;
  std::string worst_part;  // the end-to-end check with the largest margin, or the first problem
  double error = 0, bound = 0, margin = 0;
  std::string worst_node;  // the node check with the largest margin, or the first problem
  double node_margin = 0;
  std::string formulation;  // what the model computes, as its output check states it
  std::string problem;      // the first problem's check and reason; empty when none
};

// Rows in order of first appearance of each (case, backend); training runs have their own
// section (reports/training.hpp).
std::vector<ModelRow> model_rows(const std::vector<CheckResult>& checks);

// ERROR 4 > FAIL 3 > MISTRUSTED 2 > PASS 1 > SKIP 0.
int verdict_severity(Verdict v);

}  // namespace gp
