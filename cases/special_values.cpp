#include "cases/special_values.hpp"

#include <memory>
#include <set>
#include <string>
#include <utility>

#include "cases/registry.hpp"

namespace gp {

namespace {

bool binary(const Case& c) { return op_family(c.decl.op) == OpFamily::binary; }

// Whether the op has a table of special values: the unary and binary families, pow apart.
bool tabled(const Case& c) {
  return (op_family(c.decl.op) == OpFamily::unary || binary(c)) && c.decl.op != OpKind::pow;
}

Case special_case(const Case& base) {
  const std::size_t k = kSpecialOperands.size();
  const auto n = static_cast<std::int64_t>(binary(base) ? k * k : kSpecialInputs.size());
  Case c;
  c.decl.op = base.decl.op;
  c.decl.attrs = base.decl.attrs;
  c.decl.variant = "specials";
  for (const auto& in : base.decl.inputs) c.decl.inputs.push_back({Shape{n}, in.domain});
  c.decl.dtypes = {base.dtype};
  c.dtype = base.dtype;
  c.id = make_case_id(c.decl, c.dtype);
  std::vector<Shape> shapes(c.decl.inputs.size(), Shape{n});
  c.call = make_call(c.decl.op, c.decl.attrs, c.dtype, shapes, c.id);
  GivenValues given;
  HostTensor g(c.dtype, Shape{n});
  for (std::int64_t i = 0; i < n; ++i) g.set(i, 1);
  for (std::size_t input = 0; input < shapes.size(); ++input) {
    HostTensor x(c.dtype, Shape{n});
    for (std::int64_t i = 0; i < n; ++i) {
      const auto u = static_cast<std::size_t>(i);
      x.set(i, !binary(c) ? kSpecialInputs[u] : input == 0 ? kSpecialOperands[u / k] : kSpecialOperands[u % k]);
    }
    given.inputs.push_back(std::move(x));
  }
  given.cotangent = std::move(g);
  given.note = "IEEE special values (docs/special-values.md)";
  c.given = std::make_shared<const GivenValues>(std::move(given));
  return c;
}

}  // namespace

const std::vector<Case>& special_value_cases() {
  static const std::vector<Case> table = [] {
    std::vector<Case> out;
    std::set<std::string> seen;  // op, attributes and dtype: one case each
    for (const Case& c : all_cases()) {
      if (!tabled(c) || c.given) continue;
      const std::string key = std::string(op_name(c.decl.op)) + "(" + attrs_to_string(c.decl.op, c.decl.attrs) + ")" +
                              std::string(dtype_name(c.dtype));
      if (seen.insert(key).second) out.push_back(special_case(c));
    }
    return out;
  }();
  return table;
}

std::string special_input_text(const Case& c, std::int64_t i) {
  const auto u = static_cast<std::size_t>(i);
  if (!binary(c)) return kSpecialNames.at(u);
  const std::size_t k = kSpecialOperands.size();
  return std::string("(") + kSpecialNames.at(u / k) + ", " + kSpecialNames.at(u % k) + ")";
}

}  // namespace gp
