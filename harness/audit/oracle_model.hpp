// The oracle check of a model's (or a training run's) reference graph: nodes sampled from it (the
// first node of each op) checked like primitive cases, each fed the reference's own values at its
// inputs and the reference's gradient of its output, so that the long-double formulas are
// verified against MPFR where the model actually evaluates them.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/audit/oracle_check.hpp"
#include "harness/graph/model_subject.hpp"

namespace gp {

// One result per sampled node; its case id names the model and the node
// ("mlp(layers=3,...) node 2 linear (layer 2)").
std::vector<OracleCaseResult> oracle_check_model(const CompositeSubject& s, std::uint64_t seed,
                                                 const OracleOptions& opts = {});

}  // namespace gp
