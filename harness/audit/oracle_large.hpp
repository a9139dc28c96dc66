// The oracle check of a large-tier case (docs/scale.md): the reference at some of the case's
// sampled elements against the same formulas in MPFR, each element on its slice
// (reference/element_slice.hpp: the op over what that element reads, the same terms in the same
// order), so that the oracle's cost is the slice's, not the whole case's. The sampled reference
// is the small tier's formulas evaluated on those slices; this checks them at the large tier's
// real sizes: a GEMM element's dot product of 4,096 terms, a softmax row of 50,257.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/audit/oracle_check.hpp"

namespace gp {

struct SampledReference;

// What `gradparity run` compares of a large case: `points` sampled elements per output and
// gradient (spread over the sample, its first and last included), each on a slice of at most
// `max_slice_elements` gathered input elements; the elements on longer slices (a reduction's line
// of 10^7, a GEMM dot product of 65,536 terms) are counted as skipped, not compared.
struct LargeOracleOptions {
  std::int64_t points = 4;
  std::int64_t max_slice_elements = std::int64_t{1} << 16;
  // The devices whose bounds the reference must stay inside (OracleOptions::devices).
  std::vector<DeviceMath> devices;
};

// Elements compared go to the result's directions and points, those on slices over the limit to
// points_skipped; a case with no element compared is `skipped`. Throws what the reference or the
// oracle throws.
OracleCaseResult oracle_check_large_case(const Case& c, const SampledReference& reference,
                                         const LargeOracleOptions& opts);

// The same, read from the reference cache (run.reference_cache) when it holds it: keyed by the
// case, the seed, its inputs' and cotangent's bytes, the sample, the options and the devices'
// profiles (oracle_cache.cpp).
OracleCaseResult cached_oracle_check_large_case(const Case& c, const SampledReference& reference, const RunContext& run,
                                                const LargeOracleOptions& opts);

}  // namespace gp
