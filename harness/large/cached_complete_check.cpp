#include "harness/large/cached_complete_check.hpp"

#include "harness/check/cached_reference_checks.hpp"
#include "harness/check/reference_cache.hpp"
#include "harness/large/sampled_reference.hpp"

namespace gp {

namespace {

struct CompleteOutcome {
  std::optional<CheckResult> result;
};

void encode(BlobWriter& w, const CompleteOutcome& o) {
  w.u64(o.result ? 1 : 0);
  if (o.result) gp::encode(w, *o.result);
}

void decode(BlobReader& r, CompleteOutcome& o) {
  if (r.u64() == 0) return;
  o.result.emplace();
  gp::decode(r, *o.result);
}

std::optional<CheckResult> complete_check(const CompleteLinesInput& in, std::uint64_t seed) {
  if (std::optional<CheckResult> product = complete_product_check(in.check, seed)) return product;
  return complete_line_check(in, seed);
}

}  // namespace

std::optional<CheckResult> cached_complete_check(const CompleteLinesInput& in, std::uint64_t seed) {
  const CompleteCheckInput& c = in.check;
  const SampledReference& reference = c.reference;
  const bool product = op_family(reference.call.kind) == OpFamily::linalg;
  // Nothing to look up where no check runs (a tensor past the limits): hashing a 2^31 element
  // tensor for it would cost seconds.
  if (!reference.cache ||
      (!product && line_check_kind(reference.call, c.tensor.tensor, c.tensor.numel, in.limits) == LineCheck::none))
    return complete_check(in, seed);
  CacheKeyBuilder key("complete-check");
  key.add(c.c.id).add(seed).add(static_cast<std::uint64_t>(in.limits.complete_elements));
  key.add(static_cast<std::uint64_t>(in.limits.streamed_complete_elements));
  key.add(static_cast<std::uint64_t>(c.tensor.tensor) + 1).add(in.profile, in.flush).add(c.tol.describe());
  for (const HostTensor& t : reference.inputs) key.add(t);
  key.add(reference.cotangent).add(c.full);
  std::optional<CheckResult> r = cached<CompleteOutcome>(reference.cache, key, Phase::comparisons, [&] {
                                   return CompleteOutcome{complete_check(in, seed)};
                                 }).result;
  if (r) r->backend = c.device_id;  // the entry may come from another device of this profile
  return r;
}

}  // namespace gp
