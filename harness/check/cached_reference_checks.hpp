// The reference's own checks of a subject (its finite differences, a model's bound and
// probes), read from the reference cache when it holds them. They are the same on every device
// and in every run of one build at one seed: without the cache a ctest entry per device ran them
// again, and a warm run spent a tenth of its time on them.
#pragma once

#include <vector>

#include "harness/check/cache_blob.hpp"
#include "harness/check/subject.hpp"
#include "results/result.hpp"

namespace gp {

// Keyed by the subject's id, the seed, the numerical options and, for a primitive, its inputs'
// bytes (the sources hash in every key covers the catalog, the inputs and the reference). A
// result read back carries, as time_ms, its share of the time the read took.
std::vector<CheckResult> reference_checks(const Subject& subject, const PreparedSubject& prepared,
                                          const RunContext& run);

// A result's bytes in a cache entry, every field.
void encode(BlobWriter& w, const CheckResult& c);
void decode(BlobReader& r, CheckResult& c);

}  // namespace gp
