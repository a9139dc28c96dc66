#include "cases/special_values.hpp"

#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "cases/registry.hpp"

namespace gp {

namespace {

bool binary(const Case& c) { return op_family(c.decl.op) == OpFamily::binary; }
// The ops whose cases pair two operands: the binary ops, mse_loss and bce_with_logits.
bool pairs(const Case& c) { return binary(c) || c.decl.op == OpKind::mse_loss || c.decl.op == OpKind::bce_with_logits; }
bool layout(const Case& c) { return op_family(c.decl.op) == OpFamily::layout; }
bool rows(const Case& c) { return along_special_rows(c.decl.op); }
bool products(const Case& c) { return special_products(c.decl.op); }
bool optimizer(const Case& c) { return op_family(c.decl.op) == OpFamily::optimizer; }
// The ops whose input 0 holds kSpecialRows.
bool rowed(const Case& c) {
  return rows(c) || products(c) || c.decl.op == OpKind::cross_entropy || c.decl.op == OpKind::log_matmul_exp;
}

// Whether the op has a table of special values: the unary, binary and layout families, the ops
// along rows, the products and the pointwise ops; a layout case needs elements to move.
bool tabled(const Case& c) {
  if (layout(c)) return c.call.output_shape.numel() > 0;
  return op_family(c.decl.op) == OpFamily::unary || binary(c) || rows(c) || products(c) ||
         special_pointwise(c.decl.op) || special_composite(c.decl.op);
}

// The GRU cell's element i of input `input`: x's row i < 7 and h's row i - 7 at the seven values,
// the other rows and the weights and biases ordinary values of the catalog's magnitudes.
double gru_special_value(std::size_t input, std::size_t i) {
  const std::size_t k = kSpecialOperands.size();
  static constexpr std::array<std::array<double, 3>, 4> weights = {
      {{0.5, -0.25, 0.75}, {0.25, 0.5, -0.5}, {0.125, -0.25, 0.375}, {-0.125, 0.25, 0.0625}}};
  if (input == 0) return i < k ? kSpecialOperands[i] : 0.5;
  if (input == 1) return i >= k ? kSpecialOperands[i - k] : -0.25;
  return weights.at(input - 2).at(i);
}

// tt_embedding's: id k takes slice k % 7 of core k / 7 and slice 7 of the others; slices 0-6 of
// each core hold the seven values at their first element, 0.5 elsewhere.
double tt_special_value(const Case& c, std::size_t input, std::size_t i) {
  const std::size_t k = kSpecialOperands.size();
  if (input == 0) {
    const TtGeometry g = tt_geometry(c.call);
    std::array<std::int64_t, 3> digit = {7, 7, 7};
    digit.at(i / k) = static_cast<std::int64_t>(i % k);
    return static_cast<double>((digit[0] * g.v2 + digit[1]) * g.v3 + digit[2]);
  }
  const Shape& core = c.call.input_shapes.at(input);
  const auto slice = static_cast<std::size_t>(core.numel() / core[0]);
  return i / slice < k && i % slice == 0 ? kSpecialOperands[i / slice] : 0.5;
}

// The value of element i of input `input`.
double special_value(const Case& c, std::size_t input, std::size_t i) {
  const std::size_t k = kSpecialOperands.size();
  if (c.decl.op == OpKind::gru_cell) return gru_special_value(input, i);
  if (c.decl.op == OpKind::tt_embedding) return tt_special_value(c, input, i);
  if (pairs(c)) {
    const std::span<const double> second = special_second_operands(c.decl.op);
    return input == 0 ? kSpecialOperands[i / second.size()] : second[i % second.size()];
  }
  if (layout(c)) return kSpecialOperands[(i + 3 * input) % k];
  if (optimizer(c)) {
    const double ordinary = kOptimizerOrdinary.at(input), v = kSpecialOperands[i % k];
    // A second moment has no negative values (outside adamw's definition): those stay ordinary.
    const bool undefined = std::signbit(v) && v != 0 && c.decl.inputs.at(input).domain.lo >= 0;
    return i / k == input && !undefined ? v : ordinary;
  }
  const std::size_t n = kSpecialRows.size();
  if (rowed(c) && input == 0) return kSpecialRows.at(i / n).at(i % n);
  if (c.decl.op == OpKind::cross_entropy) return kSpecialTargets.at(i);
  if (c.decl.op == OpKind::log_matmul_exp) return kSpecialRows.at(i % n).at(i / n);  // as matmul's B
  // The other inputs of an op along rows leave the rows as they are: gumbel_softmax's noise 0, the
  // norms' weights 1 and layer_norm's bias 0.
  if (rows(c)) return c.decl.op == OpKind::gumbel_softmax || input == 2 ? 0 : 1;
  // A product's second operand pairs every row of the first with every row: matmul's B holds the
  // rows as columns, linear's W as rows (x W^T); linear's bias takes the seven values in turn.
  if (products(c) && c.decl.inputs.at(input).shape.rank() == 1) return kSpecialOperands[i % k];
  if (products(c))
    return c.decl.op == OpKind::matmul ? kSpecialRows.at(i % n).at(i / n) : kSpecialRows.at(i / n).at(i % n);
  return kSpecialInputs[i];
}

// The input's shape: a reduction's rows, a layout op's catalog shape, the elementwise list.
Shape special_shape(const Case& base, std::size_t input) {
  const Shape& catalog = base.decl.inputs.at(input).shape;
  const auto specials = static_cast<std::int64_t>(kSpecialOperands.size());
  // The GRU cell: a hidden unit and an input feature, x's rows then h's at the seven values.
  if (base.decl.op == OpKind::gru_cell) return input < 2 ? Shape{2 * specials, 1} : input < 4 ? Shape{3, 1} : Shape{3};
  if (base.decl.op == OpKind::tt_embedding) return input == 0 ? Shape{3 * specials} : catalog;
  const std::size_t k = kSpecialOperands.size();
  if (layout(base)) return catalog;
  const auto n = static_cast<std::int64_t>(kSpecialRows.size());
  if (rowed(base)) return catalog.rank() == 1 ? Shape{n} : Shape{n, n};
  if (optimizer(base)) return Shape{static_cast<std::int64_t>(k * base.decl.inputs.size())};
  const std::size_t paired = k * special_second_operands(base.decl.op).size();
  return Shape{static_cast<std::int64_t>(pairs(base) ? paired : kSpecialInputs.size())};
}

Case special_case(const Case& base) {
  Case c;
  c.decl.op = base.decl.op;
  c.decl.attrs = base.decl.attrs;
  if (rows(base)) {  // along the rows, with the contract's own softmax (not a staged one)
    c.decl.attrs.axis = -1;
    c.decl.attrs.keepdim = false;
    c.decl.attrs.staged = Staged::none;
  }
  c.decl.variant = "specials";
  for (std::size_t k = 0; k < base.decl.inputs.size(); ++k)
    c.decl.inputs.push_back({special_shape(base, k), base.decl.inputs[k].domain});
  c.decl.dtypes = {base.dtype};
  c.dtype = base.dtype;
  c.id = make_case_id(c.decl, c.dtype);
  std::vector<Shape> shapes;
  for (const auto& in : c.decl.inputs) shapes.push_back(in.shape);
  c.call = make_call(c.decl.op, c.decl.attrs, c.dtype, shapes, c.id);
  GivenValues given;
  HostTensor g(c.dtype, c.call.output_shape);
  for (std::int64_t i = 0; i < g.numel(); ++i) g.set(i, 1);
  for (std::size_t input = 0; input < shapes.size(); ++input) {
    HostTensor x(c.call.input_dtypes[input], shapes[input]);
    for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, special_value(c, input, static_cast<std::size_t>(i)));
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
    // One case per op, attributes and dtype: its catalog case with the most output elements (a
    // layout op's moves at a real size, not at one element).
    std::vector<const Case*> bases;
    std::map<std::string, std::size_t> at;
    for (const Case& c : all_cases()) {
      if (!tabled(c) || c.given) continue;
      // An op along rows has attributes of its own (the last axis): one case per op and dtype.
      const std::string attrs = rowed(c) ? "" : attrs_to_string(c.decl.op, c.decl.attrs);
      const std::string key = std::string(op_name(c.decl.op)) + "(" + attrs + ")" + std::string(dtype_name(c.dtype));
      const auto [it, fresh] = at.emplace(key, bases.size());
      if (fresh) {
        bases.push_back(&c);
      } else if (c.call.output_shape.numel() > bases[it->second]->call.output_shape.numel()) {
        bases[it->second] = &c;
      }
    }
    std::vector<Case> out;
    for (const Case* c : bases) out.push_back(special_case(*c));
    return out;
  }();
  return table;
}

bool special_products(OpKind op) { return op == OpKind::matmul || op == OpKind::linear; }

bool special_composite(OpKind op) {
  return op == OpKind::cross_entropy || op == OpKind::log_matmul_exp || op == OpKind::gru_cell ||
         op == OpKind::tt_embedding || op_family(op) == OpFamily::optimizer;
}

bool special_pointwise(OpKind op) {
  return op == OpKind::pow || op == OpKind::bspline_basis || op == OpKind::mse_loss || op == OpKind::bce_with_logits;
}

std::span<const double> special_second_operands(OpKind op) {
  if (op == OpKind::bce_with_logits) return kSpecialProbabilities;
  return kSpecialOperands;
}

bool along_special_rows(OpKind op) {
  switch (op) {
    case OpKind::sum:
    case OpKind::mean:
    case OpKind::max:
    case OpKind::logsumexp:
    case OpKind::variance:
    case OpKind::softmax:
    case OpKind::log_softmax:
    case OpKind::gumbel_softmax:
    case OpKind::layer_norm:
    case OpKind::rms_norm:
      return true;
    default:
      return false;
  }
}

std::string special_input_text(const Case& c, std::int64_t i, const Shape& tensor) {
  const auto u = static_cast<std::size_t>(i);
  const bool output = tensor == c.call.output_shape;
  if (layout(c) || (products(c) && tensor.rank() == 1)) return "element " + std::to_string(i);
  if (optimizer(c)) {  // an output row at one input's special value
    static constexpr std::array<const char*, 4> sgd = {"parameter", "gradient", "buffer", ""},
                                                adamw = {"parameter", "gradient", "m", "v"};
    const auto& names = c.decl.op == OpKind::sgd_step ? sgd : adamw;
    const std::size_t k = kSpecialOperands.size(), n = static_cast<std::size_t>(tensor[1]);
    const std::size_t row = u / n, e = u % n;
    return std::string("new ") + names.at(row == 0 ? 0 : row + 1) + " at " + names.at(e / k) + " " +
           kSpecialNames.at(e % k);
  }
  if (c.decl.op == OpKind::cross_entropy && tensor.numel() == 1) return "the loss";
  const std::size_t specials = kSpecialOperands.size();
  if (c.decl.op == OpKind::gru_cell) {  // a row of x's, h's, h' and their gradients; a weight's element
    if (tensor.rank() != 2 || tensor[0] != static_cast<std::int64_t>(2 * specials))
      return "element " + std::to_string(i);
    return std::string(u < specials ? "x " : "h ") + kSpecialNames.at(u % specials);
  }
  if (c.decl.op == OpKind::tt_embedding) {  // an output row's id, by the core slice it reads at a special value
    if (!output) return "element " + std::to_string(i);
    const auto dim = static_cast<std::size_t>(tensor[1]), id = u / dim;
    return "core " + std::to_string(id / specials + 1) + " at " + kSpecialNames.at(id % specials) + ", column " +
           std::to_string(u % dim);
  }
  const std::size_t n = kSpecialRows.size();
  if (rowed(c) && tensor.rank() == 2) return "row " + std::to_string(u / n) + ", column " + std::to_string(u % n);
  // A reduction's value per row; a norm's weight or bias gradient per column.
  if (rows(c)) return (output ? "row " : "column ") + std::to_string(i);
  if (pairs(c) && tensor.numel() == 1) return "the loss";
  // A row of B-spline bases: its input, then the basis.
  if (tensor.rank() == 2) {
    const auto bases = static_cast<std::size_t>(tensor[1]);
    return std::string(kSpecialNames.at(u / bases)) + ", basis " + std::to_string(u % bases);
  }
  if (!pairs(c)) return kSpecialNames.at(u);
  const bool probability = c.decl.op == OpKind::bce_with_logits;
  const std::size_t k = special_second_operands(c.decl.op).size();
  return std::string("(") + kSpecialNames.at(u / k) + ", " +
         (probability ? kSpecialProbabilityNames.at(u % k) : kSpecialNames.at(u % k)) + ")";
}

}  // namespace gp
