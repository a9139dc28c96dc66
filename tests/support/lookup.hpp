// A composite of the registry by id, or an exception naming the id the test asked for.
#pragma once

#include <string>

#include "cases/composite.hpp"
#include "core/error.hpp"

namespace gp::testing {

inline const Composite& composite(const std::string& id) {
  const Composite* c = find_composite(id);
  if (!c) throw Error("missing composite " + id);
  return *c;
}

}  // namespace gp::testing
