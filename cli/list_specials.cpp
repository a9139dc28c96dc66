// `gradparity list specials`: what every unary, binary and layout op, the ops along rows, the products, bspline_basis
// and the losses must give at IEEE 754's special values, forward and backward, as Markdown (docs/special-values.md is
// this output; ctest docs/special-values keeps them equal). The sets come from harness/check/special_values.hpp, as the
// checks take them.
#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cases/special_values.hpp"
#include "cli/commands.hpp"
#include "harness/check/special_values.hpp"

namespace gp::cli {

namespace {

// The op and its attributes: the case id without its variant, shape and dtype.
std::string op_text(const Case& c) {
  const std::string attrs = attrs_to_string(c.decl.op, c.decl.attrs);
  return std::string(op_name(c.decl.op)) + (attrs.empty() ? "" : "(" + attrs + ")");
}

bool binary(const Case& c) { return op_family(c.decl.op) == OpFamily::binary; }

// Groups of text by a key, in first-seen order, with the dtypes that gave each.
struct Grouped {
  std::vector<std::pair<std::string, std::string>> items;  // (key, text)
  std::vector<std::string> dtypes;
  void add(std::pair<std::string, std::string> item, DType t) {
    auto at = std::find(items.begin(), items.end(), item);
    if (at == items.end()) {
      items.push_back(std::move(item));
      dtypes.emplace_back(dtype_name(t));
    } else {
      dtypes[static_cast<std::size_t>(at - items.begin())] += ", " + std::string(dtype_name(t));
    }
  }
};

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

// A Markdown grid of sets, row-major, with its rows' and columns' labels.
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

// A binary op's grid: a down, b across.
std::string operand_grid(const std::vector<SpecialSet>& sets) {
  const std::vector<std::string> names(kSpecialNames.begin(), kSpecialNames.end());
  return grid("a \\ b", names, names, sets);
}

// The grid of an op's elements along the special rows (its output or a gradient): rows down,
// columns across; a rank-1 tensor (a bias's gradient) one row.
std::string row_grid(const std::vector<SpecialSet>& sets) {
  std::vector<std::string> columns, rows;
  for (std::size_t j = 0; j < kSpecialRows.size(); ++j) columns.push_back(std::to_string(j));
  for (std::size_t r = 0; r * columns.size() < sets.size(); ++r) rows.push_back(std::to_string(r));
  return grid("row", rows, columns, sets);
}

// Per op of the kind `selected` picks, the grids of its value and of each gradient (named by
// `input_name`), the dtypes alike together.
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

// bspline_basis: a row of bases per input (NaN, +inf, -inf, +0, -0 down), and its gradient.
std::string spline_grid(const std::vector<SpecialSet>& sets) {
  std::vector<std::string> rows(kSpecialNames.begin(), kSpecialNames.begin() + kSpecialInputs.size()), columns;
  for (std::size_t j = 0; j * rows.size() < sets.size(); ++j) columns.push_back(std::to_string(j));
  if (columns.size() == 1) return grid("x", rows, {"gradient"}, sets);
  return grid("x \\ basis", rows, columns, sets);
}

// A loss's grid: x down, the target across (bce_with_logits' a probability); its value one cell.
std::string loss_grid(const std::vector<SpecialSet>& sets) {
  const std::vector<std::string> x(kSpecialNames.begin(), kSpecialNames.end());
  if (sets.size() == 1) return grid("", {"loss"}, {"value"}, sets);
  const bool probabilities = sets.size() == x.size() * kSpecialProbabilities.size();
  std::vector<std::string> target(kSpecialNames.begin(), kSpecialNames.end());
  if (probabilities) target.assign(kSpecialProbabilityNames.begin(), kSpecialProbabilityNames.end());
  return grid("x \\ target", x, target, sets);
}

void print_pointwise() {
  fmt::print(
      "\n## bspline_basis and the losses\n\nbspline_basis at NaN, +inf, -inf, +0 and -0 (each a row of bases); "
      "mse_loss at every pair of the seven values (x, target), bce_with_logits at x among them and a target "
      "among NaN, +0, -0, 1 and 0.5. Each element is the contract's value at the operands it reads, NaN too "
      "where one of them is NaN (a row of bases outside the grid, NaN included, is zeros); a finite nonzero "
      "value is the error model's (`finite`). A loss's value reads every pair, a NaN among them.\n");
  print_value_and_gradients([](const Case& c) { return c.decl.op == OpKind::bspline_basis; }, spline_grid,
                            [](std::size_t) { return std::string("x"); });
  print_value_and_gradients(
      [](const Case& c) { return special_pointwise(c.decl.op) && op_family(c.decl.op) == OpFamily::loss; }, loss_grid,
      [](std::size_t k) { return std::string(k == 0 ? "x" : "the target"); });
}

// An optimizer step's output: per new parameter or state row, the input at a special value down and
// that value across.
std::string optimizer_grid(const std::vector<SpecialSet>& sets) {
  const std::vector<std::string> values(kSpecialNames.begin(), kSpecialNames.end());
  // adamw's output: 3 rows (parameter, m, v) of 4 inputs x 7 values; sgd's 2 rows (parameter, buffer) of 3.
  constexpr std::size_t kAdamwRows = 3, kAdamwInputs = 4;
  const bool adamw = sets.size() == kAdamwRows * kAdamwInputs * values.size();
  const std::size_t inputs = adamw ? kAdamwInputs : 3, per_row = inputs * values.size(), rows = sets.size() / per_row;
  const std::vector<std::string> input_names = adamw ? std::vector<std::string>{"parameter", "gradient", "m", "v"}
                                                     : std::vector<std::string>{"parameter", "gradient", "buffer"};
  std::string out;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::string row_name = r == 0 ? "parameter" : input_names.at(r + 1);
    out += (r ? "\n" : "") + std::string("New ") + row_name + ":\n\n" +
           grid("input \\ value", input_names, values,
                std::vector<SpecialSet>(sets.begin() + static_cast<std::ptrdiff_t>(r * per_row),
                                        sets.begin() + static_cast<std::ptrdiff_t>((r + 1) * per_row)));
  }
  return out;
}

// cross_entropy's loss one cell, its gradient and log_matmul_exp's grids along the rows.
std::string composite_grid(const std::vector<SpecialSet>& sets) {
  return sets.size() == 1 ? grid("", {"loss"}, {"value"}, sets) : row_grid(sets);
}

void print_composite() {
  fmt::print(
      "\n## cross_entropy, log_matmul_exp and the optimizer steps\n\ncross_entropy takes the 8x8 rows above "
      "as logits with the targets 0, 0, 1, 3, 4, 5, 0, 3 (a +inf, a -inf beside a +inf, the NaN row's 0, "
      "the -0 row, the -inf row, a -inf beside a finite maximum, a finite entry); log_matmul_exp multiplies "
      "the rows by their transpose as matmul does; an optimizer step takes each input in turn at the seven "
      "values, the others at 1 (parameter), 0.5 (gradient), 0.25 (buffer, m, v), adamw's v never negative. Each "
      "element is the contract's value read with IEEE 754 semantics; where the element reads an infinity NaN "
      "too (a formulation may meet inf - inf where the contract's does not), and where the contract is NaN "
      "the limit as the infinities grow, when one exists; a finite nonzero value is the error model's "
      "(`finite`).\n");
  print_value_and_gradients(
      [](const Case& c) { return c.decl.op == OpKind::cross_entropy || c.decl.op == OpKind::log_matmul_exp; },
      composite_grid, [](std::size_t k) { return k == 0 ? std::string("input 0") : std::string("input 1"); });
  print_value_and_gradients([](const Case& c) { return op_family(c.decl.op) == OpFamily::optimizer; }, optimizer_grid,
                            [](std::size_t) { return std::string(); });
}

// The distinct sets of a run of elements, each with how many elements take it: "{finite} (63), {NaN} (1)".
std::string distinct_sets(std::vector<SpecialSet>::const_iterator first, std::vector<SpecialSet>::const_iterator last) {
  std::vector<std::pair<std::string, int>> seen;
  for (auto it = first; it != last; ++it) {
    const std::string d = it->describe();
    auto at = std::find_if(seen.begin(), seen.end(), [&](const auto& p) { return p.first == d; });
    if (at == seen.end()) {
      seen.emplace_back(d, 1);
    } else {
      ++at->second;
    }
  }
  std::string out;
  for (const auto& [d, n] : seen) out += (out.empty() ? "" : ", ") + d + " (" + std::to_string(n) + ")";
  return out;
}

// A tensor's elements grouped by its first axis (a GRU batch row, a tt_embedding id or core slice),
// each group's distinct sets in one cell.
std::string grouped_table(const std::string& corner, const std::vector<std::string>& groups,
                          const std::vector<SpecialSet>& sets) {
  std::string out = "| " + corner + " | sets |\n|---|---|\n";
  const std::size_t per = sets.size() / groups.size();
  for (std::size_t g = 0; g < groups.size(); ++g)
    out += "| " + groups[g] + " | " +
           distinct_sets(sets.begin() + static_cast<std::ptrdiff_t>(g * per),
                         sets.begin() + static_cast<std::ptrdiff_t>((g + 1) * per)) +
           " |\n";
  return out;
}

// The GRU cell at x's rows then h's at the seven values, and tt_embedding's ids reading a special
// core slice: each tensor by its first axis.
void print_recurrent_and_tensor_train() {
  fmt::print(
      "\n## gru_cell and tt_embedding\n\nThe GRU cell (one input feature, one hidden unit) at 14 batch rows: x "
      "at the seven values in rows 0-6 (h -0.25 there), h at them in rows 7-13 (x 0.5 there); the weights and "
      "biases ordinary values (W_ih 0.5, -0.25, 0.75; W_hh 0.25, 0.5, -0.5; b_ih 0.125, -0.25, 0.375; b_hh -0.125, "
      "0.25, 0.0625). tt_embedding at 21 ids: id 7c + s reads slice s of core c + 1, whose first element holds "
      "the s-th value (all other elements 0.5), and slice 7 of the other cores. Sets as for the ops above "
      "(the contract, NaN beside an infinity, the limit where the contract is NaN); each row lists the sets "
      "its elements take, with how many take each.\n");
  const std::size_t k = kSpecialOperands.size();
  Grouped ops;
  for (const Case& c : special_value_cases()) {
    if (c.decl.op != OpKind::gru_cell && c.decl.op != OpKind::tt_embedding) continue;
    const SpecialExpectations e = special_expectations(c);
    std::vector<std::string> rows;
    std::string text;
    if (c.decl.op == OpKind::gru_cell) {
      for (const char* input : {"x ", "h "})
        for (const char* v : kSpecialNames) rows.push_back(input + std::string(v));
      text = "\nh':\n\n" + grouped_table("row", rows, e.forward);
      const char* names[] = {"x", "h", "W_ih", "W_hh", "b_ih", "b_hh"};
      for (std::size_t g = 0; g < e.gradients.size(); ++g)
        text += "\nGradient of " + std::string(names[g]) + " (cotangent 1):\n\n" +
                (g < 2 ? grouped_table("row", rows, e.gradients[g])
                       : grouped_table("gate row", {"r", "z", "n"}, e.gradients[g]));
    } else {
      for (std::size_t core = 1; core <= 3; ++core)
        for (const char* v : kSpecialNames) rows.push_back("core " + std::to_string(core) + " at " + v);
      text = "\nValue:\n\n" + grouped_table("id", rows, e.forward);
      for (std::size_t g = 0; g < e.gradients.size(); ++g) {
        std::vector<std::string> slices;
        for (std::size_t slice = 0; slice < 8; ++slice)
          slices.push_back(slice < k ? "slice " + std::to_string(slice) + " (" + kSpecialNames.at(slice) + ")"
                                     : "slice 7");
        text += "\nGradient of core " + std::to_string(g + 1) + " (cotangent 1):\n\n" +
                grouped_table("slice", slices, e.gradients[g]);
      }
    }
    ops.add({op_text(c), text}, c.dtype);
  }
  for (std::size_t i = 0; i < ops.items.size(); ++i)
    fmt::print("\n### `{}` ({})\n{}", ops.items[i].first, ops.dtypes[i], ops.items[i].second);
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
