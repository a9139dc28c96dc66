// The large tier's complete check of one tensor (a matrix product's or a line-wise one), read
// from the reference cache when it holds the outcome for the same bytes from the device. Its
// reference cannot be kept there (80 bytes an element: gigabytes a case), so a warm run evaluated
// every line again and took longer than the device's work by far (the whole tier on an H200, warm:
// 93.6 s, the lines' Tracked evaluations most of it). The check is a function of the case, the
// seed, the device profile, the tolerance and the device's tensor, all in the key (with the
// reference's sources hash in every key): the same bytes get the same judgement, other bytes (a
// changed kernel or driver, a selftest's fault) a check of their own.
#pragma once

#include <optional>

#include "harness/large/complete_lines.hpp"
#include "results/result.hpp"

namespace gp {

// The complete check of in.check.tensor (complete_product_check, else complete_line_check), or
// nullopt where it has none; read from reference.cache when present, else computed and stored.
std::optional<CheckResult> cached_complete_check(const CompleteLinesInput& in, std::uint64_t seed);

}  // namespace gp
