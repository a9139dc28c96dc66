#include "harness/audit/oracle_model.hpp"

#include <set>

#include "harness/graph/composite_checks.hpp"

namespace gp {

std::vector<OracleCaseResult> oracle_check_model(const CompositeSubject& s, std::uint64_t seed,
                                                 const OracleOptions& opts) {
  const Composite& c = s.composite();
  const CompositeReference ref = s.functions().reference(c, seed);
  std::vector<OracleCaseResult> out;
  std::set<OpKind> seen;
  for (std::size_t i = 0; i < c.decl.nodes.size(); ++i) {
    if (!seen.insert(c.decl.nodes[i].op).second) continue;
    const Case node = node_case(c, i);
    try {
      out.push_back(oracle_check_case(node, node_reference(c, i, ref), seed, opts));
    } catch (const std::exception& e) {  // the oracle or the reference threw: the check fails
      OracleCaseResult r;
      r.case_id = node.id;
      r.op_label = std::string(op_name(node.decl.op));
      r.error = e.what();
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace gp
