// Accuracy beside speed: each bench row gets what a parity run found for the same call (case,
// device, forward or backward), so a row reads "exp f32, opencl: 0.93 of copy bandwidth, margin
// 0.33, 2.4 ULP".
#pragma once

#include "results/bench.hpp"
#include "results/result.hpp"

namespace gp {

// Fills each row's `accuracy` from the run's forward check (a forward row) or its backward checks
// of every gradient (a backward row: the worst verdict, the largest margin, the smallest
// sensitivity); a model's gradient row and a training step from its forward and backward checks
// together (they run both); rows without such checks in the run keep none (a creation's always).
// Returns the rows that got one.
std::size_t attach_accuracy(BenchReport& bench, const RunReport& parity);

}  // namespace gp
