// `gradparity list specials`: what every op must give at IEEE 754's special values, forward and backward, as
// Markdown (docs/special-values.md is this output; ctest docs/special-values keeps them equal): the page, the unary,
// binary and layout ops, the ops along rows and the products here, the other ops in list_specials_other.cpp. The
// sets come from harness/check/special_values.hpp, as the checks take them.
#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cases/special_values.hpp"
#include "cli/commands.hpp"
#include "cli/list_specials_tables.hpp"
#include "harness/check/special_values.hpp"

namespace gp::cli::specials {

std::string op_text(const Case& c) {
  const std::string attrs = attrs_to_string(c.decl.op, c.decl.attrs);
  return std::string(op_name(c.decl.op)) + (attrs.empty() ? "" : "(" + attrs + ")");
}

void Grouped::add(std::pair<std::string, std::string> item, DType t) {
  auto at = std::find(items.begin(), items.end(), item);
  if (at == items.end()) {
    items.push_back(std::move(item));
    dtypes.emplace_back(dtype_name(t));
  } else {
    dtypes[static_cast<std::size_t>(at - items.begin())] += ", " + std::string(dtype_name(t));
  }
}

std::string grid(const std::string& corner, const std::vector<std::string>& rows,
                 const std::vector<std::string>& columns, const std::vector<SpecialSet>& sets) {
  std::string out = "| " + corner + " |";
  for (const std::string& name : columns) out += " " + name + " |";
  out += "\n|---|";
  for (std::size_t j = 0; j < columns.size(); ++j) out += "---|";
  out += "\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out += "| " + rows[i] + " |";
    for (std::size_t j = 0; j < columns.size(); ++j) out += " " + sets.at(i * columns.size() + j).describe() + " |";
    out += "\n";
  }
  return out;
}

std::string row_grid(const std::vector<SpecialSet>& sets) {
  std::vector<std::string> columns, rows;
  for (std::size_t j = 0; j < kSpecialRows.size(); ++j) columns.push_back(std::to_string(j));
  for (std::size_t r = 0; r * columns.size() < sets.size(); ++r) rows.push_back(std::to_string(r));
  return grid("row", rows, columns, sets);
}

void print_value_and_gradients(bool (*selected)(const Case&), std::string (*as_grid)(const std::vector<SpecialSet>&),
                               std::string (*input_name)(std::size_t)) {
  Grouped ops;
  for (const Case& c : special_value_cases()) {
    if (!selected(c)) continue;
    const SpecialExpectations e = special_expectations(c);
    std::string text = "\nValue:\n\n" + as_grid(e.forward);
    for (std::size_t k = 0; k < e.gradients.size(); ++k)
      text += "\nGradient of " + input_name(k) + " (cotangent 1):\n\n" + as_grid(e.gradients[k]);
    ops.add({op_text(c), text}, c.dtype);
  }
  for (std::size_t i = 0; i < ops.items.size(); ++i)
    fmt::print("\n### `{}` ({})\n{}", ops.items[i].first, ops.dtypes[i], ops.items[i].second);
}

}  // namespace gp::cli::specials

