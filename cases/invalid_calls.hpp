// Calls the catalog refuses (docs/invalid-calls.md): per op family, shapes that do not fit, an
// axis or a slice out of range, attributes out of their domain, a wrong input count, an output
// shape other than the shape rule's, a dtype the op does not take. No backend may run one: each
// must refuse it in supports(), with a reason.
#pragma once

#include <string>
#include <vector>

#include "cases/case.hpp"

namespace gp {

struct InvalidCall {
  // The call as a kernel would receive it, its id (`matmul(invalid,shape=2x3|4x5,out=2x5,dtype=f32)`)
  // and its op in `decl`. Never run, never given to the reference.
  Case c;
  std::string problem;  // why the catalog refuses it: call_problem's reason
};

// The table, in family order. Built once; throws gp::Error naming a row that the catalog accepts.
const std::vector<InvalidCall>& invalid_calls();

}  // namespace gp
