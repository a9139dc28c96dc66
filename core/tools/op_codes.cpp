// Writes gp_op_codes.h, the catalog as device code sees it: one code per op (its OpKind value)
// and the ops of each family as X-macro lists. Run at build time (core/CMakeLists.txt); the
// OpenCL kernels and the Vulkan shaders include the output, so their op codes and per-op
// instantiations follow core/op_list.hpp without a list of their own.
//   gp_op_codes OUTPUT_FILE
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "core/op.hpp"

namespace {

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return u;
}

std::string header() {
  std::ostringstream o;
  o << "// Generated at build time from core/op_list.hpp by core/tools/op_codes.cpp. Do not edit.\n"
       "// Plain #defines: valid C, C++, OpenCL C and GLSL.\n"
       "#ifndef GP_OP_CODES_H\n#define GP_OP_CODES_H\n\n"
       "// One code per op: its OpKind value. GP_OP_COUNT is the first code free for a kernel's own modes.\n"
    << "#define GP_OP_COUNT " << gp::kOpCount << "u\n";
  for (gp::OpKind k : gp::all_ops()) o << "#define GP_OP_" << gp::op_name(k) << " " << static_cast<int>(k) << "u\n";
  o << "\n// The ops of each family in catalog order: GP_<FAMILY>_OPS(X) expands X(name) for each.\n";
  for (int f = 0; f < gp::kFamilyCount; ++f) {
    const auto family = static_cast<gp::OpFamily>(f);
    o << "#define GP_" << upper(gp::family_name(family)) << "_OPS(X)";
    for (gp::OpKind k : gp::all_ops())
      if (gp::op_family(k) == family) o << " X(" << gp::op_name(k) << ")";
    o << "\n";
  }
  o << "\n#endif\n";
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: gp_op_codes OUTPUT_FILE\n";
    return 2;
  }
  const std::string text = header();
  {  // rewrite only on change, so that what includes it is not rebuilt for nothing
    std::ifstream in(argv[1]);
    std::stringstream old;
    old << in.rdbuf();
    if (in && old.str() == text) return 0;
  }
  std::ofstream out(argv[1]);
  out << text;
  if (!out) {
    std::cerr << "gp_op_codes: cannot write " << argv[1] << "\n";
    return 1;
  }
  return 0;
}
