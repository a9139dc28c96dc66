// Number formatting for verdict reasons.
#pragma once

#include <cstdio>
#include <string>

namespace gp {

// %g with `digits` significant digits: short enough for a reason line, exact enough to compare.
inline std::string format_g(double v, int digits = 6) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

}  // namespace gp
