// Small builders of case declarations that several catalog files use.
#pragma once

#include "cases/registry.hpp"

namespace gp::decl {

// The domain with lo and hi where the op stops being defined or smooth (Domain::hard_edges):
// finite-difference steps then stay inside.
inline Domain hard(Domain d) {
  d.hard_edges = true;
  return d;
}

inline OpAttrs with_gelu(GeluApprox g) {
  OpAttrs a;
  a.gelu = g;
  return a;
}

inline OpAttrs& on_axis(OpAttrs& a, int axis) {
  a.axis = axis;
  return a;
}

}  // namespace gp::decl
