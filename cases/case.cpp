#include "cases/case.hpp"

#include <cstdio>

namespace gp {

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string interval(const Domain& d) { return "[" + num(d.lo) + ", " + num(d.hi) + "]"; }

}  // namespace

std::string describe(const Domain& d) {
  switch (d.kind) {
    case Domain::Kind::uniform: {
      std::string s = "U" + interval(d);
      if (d.min_abs > 0) s = "|x| >= " + num(d.min_abs) + " in " + interval(d);
      if (!d.kinks.empty()) {
        s += ", " + num(d.margin) + " from";
        for (double k : d.kinks) s += " " + num(k);
      }
      return s;
    }
    case Domain::Kind::half_integer_free:
      return "U" + interval(d) + ", " + num(d.margin) + " from every k + 1/2" +
             (d.min_abs > 0 ? ", |x| >= " + num(d.min_abs) : "");
    case Domain::Kind::gate:
      return "U" + interval(d) + ", " + num(d.margin) + " from -1, 0, 1";
    case Domain::Kind::apart_from_input0:
      return "U" + interval(d) + ", " + num(d.margin) + " from input 0";
    case Domain::Kind::unique_row_max:
      return "U" + interval(d) + ", each row's maximum " + num(d.margin) + " above the rest";
    case Domain::Kind::class_index:
      if (d.class_stride > 1)
        return std::to_string(d.classes) + " class indices k * " + std::to_string(d.class_stride) + ", k in [0, " +
               std::to_string(d.classes) + ")";
      return "class indices [0, " + std::to_string(d.classes) + ")";
    case Domain::Kind::gumbel_noise:
      return "Gumbel noise -log(-log U)";
    case Domain::Kind::probability:
      return "U[0, 1]";
    case Domain::Kind::normal:
      return num(d.mean) + " + " + num(d.sd) + " N(0, 1)";
    case Domain::Kind::magnitude:
      return "|x| log-uniform in " + interval(d) + ", either sign";
    case Domain::Kind::constant:
      return "all " + num(d.lo);
    case Domain::Kind::near_multiples:
      return (d.phase != 0 ? num(d.phase) + " + " : std::string()) + "k " + num(d.period) + " + t, k in [-" +
             std::to_string(d.multiples) + ", " + std::to_string(d.multiples) + "], |t| log-uniform in " + interval(d) +
             ", either sign";
  }
  return "?";
}

std::int64_t device_bytes(const Case& c) {
  const OpCall& call = c.call;
  std::int64_t bytes = 2 * call.output_shape.numel() * static_cast<std::int64_t>(dtype_size(call.dtype));
  for (std::size_t k = 0; k < call.input_shapes.size(); ++k) {
    const auto size = static_cast<std::int64_t>(dtype_size(call.input_dtypes.at(k)));
    const int copies = input_is_differentiable(c.decl.op, static_cast<int>(k)) ? 2 : 1;  // the input, its gradient
    bytes += copies * call.input_shapes[k].numel() * size;
  }
  return bytes;
}

const char* tier_name(Tier t) { return t == Tier::large ? "large" : "small"; }

CaseDecl::CaseDecl() : dtypes{DType::f32, DType::f64} {}

std::string make_case_id(const CaseDecl& d, DType dtype) {
  std::string id(op_name(d.op));
  id += '(';
  if (d.tier == Tier::large) id += std::string(tier_name(d.tier)) + ",";
  std::string attrs = attrs_to_string(d.op, d.attrs);
  if (!attrs.empty()) id += attrs + ",";
  if (!d.variant.empty()) id += d.variant + ",";
  id += "shape=";
  // An optimizer step's inputs all have the parameter's shape: it is named once.
  const std::size_t named = op_family(d.op) == OpFamily::optimizer ? 1 : d.inputs.size();
  for (std::size_t i = 0; i < named; ++i) id += (i ? "|" : "") + d.inputs[i].shape.to_string();
  id += ",dtype=";
  id += dtype_name(dtype);
  id += ')';
  return id;
}

}  // namespace gp
