// A case or a composite of the registry by id, or an exception naming the id the test asked for.
#pragma once

#include <string>

#include "cases/composite.hpp"
#include "cases/registry.hpp"
#include "core/error.hpp"

namespace gp::testing {

inline const Case& case_named(const std::string& id) {
  const Case* c = find_case(id);
  if (!c) throw Error("missing case " + id);
  return *c;
}

inline const Composite& composite(const std::string& id) {
  const Composite* c = find_composite(id);
  if (!c) throw Error("missing composite " + id);
  return *c;
}

}  // namespace gp::testing
