// `gradparity list specials`, the ops with cases of their own (cli/list_specials_tables.hpp):
// bspline_basis and the losses, cross_entropy, log_matmul_exp, the optimizer steps, the GRU cell
// and tt_embedding.
#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cases/special_values.hpp"
#include "cli/list_specials_tables.hpp"
#include "harness/check/special_values.hpp"

namespace gp::cli::specials {

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace gp::cli::specials
