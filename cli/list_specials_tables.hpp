// The Markdown tables of `gradparity list specials` (docs/special-values.md): the helpers its two
// files share, list_specials.cpp (the unary, binary and layout ops, the ops along rows, the
// products, the whole page) and list_specials_other.cpp (bspline_basis, the losses,
// log_matmul_exp, the optimizer steps, the GRU cell and tt_embedding).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cases/case.hpp"
#include "harness/check/special_values.hpp"

namespace gp::cli::specials {

// The op and its attributes: the case id without its variant, shape and dtype.
std::string op_text(const Case& c);

// Groups of text by a key, in first-seen order, with the dtypes that gave each.
struct Grouped {
  std::vector<std::pair<std::string, std::string>> items;  // (key, text)
  std::vector<std::string> dtypes;
  void add(std::pair<std::string, std::string> item, DType t);
};

// A Markdown grid of sets, row-major, with its rows' and columns' labels.
std::string grid(const std::string& corner, const std::vector<std::string>& rows,
                 const std::vector<std::string>& columns, const std::vector<SpecialSet>& sets);

// The grid of an op's elements along the special rows (its output or a gradient): rows down,
// columns across; a rank-1 tensor (a bias's gradient) one row.
std::string row_grid(const std::vector<SpecialSet>& sets);

// Per op of the kind `selected` picks, the grids of its value and of each gradient (named by
// `input_name`), the dtypes alike together.
void print_value_and_gradients(bool (*selected)(const Case&), std::string (*as_grid)(const std::vector<SpecialSet>&),
                               std::string (*input_name)(std::size_t));

// bspline_basis and the losses; cross_entropy, log_matmul_exp and the optimizer steps; the GRU cell
// and tt_embedding (list_specials_other.cpp).
void print_pointwise();
void print_composite();
void print_recurrent_and_tensor_train();

}  // namespace gp::cli::specials
