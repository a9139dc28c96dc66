// Bounds that read no budget of their device profile are computed once for every profile
// (cached_bounds), and once for both flush modes where they meet no subnormal value: bit for bit
// what each device computes alone. Bounds that read one are not shared, nor is an evaluation
// built on them, whether they come from the memo of the subject's reference data or from the
// cache folder.
#include <gtest/gtest.h>

#include <chrono>

#include "cases/registry.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/profile_memo.hpp"
#include "harness/check/reference_cache.hpp"
#include "harness/graph/node_memo.hpp"
#include "support/four_ulps.hpp"
#include "support/lookup.hpp"
#include "support/temp_folder_test.hpp"

namespace gp {
namespace {

using testing::kFourUlps;
const MathProfile* const kExact = &correctly_rounded_profile();

using testing::case_named;

constexpr const char* kMatmul = "matmul(shape=16x33|33x9,dtype=f32)";  // reads no budget
constexpr const char* kExp = "exp(shape=16x33,dtype=f32)";             // reads exp's

using SharedBounds = TempFolderTest;

std::vector<long double> flat_errors(const ref::Bounded& b) {
  std::vector<long double> out;
  auto add = [&](const ref::RefTensor& t) {
    for (const auto& e : t.err) out.insert(out.end(), {e.det, e.acc, e.prob, e.spec});
  };
  add(b.output);
  for (const auto& g : b.grads) add(g);
  return out;
}

// The bounds of `id` under `profile` with no cache: what a run without sharing computes.
std::vector<long double> alone(const char* id, const MathProfile* profile) {
  const ReferenceData d = prepare_reference(case_named(id), 1);
  return flat_errors(d.bounded(profile));
}

TEST_F(SharedBounds, AProfileFreeEvaluationIsComputedOnceForEveryProfile) {
  ReferenceCache cache(dir_, kDefaultReferenceCacheCap);
  const ReferenceData cpu = prepare_reference(case_named(kMatmul), 1, &cache);
  const auto first = flat_errors(cpu.bounded(kExact));
  EXPECT_EQ(cache.counts().stored, 1);
  const ReferenceData gpu = prepare_reference(case_named(kMatmul), 1, &cache);
  const auto second = flat_errors(gpu.bounded(&kFourUlps));
  EXPECT_EQ(cache.counts().stored, 1) << "the second profile computed the bounds again";
  EXPECT_EQ(cache.counts().hits, 1);
  EXPECT_EQ(cache.counts().misses, 1) << "the shared key's look-up counted as a miss";
  EXPECT_EQ(second, alone(kMatmul, &kFourUlps));
  EXPECT_EQ(first, second);
}

TEST_F(SharedBounds, AnEvaluationThatReadsItsProfileIsNotShared) {
  ReferenceCache cache(dir_, kDefaultReferenceCacheCap);
  const ReferenceData cpu = prepare_reference(case_named(kExp), 1, &cache);
  const auto first = flat_errors(cpu.bounded(kExact));
  const ReferenceData gpu = prepare_reference(case_named(kExp), 1, &cache);
  const auto second = flat_errors(gpu.bounded(&kFourUlps));
  EXPECT_EQ(cache.counts().stored, 2);
  EXPECT_EQ(second, alone(kExp, &kFourUlps));
  EXPECT_NE(first, second);
  // Read back under its own profile, from its own entry.
  const ReferenceData again = prepare_reference(case_named(kExp), 1, &cache);
  EXPECT_EQ(flat_errors(again.bounded(&kFourUlps)), second);
  EXPECT_EQ(cache.counts().stored, 2);
}

// The case's reference data with every input scaled by 2^-66 (exactly): the matmul's products,
// near 2^-132, lie below f32's smallest normal number, where a device that may flush loses them.
ReferenceData with_subnormal_products(const char* id, ReferenceCache* cache) {
  ReferenceData d = prepare_reference(case_named(id), 1, cache);
  d.ref_inputs.clear();
  for (HostTensor& t : d.inputs) {
    for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, std::ldexp(t.get(i), -66));
    d.ref_inputs.push_back(ref::RefTensor::from_host(t));
  }
  return d;
}

// The flush mode is the other half of a device's arithmetic: lavapipe's and NVIDIA's Vulkan may
// flush subnormal results, the cpu and PoCL do not. An evaluation that meets no value below the
// smallest normal number is the same under both and computed once; one that meets such values
// (a flushing device may lose each whole) is computed per mode.
TEST_F(SharedBounds, AnEvaluationThatMeetsNoSubnormalIsComputedOnceForBothFlushModes) {
  ReferenceCache cache(dir_, kDefaultReferenceCacheCap);
  const ReferenceData cpu = prepare_reference(case_named(kMatmul), 1, &cache);
  const auto first = flat_errors(cpu.bounded(kExact, false));
  const ReferenceData vulkan = prepare_reference(case_named(kMatmul), 1, &cache);
  const auto second = flat_errors(vulkan.bounded(&kFourUlps, true));
  EXPECT_EQ(cache.counts().stored, 1) << "the flushing device computed the bounds again";
  const ReferenceData direct = prepare_reference(case_named(kMatmul), 1);
  EXPECT_EQ(second, flat_errors(direct.bounded(&kFourUlps, true)));
  EXPECT_EQ(first, second);
}

TEST_F(SharedBounds, AnEvaluationThatMeetsSubnormalsIsComputedPerFlushMode) {
  ReferenceCache cache(dir_, kDefaultReferenceCacheCap);
  const auto keeps = flat_errors(with_subnormal_products(kMatmul, &cache).bounded(kExact, false));
  const auto flushes = flat_errors(with_subnormal_products(kMatmul, &cache).bounded(&kFourUlps, true));
  EXPECT_EQ(cache.counts().stored, 2) << "a flushing device was given the bounds of one that keeps subnormals";
  EXPECT_EQ(flushes, flat_errors(with_subnormal_products(kMatmul, nullptr).bounded(&kFourUlps, true)));
  EXPECT_NE(keeps, flushes);
  // Either profile of one flush mode still shares them.
  EXPECT_EQ(flat_errors(with_subnormal_products(kMatmul, &cache).bounded(&kFourUlps, false)), keeps);
  EXPECT_EQ(cache.counts().stored, 2);
}

// Without a cache folder (--no-reference-cache) a subject's own memo shares the same way: the
// matmul's bounds once for both profiles and both flush modes, exp's per profile, the long-double
// reference's apart.
TEST(ProfileMemo, ASubjectsDevicesShareWhatReadsNoBudgetWithoutACache) {
  const ReferenceData matmul = prepare_reference(case_named(kMatmul), 1);
  const ref::Bounded& cpu = matmul.bounded(kExact, false);
  EXPECT_EQ(&matmul.bounded(&kFourUlps, true), &cpu) << "the matmul's bounds were computed again";
  EXPECT_EQ(flat_errors(cpu), alone(kMatmul, &kFourUlps));
  EXPECT_NE(&matmul.bounded(nullptr), &cpu);
  const ReferenceData exp = prepare_reference(case_named(kExp), 1);
  EXPECT_NE(&exp.bounded(kExact), &exp.bounded(&kFourUlps));
  EXPECT_EQ(flat_errors(exp.bounded(&kFourUlps)), alone(kExp, &kFourUlps));
}

TEST(ProfileMemo, AValueThatMetSubnormalsIsSharedWithinItsFlushModeOnly) {
  ProfileMemo<int> memo;
  int computed = 0;
  auto meets_subnormals = [&](bool* reads_profile) {
    *reads_profile = false;
    ref::note_flush_read();
    return ++computed;
  };
  EXPECT_EQ(memo.get(kExact, true, meets_subnormals), 1);
  EXPECT_EQ(memo.get(&kFourUlps, true, meets_subnormals), 1);
  EXPECT_EQ(memo.get(&kFourUlps, false, meets_subnormals), 2);
  const ref::FlushReads reads;
  memo.get(kExact, false, meets_subnormals);
  EXPECT_TRUE(reads.any()) << "a value of one flush mode handed out without saying so";
  EXPECT_EQ(computed, 2);
}

// Whether an evaluation that uses `inner`'s bounds under kFourUlps is taken to read its profile.
bool outer_reads_profile(ReferenceCache& cache, const ReferenceData& inner, const char* what) {
  bool reads = false;
  CacheKeyBuilder key(what);
  cached_bounds<std::uint64_t>(
      &cache, key, &kFourUlps, false, [&] { return inner.bounded(&kFourUlps).output.err.size(); }, &reads);
  return reads;
}

TEST_F(SharedBounds, AnEvaluationBuiltOnBoundsThatReadTheProfileReadsItToo) {
  ReferenceCache cache(dir_, kDefaultReferenceCacheCap);
  const ReferenceData exp = prepare_reference(case_named(kExp), 1, &cache);
  exp.bounded(&kFourUlps);  // computed now: the outer evaluations below find it in the memo
  EXPECT_TRUE(outer_reads_profile(cache, exp, "outer, memo"));
  const ReferenceData fresh = prepare_reference(case_named(kExp), 1, &cache);  // reads the folder's entry
  EXPECT_TRUE(outer_reads_profile(cache, fresh, "outer, folder"));
  const ReferenceData matmul = prepare_reference(case_named(kMatmul), 1, &cache);
  matmul.bounded(&kFourUlps);
  EXPECT_FALSE(outer_reads_profile(cache, matmul, "outer, profile-free"));
}

// A model's node evaluations (harness/graph/node_memo.hpp): one that reads no budget is made once
// for every profile and handed out bit for bit; one that reads a budget is made per profile.
std::vector<long double> flat_errors(const ref::RefTensor& t) {
  ref::Bounded b;
  b.output = t;
  return flat_errors(b);
}

TEST(NodeBoundMemo, SharesOnlyTheNodeEvaluationsThatReadNoBudget) {
  for (const char* id : {kMatmul, kExp}) {
    const ReferenceData d = prepare_reference(case_named(id), 1);
    NodeBoundMemo memo;
    const auto first = memo.vjp_radii(d.call, d.ref_inputs, d.ref_cotangent, kExact, false);
    const auto second = memo.vjp_radii(d.call, d.ref_inputs, d.ref_cotangent, &kFourUlps, false);
    std::vector<Radii> direct;
    for (const auto& g : ref::bounded_node_vjp(d.call, d.ref_inputs, d.ref_cotangent, &kFourUlps, false))
      direct.push_back(radii_of(g));
    EXPECT_EQ(second, direct) << id;
    const bool profile_free = id == kMatmul;
    EXPECT_EQ(memo.counts().shared, profile_free ? 1 : 0) << id;
    EXPECT_EQ(first == second, profile_free) << id;
    EXPECT_EQ(flat_errors(memo.forward(d.call, d.ref_inputs, kExact, false)),
              flat_errors(ref::bounded_node_forward(d.call, d.ref_inputs, kExact, false)));
    EXPECT_EQ(flat_errors(memo.forward(d.call, d.ref_inputs, &kFourUlps, false)),
              flat_errors(ref::bounded_node_forward(d.call, d.ref_inputs, &kFourUlps, false)))
        << id;
    EXPECT_EQ(memo.counts().shared, profile_free ? 2 : 0) << id;
    // The long-double reference's own arithmetic is never handed to a device profile.
    memo.vjp_radii(d.call, d.ref_inputs, d.ref_cotangent, nullptr, false);
    EXPECT_EQ(memo.counts().shared, profile_free ? 2 : 0) << id;
  }
}

TEST(NodeBoundMemo, SharesBetweenFlushModesOnlyWhatMeetsNoSubnormal) {
  for (const bool subnormal : {false, true}) {
    // The forward meets the subnormal products; the VJP (the cotangent times a scaled input) none.
    const ReferenceData d =
        subnormal ? with_subnormal_products(kMatmul, nullptr) : prepare_reference(case_named(kMatmul), 1);
    NodeBoundMemo memo;
    const auto keeps = flat_errors(memo.forward(d.call, d.ref_inputs, kExact, false));
    const auto flushes = flat_errors(memo.forward(d.call, d.ref_inputs, kExact, true));
    EXPECT_EQ(flushes, flat_errors(ref::bounded_node_forward(d.call, d.ref_inputs, kExact, true))) << subnormal;
    EXPECT_EQ(memo.counts().shared, subnormal ? 0 : 1) << subnormal;
    EXPECT_EQ(keeps == flushes, !subnormal);
    memo.vjp_radii(d.call, d.ref_inputs, d.ref_cotangent, kExact, false);
    memo.vjp_radii(d.call, d.ref_inputs, d.ref_cotangent, kExact, true);
    EXPECT_EQ(memo.counts().shared, subnormal ? 1 : 2) << subnormal;
  }
}

// Devices checked in processes of their own (ctest's entries are one device each) share a model's
// node evaluations through the cache folder: what one memo made, another memo reads back bit for
// bit. An evaluation that read its profile is neither written nor read.
TEST_F(SharedBounds, AnotherMemoReadsTheNodeEvaluationsThatReadNoBudgetFromTheCacheFolder) {
  using std::chrono::microseconds;
  ReferenceCache cache(dir_, kDefaultReferenceCacheCap);
  for (const char* id : {kMatmul, kExp}) {
    const ReferenceData d = prepare_reference(case_named(id), 1);
    NodeBoundMemo cpu(microseconds{0}), vulkan(microseconds{0});
    cpu.vjp_radii(d.call, d.ref_inputs, d.ref_cotangent, kExact, false, &cache);
    cpu.forward(d.call, d.ref_inputs, kExact, false, &cache);
    std::vector<Radii> direct;
    for (const auto& g : ref::bounded_node_vjp(d.call, d.ref_inputs, d.ref_cotangent, &kFourUlps, true))
      direct.push_back(radii_of(g));
    EXPECT_EQ(vulkan.vjp_radii(d.call, d.ref_inputs, d.ref_cotangent, &kFourUlps, true, &cache), direct) << id;
    EXPECT_EQ(flat_errors(vulkan.forward(d.call, d.ref_inputs, &kFourUlps, true, &cache)),
              flat_errors(ref::bounded_node_forward(d.call, d.ref_inputs, &kFourUlps, true)))
        << id;
    const bool profile_free = id == kMatmul;
    EXPECT_EQ(vulkan.counts().shared, profile_free ? 2 : 0) << id;
    EXPECT_EQ(vulkan.counts().computed, profile_free ? 0 : 2) << id;
  }
  EXPECT_EQ(cache.counts().stored, 2) << "only the matmul's two evaluations are written";
}

// One that met a value where flushing matters is read back only by a device of its flush mode.
TEST_F(SharedBounds, AnotherMemoReadsAFlushModesNodeEvaluationOnlyInThatMode) {
  using std::chrono::microseconds;
  ReferenceCache cache(dir_, kDefaultReferenceCacheCap);
  const ReferenceData d = with_subnormal_products(kMatmul, nullptr);
  NodeBoundMemo keeping(microseconds{0}), flushing(microseconds{0}), other_keeping(microseconds{0});
  const auto keeps = flat_errors(keeping.forward(d.call, d.ref_inputs, kExact, false, &cache));
  const auto flushes = flat_errors(flushing.forward(d.call, d.ref_inputs, &kFourUlps, true, &cache));
  EXPECT_EQ(flushing.counts().shared, 0) << "a flushing device was given the evaluation of one that keeps subnormals";
  EXPECT_EQ(flushes, flat_errors(ref::bounded_node_forward(d.call, d.ref_inputs, &kFourUlps, true)));
  EXPECT_NE(keeps, flushes);
  EXPECT_EQ(flat_errors(other_keeping.forward(d.call, d.ref_inputs, &kFourUlps, false, &cache)), keeps);
  EXPECT_EQ(other_keeping.counts().shared, 1);
}

}  // namespace
}  // namespace gp
