#include "cases/composite.hpp"

#include <algorithm>
#include <unordered_set>

#include "core/error.hpp"

namespace gp {

void declare_generated_models(std::vector<CompositeDecl>& out);  // from GP_MODEL_FILES (cases/CMakeLists.txt)

const LeafDecl* Composite::leaf(const std::string& name) const {
  for (const auto& l : decl.leaves)
    if (l.name == name) return &l;
  return nullptr;
}

Case Composite::leaf_case() const {
  Case c;
  c.id = id;
  c.dtype = dtype;
  c.call.dtype = dtype;
  c.call.case_id = id;
  for (const auto& l : decl.leaves) {
    c.decl.inputs.push_back({l.shape, l.domain});
    c.call.input_shapes.push_back(l.shape);
    c.call.input_dtypes.push_back(l.integral ? DType::i32 : dtype);
  }
  return c;
}

Composite make_composite(const CompositeDecl& decl, DType dtype) {
  Composite c;
  c.decl = decl;
  c.dtype = dtype;
  c.id = decl.model + "(" + decl.params + (decl.params.empty() ? "" : ",") + "dtype=" + std::string(dtype_name(dtype)) +
         ")";
  for (const auto& l : decl.leaves) {
    if (!l.one_hot_of.empty()) {
      const LeafDecl* ids = c.leaf(l.one_hot_of);
      if (!ids || !ids->integral || !c.shapes.count(ids->name) || l.shape.rank() != 2 || l.shape[0] != ids->shape[0])
        throw Error(c.id + ": one-hot leaf '" + l.name + "' needs an integral leaf of its batch declared before it");
    }
    if (!c.shapes.emplace(l.name, l.shape).second) throw Error(c.id + ": tensor '" + l.name + "' declared twice");
  }
  for (std::size_t i = 0; i < decl.nodes.size(); ++i) {
    const NodeDecl& n = decl.nodes[i];
    const std::string where =
        c.id + " node " + std::to_string(i) + " (" + std::string(op_name(n.op)) + ", " + n.layer + ")";
    std::vector<Shape> shapes;
    for (const auto& name : n.inputs) {
      auto it = c.shapes.find(name);
      if (it == c.shapes.end()) throw Error(where + ": reads '" + name + "' before it is written");
      shapes.push_back(it->second);
    }
    try {
      c.calls.push_back(make_call(n.op, n.attrs, dtype, shapes, where));
    } catch (const std::exception& e) {
      throw Error(where + ": " + e.what());
    }
    // Integral leaves (class indices) keep their dtype in the node's call.
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      if (const LeafDecl* l = c.leaf(n.inputs[k]); l && l->integral) c.calls.back().input_dtypes[k] = DType::i32;
    if (!c.shapes.emplace(n.output, c.calls.back().output_shape).second)
      throw Error(where + ": tensor '" + n.output + "' written twice");
    if (op_is_straight_through(n.op) &&
        std::count(c.surrogates.begin(), c.surrogates.end(), std::string(op_name(n.op))) == 0)
      c.surrogates.emplace_back(op_name(n.op));
  }
  if (!c.shapes.count(decl.output)) throw Error(c.id + ": output '" + decl.output + "' is never written");
  auto loss = c.shapes.find(decl.loss);
  if (loss == c.shapes.end() || loss->second.numel() != 1)
    throw Error(c.id + ": loss '" + decl.loss + "' is not a scalar node");
  return c;
}

namespace {

std::vector<Composite> expand_composites() {
  std::vector<CompositeDecl> decls;
  declare_generated_models(decls);
  std::vector<Composite> out;
  std::unordered_set<std::string> seen;
  for (const auto& d : decls)
    for (DType t : d.dtypes) {
      out.push_back(make_composite(d, t));
      if (!seen.insert(out.back().id).second) throw Error("duplicate composite id " + out.back().id);
    }
  return out;
}

}  // namespace

const std::vector<Composite>& all_composites() {
  static const std::vector<Composite> composites = expand_composites();
  return composites;
}

const Composite* find_composite(const std::string& id) {
  for (const auto& c : all_composites())
    if (c.id == id) return &c;
  return nullptr;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& c : all_composites())
    if (std::find(names.begin(), names.end(), c.decl.model) == names.end()) names.push_back(c.decl.model);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace gp
