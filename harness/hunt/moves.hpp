// The moves of `gradparity hunt` (docs/hunt.md): small changes to a case's input values that
// walk towards where kernels lose accuracy: ULP steps, exponent jumps, sign flips, and steps
// towards or onto the points where ops change behaviour (kinks, overflow and underflow
// thresholds). Shapes never change; index inputs are never moved.
#pragma once

#include <cstdint>
#include <vector>

#include "cases/case.hpp"
#include "core/tensor.hpp"
#include "harness/check/rng.hpp"

namespace gp {

enum class Move : std::uint8_t { ulp_step, exponent_jump, sign_flip, toward_point, onto_point };
inline constexpr int kMoveCount = 5;

// The points where input k of a case changes behaviour in its dtype: 0 and +-1, the op's kinks
// and its domain's, the half-integers next to 0 of a half_integer_free domain, the arguments where
// exp overflows and leaves the normal range (+-log of the largest finite and of the smallest normal
// value), +-sqrt of the largest finite value (a square overflows past it), half the largest
// finite value, the domain's edges.
std::vector<double> points_of_interest(const Case& c, int k);

// The inputs a move may change: floating-point inputs not drawn as class indices or constants.
std::vector<int> movable_inputs(const Case& c);

// `inputs` with one move applied to 1 to 3 elements of one movable input, each rounded to its
// dtype (an element that would leave the finite range keeps its value). `rng` decides all.
std::vector<HostTensor> apply_move(const Case& c, const std::vector<HostTensor>& inputs, Move move, Rng& rng);

// Whether inputs keep what the catalog's checks of the op assume of every sample: no element
// exactly at a kink where no check states the readings a kernel may take there (every kink, tie
// and tied maximum of today's catalog has them: harness/check/other_readings.hpp), no negative
// value where the domain has none (adamw's second moment).
bool keeps_structure(const Case& c, const std::vector<HostTensor>& inputs);

}  // namespace gp
