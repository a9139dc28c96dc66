// Calls at IEEE 754's special values (docs/special-values.md), each op at each attribute set its
// catalog cases use and each of its dtypes, cotangent 1: a unary op at NaN, +inf, -inf, +0 and -0
// (`exp(specials,shape=5,dtype=f32)`); a binary op at every pair of NaN, +inf, -inf, +0, -0, 1
// and -2 (`mul(specials,shape=49|49,dtype=f32)`); a layout op at the shapes of its largest catalog case,
// filled with those seven values in turn (`transpose(specials,shape=64x128,dtype=f32)`); sum, mean,
// max, logsumexp, variance, softmax, log_softmax, gumbel_softmax, layer_norm and rms_norm along rows
// of them
// (`sum(axis=-1,keepdim=0,specials,shape=8x8,dtype=f32)`); matmul and linear multiplying those rows
// (`matmul(specials,shape=8x8|8x8,dtype=f32)`); pow, mse_loss and bce_with_logits at pairs as the
// binary ops, bspline_basis at the unary ops' inputs.
// What a device must give there is not a bound but a set of exact values
// (harness/check/special_values.hpp).
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "cases/case.hpp"

namespace gp {

// A unary op's inputs, in this order; subnormal inputs are judged by the error model instead (a
// device that may flush reads them as zeros: docs/error-model.md, "On a kink").
inline constexpr std::array<double, 5> kSpecialInputs = {__builtin_nan(""), __builtin_inf(), -__builtin_inf(), 0.0,
                                                         -0.0};
// A binary op's operands: element i pairs kSpecialOperands[i / 7] with kSpecialOperands[i % 7].
inline constexpr std::array<double, 7> kSpecialOperands = {
    __builtin_nan(""), __builtin_inf(), -__builtin_inf(), 0.0, -0.0, 1.0, -2.0};
// The rows of the ops along rows (the last axis): finite values with a tie at the maximum;
// +inf; +inf and -inf; NaN; only -0; only -inf; -inf beside a tied finite maximum; everything.
inline constexpr std::array<std::array<double, 8>, 8> kSpecialRows = {{
    {1, -2, 0.0, -0.0, 1, 1, -2, 1},
    {__builtin_inf(), 1, -2, 0.0, -0.0, 1, -2, 1},
    {__builtin_inf(), -__builtin_inf(), 1, -2, 0.0, -0.0, 1, -2},
    {__builtin_nan(""), 1, -2, 0.0, -0.0, 1, -2, 1},
    {-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0},
    {-__builtin_inf(), -__builtin_inf(), -__builtin_inf(), -__builtin_inf(), -__builtin_inf(), -__builtin_inf(),
     -__builtin_inf(), -__builtin_inf()},
    {-__builtin_inf(), -2, -2, -__builtin_inf(), -2, -__builtin_inf(), -2, -2},
    {__builtin_nan(""), __builtin_inf(), -__builtin_inf(), 1, -2, 0.0, -0.0, 1},
}};
// Their names, for reports and the table.
inline constexpr std::array<const char*, 7> kSpecialNames = {"NaN", "+inf", "-inf", "+0", "-0", "1", "-2"};
// bce_with_logits' target, a probability, pairs with those operands at NaN, +0, -0, 1 and 0.5.
inline constexpr std::array<double, 5> kSpecialProbabilities = {__builtin_nan(""), 0.0, -0.0, 1.0, 0.5};
inline constexpr std::array<const char*, 5> kSpecialProbabilityNames = {"NaN", "+0", "-0", "1", "0.5"};

// sum, mean, max, logsumexp, variance, softmax, log_softmax, gumbel_softmax (noise 0), layer_norm
// and rms_norm (weights 1, bias 0): their cases run along kSpecialRows.
bool along_special_rows(OpKind op);
// matmul and linear: their cases multiply kSpecialRows by itself (8x8 · 8x8; linear's bias the
// seven values in turn).
bool special_products(OpKind op);
// pow, bspline_basis, mse_loss and bce_with_logits: sets element by element from the contract at
// the element's operands (harness/check/special_pointwise.hpp); pow, mse_loss and bce_with_logits
// pair their operands as the binary ops do (bce_with_logits' target kSpecialProbabilities),
// bspline_basis takes kSpecialInputs.
bool special_pointwise(OpKind op);
// The operands input 1 of a paired op takes: kSpecialOperands, or bce_with_logits' probabilities.
std::span<const double> special_second_operands(OpKind op);
// cross_entropy (logits the rows, a target per row: kSpecialTargets), log_matmul_exp (the rows by
// their transpose, as matmul) and the optimizer steps (each input in turn takes the seven values,
// the others kOptimizerOrdinary): sets from the contract, or its limit where it meets an
// indeterminate form (harness/check/special_composite.hpp).
bool special_composite(OpKind op);
// cross_entropy's target per row of kSpecialRows: a +inf, a -inf beside a +inf, the NaN row's 0,
// the -0 row, the -inf row, a -inf beside a finite maximum, a finite entry.
inline constexpr std::array<double, 8> kSpecialTargets = {0, 0, 1, 3, 4, 5, 0, 3};
// An optimizer step's inputs (parameter, gradient, momentum buffer or m, v) where another takes a
// special value.
inline constexpr std::array<double, 4> kOptimizerOrdinary = {1, 0.5, 0.25, 0.25};

// The table, in catalog order. Built once.
const std::vector<Case>& special_value_cases();

// Where element i of a special-values case's output (or of a gradient, of shape `tensor`) is, in
// words: "-inf", "(NaN, 1)", "element 5", "row 3" ("row 3, column 1" in a reduction's gradient or a
// product's matrix).
std::string special_input_text(const Case& c, std::int64_t i, const Shape& tensor);

}  // namespace gp