namespace gp::cli {

namespace {

using namespace specials;

bool binary(const Case& c) { return op_family(c.decl.op) == OpFamily::binary; }

// The unary ops: one row per op and attribute set, the dtypes whose sets read alike together.
void print_unary(const char* title, bool backward) {
  fmt::print("\n## {}\n\n| op | dtypes |", title);
  for (std::size_t i = 0; i < kSpecialInputs.size(); ++i) fmt::print(" {} |", kSpecialNames.at(i));
  fmt::print("\n|---|---|");
  for (std::size_t i = 0; i < kSpecialInputs.size(); ++i) fmt::print("---|");
  fmt::print("\n");
  Grouped rows;
  for (const Case& c : special_value_cases()) {
    if (op_family(c.decl.op) != OpFamily::unary) continue;
    const SpecialExpectations e = special_expectations(c);
    std::string cells;
    for (const SpecialSet& s : backward ? e.gradients.at(0) : e.forward) cells += " " + s.describe() + " |";
    rows.add({op_text(c), cells}, c.dtype);
  }
  for (std::size_t i = 0; i < rows.items.size(); ++i)
    fmt::print("| `{}` | {} |{}\n", rows.items[i].first, rows.dtypes[i], rows.items[i].second);
}

// A binary op's grid: a down, b across.
std::string operand_grid(const std::vector<SpecialSet>& sets) {
  const std::vector<std::string> names(kSpecialNames.begin(), kSpecialNames.end());
  return grid("a \\ b", names, names, sets);
}

// The binary ops: a's and b's grids.
void print_binary() {
  fmt::print("\n## Binary ops\n");
  print_value_and_gradients(binary, operand_grid, [](std::size_t k) { return std::string(k == 0 ? "a" : "b"); });
}

// The ops along rows: the rows, the value each reduction's row must give, then the element grids
// of the others (softmax's and log_softmax's values, the gradients but sum's, mean's and max's).
void print_rows() {
  fmt::print("\n## Ops along rows\n\nAlong each row (`axis=-1`) of an 8x8 input:\n\n| row | values |\n|---|---|\n");
  for (std::size_t r = 0; r < kSpecialRows.size(); ++r) {
    std::string values;
    for (const double v : kSpecialRows[r]) {
      SpecialSet one;
      one.values = {v};
      const std::string text = one.describe();
      values += (values.empty() ? "" : ", ") + text.substr(1, text.size() - 2);
    }
    fmt::print("| {} | {} |\n", r, values);
  }
  fmt::print(
      "\nsum's, mean's and max's gradient elements are the cotangent's share: 1 for sum and 1/8 for mean "
      "everywhere; for max 1 at a unique maximum and 0 elsewhere, and where the maximum ties (k equal maxima) or "
      "a NaN is in the row any of 0, 1/k and 1 at those elements (NaN too where a NaN is in the row). The "
      "reductions' values:\n\n| op | dtypes |");
  for (std::size_t r = 0; r < kSpecialRows.size(); ++r) fmt::print(" row {} |", r);
  fmt::print("\n|---|---|");
  for (std::size_t r = 0; r < kSpecialRows.size(); ++r) fmt::print("---|");
  fmt::print("\n");
  Grouped values, grids;
  for (const Case& c : special_value_cases()) {
    if (!along_special_rows(c.decl.op)) continue;
    const SpecialExpectations e = special_expectations(c);
    const bool reduces = op_family(c.decl.op) == OpFamily::reduction;
    if (reduces) {
      std::string cells;
      for (const SpecialSet& s : e.forward) cells += " " + s.describe() + " |";
      values.add({op_text(c), cells}, c.dtype);
    } else {
      grids.add({op_text(c) + "` value", row_grid(e.forward)}, c.dtype);
    }
    const bool linear = c.decl.op == OpKind::sum || c.decl.op == OpKind::mean || c.decl.op == OpKind::max;
    if (!linear) grids.add({op_text(c) + "` gradient (cotangent 1)", row_grid(e.gradients.at(0))}, c.dtype);
  }
  for (std::size_t i = 0; i < values.items.size(); ++i)
    fmt::print("| `{}` | {} |{}\n", values.items[i].first, values.dtypes[i], values.items[i].second);
  for (std::size_t i = 0; i < grids.items.size(); ++i)
    fmt::print("\n### `{} ({})\n\n{}", grids.items[i].first, grids.dtypes[i], grids.items[i].second);
}

// matmul and linear: the value and each gradient as grids (linear's bias gradient one row).
void print_products() {
  fmt::print(
      "\n## Products\n\nmatmul multiplies the 8x8 rows above by their transpose (element (i, j) pairs row i "
      "with row j), linear takes them as x and as W (x W^T) and the bias NaN, +inf, -inf, +0, -0, 1, -2, NaN. "
      "Each element is a sum of products read with IEEE 754 semantics, in any order: NaN where a term is NaN "
      "(a NaN operand, or an infinity times a zero) or terms of both infinities meet, an infinity where the "
      "infinite terms have one sign, else the exact sum of small integers.\n");
  print_value_and_gradients([](const Case& c) { return special_products(c.decl.op); }, row_grid,
                            [](std::size_t k) { return "input " + std::to_string(k); });
}

// The layout ops: their cases; what they must give is the values they move.
void print_layout() {
  fmt::print(
      "\n## Layout ops\n\nEach output element is exactly the input element it moves (a NaN, an infinity, the sign "
      "of a zero kept), each gradient element the cotangent it moves (zeros of either sign where nothing "
      "moves there). The cases, their inputs filled with NaN, +inf, -inf, +0, -0, 1 and -2 in turn:\n\n");
  for (const Case& c : special_value_cases())
    if (op_family(c.decl.op) == OpFamily::layout) fmt::print("- `{}`\n", c.id);
}

}  // namespace

void list_specials() {
  fmt::print(
      "# IEEE special values\n\n"
      "Generated by `gradparity list specials` from `harness/check/special_values.cpp` and the catalog; ctest "
      "`docs/special-values` fails when this file differs from that output. Each unary op, at each attribute "
      "set its cases use and each dtype, has a case `op(specials,shape=5,dtype=D)` whose input is NaN, +inf, "
      "-inf, +0 and -0; each binary op a case `op(specials,shape=49|49,dtype=D)` at every pair of NaN, "
      "+inf, -inf, +0, -0, 1 and -2; each layout op a case at the shapes of its largest catalog case, filled "
      "with those seven values in turn; sum, mean, max, logsumexp, variance, softmax, log_softmax, gumbel_softmax "
      "(noise 0), layer_norm and rms_norm (weights 1, bias 0) a case along eight rows of them; matmul and linear a "
      "case multiplying those rows; bspline_basis, mse_loss, bce_with_logits, cross_entropy, log_matmul_exp and the "
      "optimizer steps cases "
      "of their own (below); the "
      "cotangent is 1. "
      "Every device must give, element by element, one of "
      "the values listed (`gradparity run --filter specials`). Not a bound: a set of exact values, read from "
      "the op's contract (`reference/unary_math.cpp`, `reference/binary.cpp`) with IEEE 754 and C Annex F "
      "semantics and these conventions:\n\n"
      "- **NaN**: NaN, or what the contract's formula gives there, a comparison with NaN being false; for an "
      "op defined piecewise, the value of any of its constant pieces too (which piece a comparison with NaN "
      "selects is the kernel's: PyTorch's relu backward gives the cotangent, the contract's formula 0). A "
      "binary op: NaN where an operand is NaN, or the formula's value (maximum(NaN, 1) = 1, as C's fmax; "
      "pow(NaN, 0) = pow(1, NaN) = 1, as C Annex F).\n"
      "- **+inf, -inf**: the formula at that infinity (exp(-inf) = +0, sin(+inf) = NaN). Where the formula "
      "meets an indeterminate form (silu's -inf * 0, gelu's, hardswish's x min(max(x + 3, 0), 6) / 6), NaN "
      "and the limit (the formula at two huge arguments, when they agree in the dtype); where the function "
      "is NaN next to that infinity, NaN too (C Annex F's pow(-inf, 0.5) = +inf, where pow(-x, 0.5) is "
      "NaN).\n"
      "- **+0, -0**: the formula at that zero. The sign of a zero result counts only for the operations "
      "that IEEE 754 or C Annex F define (neg, square, reciprocal, abs, exp, expm1, log, log1p, sqrt, rsqrt, "
      "sin, cos, tanh; add, sub, mul, div: sin(-0) = -0, 1 / -0 = -inf, -0 + -0 = -0); not pow_scalar, "
      "which libraries take apart (PyTorch's x^0.5 is sqrt x, whose sqrt(-0) = -0), nor the compositions. "
      "A backward takes either zero's derivative, either one-sided one where 0 is a kink, either infinity "
      "at a pole; a forward value the dtype rounds (softplus(0) = ln 2) is the error model's to judge "
      "(`finite`).\n"
      "- **pow**: C Annex F's values (pow(-2, +inf) = +inf, pow(+inf, -0) = 1); a finite nonzero value is "
      "the error model's (`finite`), a zero required, an infinity as itself. Its gradients take every "
      "formulation the contract states (b a^(b - 1) or b z / a; z log a), 0 where the exponent is 0 or the "
      "base 0 and the exponent at least 0 (PyTorch's masks: the derivative of a^0, the limit of a^b log a), "
      "and either infinity at a pole of a zero base.\n"
      "- **Ties**: maximum's and minimum's gradients at equal operands (+0 and -0, two equal infinities) "
      "and at a NaN operand take any of 0, half and the whole cotangent: the catalog's split, or the "
      "input a kernel's comparison selects.\n"
      "- **Rows**: an op along a row with a NaN gives NaN everywhere (max may pass it over). Beside an infinity, "
      "logsumexp, softmax, log_softmax and variance are the contract's max-subtracted formulas (and variance's "
      "two passes) read with IEEE 754 semantics, where they meet inf - inf (a +inf in the row, or nothing but "
      "-inf; variance beside any infinity): NaN, and the limit as the infinities grow (logsumexp +inf, softmax "
      "1/k at k equal +inf and 0 beside them, log_softmax -inf beside a +inf, variance +inf, or 0 where "
      "every entry is the same infinity); elsewhere what the -inf entries give exactly (softmax 0, log_softmax "
      "-inf, log_softmax's gradient 1), and the other finite values, functions of the row's finite entries, "
      "are the error model's to judge (`finite`). gumbel_softmax at noise 0 takes softmax's sets. Beside an "
      "infinity layer_norm's deviations meet inf - inf (NaN or the finite limit), rms_norm divides by an infinite "
      "root (0 at a finite entry, NaN or the limit at an infinite one); the norms' weight gradients are NaN, as "
      "rows 3 and 7 are, and layer_norm's bias gradient sums the eight ones: 8.\n\n"
      "Elsewhere a finite value the dtype cannot hold exactly admits both neighbours (one elementary "
      "rounding: alpha times the cotangent), shown to nine digits; an infinity admits only itself; `0` is a "
      "zero of either sign. Subnormal inputs are judged by the error model instead, a device that may flush "
      "reading them as zeros (`docs/error-model.md`, \"On a kink\").\n");
  print_unary("Unary ops, forward", false);
  print_unary("Unary ops, backward (cotangent 1)", true);
  print_binary();
  print_rows();
  print_products();
  print_pointwise();
  print_composite();
  print_recurrent_and_tensor_train();
  print_layout();
}

}  // namespace gp::cli
