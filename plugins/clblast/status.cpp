#include "status.hpp"

#include <algorithm>
#include <iterator>

namespace gp_clblast {

namespace {

struct Name {
  int code;
  const char* name;
};

const Name kNames[] = {
#include "status_names.inc"
};

}  // namespace

std::string status_name(int code) {
  const auto* it = std::find_if(std::begin(kNames), std::end(kNames), [&](const Name& n) { return n.code == code; });
  return it != std::end(kNames) ? it->name : "status " + std::to_string(code);
}

void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw Failure(std::string(call) + ": " + status_name(status));
}

void check(clblast::StatusCode status, const char* call) {
  if (status != clblast::StatusCode::kSuccess) throw Failure(std::string(call) + ": " + status_name(int(status)));
}

}  // namespace gp_clblast
