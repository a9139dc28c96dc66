#include "cases/special_values.hpp"

#include <memory>
#include <set>
#include <string>
#include <utility>

#include "cases/registry.hpp"

namespace gp {

namespace {

Case special_case(const Case& base) {
  const auto n = static_cast<std::int64_t>(kSpecialInputs.size());
  Case c;
  c.decl.op = base.decl.op;
  c.decl.attrs = base.decl.attrs;
  c.decl.variant = "specials";
  c.decl.inputs = {{Shape{n}, base.decl.inputs.at(0).domain}};
  c.decl.dtypes = {base.dtype};
  c.dtype = base.dtype;
  c.id = make_case_id(c.decl, c.dtype);
  c.call = make_call(c.decl.op, c.decl.attrs, c.dtype, {Shape{n}}, c.id);
  GivenValues given;
  HostTensor x(c.dtype, Shape{n}), g(c.dtype, Shape{n});
  for (std::int64_t i = 0; i < n; ++i) {
    x.set(i, kSpecialInputs[static_cast<std::size_t>(i)]);
    g.set(i, 1);
  }
  given.inputs = {std::move(x)};
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
      if (op_family(c.decl.op) != OpFamily::unary || c.given) continue;
      const std::string key = std::string(op_name(c.decl.op)) + "(" + attrs_to_string(c.decl.op, c.decl.attrs) + ")" +
                              std::string(dtype_name(c.dtype));
      if (seen.insert(key).second) out.push_back(special_case(c));
    }
    return out;
  }();
  return table;
}

}  // namespace gp
