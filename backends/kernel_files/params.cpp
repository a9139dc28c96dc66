#include "backends/kernel_files/params.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <vector>

namespace gp::kernel_files {

namespace {

enum IntIndex {
#define GP_INDEX(name, value) kInt##name,
  GP_PARAM_INTS(GP_INDEX)
#undef GP_INDEX
      kIntCount
};
enum RealIndex {
#define GP_INDEX(name, value) kReal##name,
  GP_PARAM_REALS(GP_INDEX)
#undef GP_INDEX
      kRealCount
};
static_assert(kIntCount <= 16 && kRealCount <= 16, "the block's attribute arrays hold 16 each");

// The shapes of the buffers in argument order (convention.hpp's buffer_names).
std::vector<Shape> buffer_shapes(const OpCall& call, Pass pass) {
  std::vector<Shape> shapes = call.input_shapes;
  shapes.push_back(call.output_shape);
  if (pass == Pass::backward) {
    shapes.push_back(call.output_shape);
    for (std::size_t i = 0; i < call.input_shapes.size(); ++i)
      if (input_is_differentiable(call.kind, static_cast<int>(i))) shapes.push_back(call.input_shapes[i]);
  }
  return shapes;
}

std::string index_defines() {
  std::string s;
  int i = 0;
#define GP_DEFINE(name, value) s += "#define GP_" #name " " + std::to_string(i++) + "\n";
  GP_PARAM_INTS(GP_DEFINE)
  i = 0;
  GP_PARAM_REALS(GP_DEFINE)
#undef GP_DEFINE
  return s;
}

std::string members() {
  std::string s;
#define GP_MEMBER(cpp, cl, name, n, what) \
  s += std::string("  " #cl " " #name) + ((n) > 0 ? "[" #n "]" : "") + ";  // " what "\n";
  GP_PARAM_FIELDS(GP_MEMBER)
#undef GP_MEMBER
  return s;
}

}  // namespace

Params make_params(const OpCall& call, Pass pass) {
  const std::vector<Shape> shapes = buffer_shapes(call, pass);
  if (shapes.size() > static_cast<std::size_t>(kMaxTensors))
    return {std::nullopt, "more than " + std::to_string(kMaxTensors) + " buffers"};
  ParamBlock b{};
  std::int64_t launched = 0;
  for (std::size_t t = 0; t < shapes.size(); ++t) {
    const Shape& s = shapes[t];
    if (s.numel() > std::numeric_limits<std::uint32_t>::max())
      return {std::nullopt, "a tensor of " + std::to_string(s.numel()) + " elements (the block's sizes are 32-bit)"};
    b.rank[t] = static_cast<std::uint32_t>(s.rank());
    b.numel[t] = static_cast<std::uint32_t>(s.numel());
    const int pad = kDimsPerTensor - s.rank();
    for (int k = 0; k < kDimsPerTensor; ++k)
      b.dims[t * kDimsPerTensor + k] = k < pad ? 1u : static_cast<std::uint32_t>(s[k - pad]);
    // The forward covers the output, the backward its largest gradient.
    const std::size_t first_written = call.input_shapes.size() + (pass == Pass::backward ? 2 : 0);
    if (t >= first_written) launched = std::max(launched, s.numel());
  }
  b.count[0] = static_cast<std::uint32_t>(launched);
  b.tensors[0] = static_cast<std::uint32_t>(shapes.size());
  const auto& a = call.attrs;
  const bool has_axis =
      (op_attr_set(call.kind) & kAttrAxis) && !call.input_shapes.empty() && call.input_shapes.front().rank() > 0;
  b.axis[0] = has_axis ? call.input_shapes.front().axis(a.axis) : 0;
#define GP_SET_INT(name, value) b.ints[kInt##name] = static_cast<std::int32_t>(value);
  GP_PARAM_INTS(GP_SET_INT)
#undef GP_SET_INT
#define GP_SET_REAL(name, value)                                                \
  b.reals[kReal##name] = static_cast<float>(value);                             \
  {                                                                             \
    const auto bits = std::bit_cast<std::uint64_t>(static_cast<double>(value)); \
    b.reals64[2 * kReal##name] = static_cast<std::uint32_t>(bits);              \
    b.reals64[2 * kReal##name + 1] = static_cast<std::uint32_t>(bits >> 32);    \
  }
  GP_PARAM_REALS(GP_SET_REAL)
#undef GP_SET_REAL
  return {b, {}};
}

std::string preamble_opencl() {
  std::string s = "typedef struct {\n" + members() + "} gp_params;\n";
  s += index_defines();
  s += "#define GP_DIM(p, t, k) ((p)->dims[4 * (t) + (k)])\n";
  s += "#ifdef cl_khr_fp64\n#define GP_REAL64(p, i) as_double(((ulong)(p)->reals64[2 * (i) + 1] << 32) | "
       "(ulong)(p)->reals64[2 * (i)])\n#endif\n";
  return s;
}

std::string preamble_glsl(int binding) {
  std::string s = "layout(std430, set = 0, binding = " + std::to_string(binding) + ") readonly buffer GpParams {\n" +
                  members() + "} p;\n";
  s += index_defines();
  s += "#define GP_DIM(p, t, k) ((p).dims[4 * (t) + (k)])\n";
  s += "#define GP_REAL64(p, i) packDouble2x32(uvec2((p).reals64[2 * (i)], (p).reals64[2 * (i) + 1]))\n";
  s += "#define GP_INDEX ((gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + "
       "gl_LocalInvocationID.x)\n";
  return s;
}

}  // namespace gp::kernel_files
