#include "cases/case.hpp"

namespace gp {

CaseDecl::CaseDecl() : dtypes{DType::f32, DType::f64} {}

std::string make_case_id(const CaseDecl& d, DType dtype) {
  std::string id(op_name(d.op));
  id += '(';
  std::string attrs = attrs_to_string(d.op, d.attrs);
  if (!attrs.empty()) id += attrs + ",";
  if (!d.variant.empty()) id += d.variant + ",";
  id += "shape=";
  for (std::size_t i = 0; i < d.inputs.size(); ++i) id += (i ? "|" : "") + d.inputs[i].shape.to_string();
  id += ",dtype=";
  id += dtype_name(dtype);
  id += ')';
  return id;
}

}  // namespace gp
