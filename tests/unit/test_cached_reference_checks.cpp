// The reference's own verdicts in the reference cache: the finite-difference checks of a
// primitive and of a model, and the oracle's sample, read back whole (every field of a result),
// keyed so that another seed or other options compute anew.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/math_profile.hpp"
#include "harness/audit/oracle_check.hpp"
#include "harness/check/cached_reference_checks.hpp"
#include "harness/check/reference_cache.hpp"
#include "harness/run/subjects.hpp"
#include "support/same_check.hpp"
#include "support/temp_folder_test.hpp"

namespace gp {
namespace {

namespace fs = std::filesystem;

TEST(CachedReferenceChecks, EveryFieldOfAResultSurvivesItsEntry) {
  CheckResult c;
  c.case_id = "case";
  c.op = "op";
  c.family = "family";
  c.backend = "reference";
  c.dtype = DType::bf16;
  c.direction = Direction::numerical_reference;
  c.input = -3;
  c.part = "node 4 linear";
  c.subject = SubjectKind::training;
  c.verdict = Verdict::mistrusted;
  c.reason_kind = ReasonKind::reference_failed;
  c.reason = "why";
  c.formulation = "linear layers";
  c.tolerance = "full Jacobian";
  c.metrics = {1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7, 8, {9, {10, 11}, 12, 13, 14}, 15, 16};
  c.time_ms = 17;
  c.seed = 18;
  c.repro = "gradparity repro";
  c.steps = {19, {20}, {21, 22}, {23}, {24, 25}};
  BlobWriter w;
  encode(w, c);
  BlobReader r(w.bytes());
  CheckResult back;
  decode(r, back);
  r.expect_end();
  expect_same_check(c, back);
  EXPECT_EQ(back.time_ms, 17);
}

class CachedChecksTest : public TempFolderTest {
 protected:
  // The reference's checks of `id` at `seed`, computed without a cache and then twice through
  // one: the second call reads what the first stored.
  void expect_read_back(const std::string& id, std::uint64_t seed) {
    const Subject* s = find_subject(id);
    ASSERT_TRUE(s) << id;
    ReferenceCache cache(dir_, kDefaultReferenceCacheCap);
    const RunContext plain{seed, {}, nullptr}, with_cache{seed, {}, &cache};
    const std::vector<CheckResult> fresh = reference_checks(*s, *s->prepare(plain), plain);
    ASSERT_FALSE(fresh.empty());
    reference_checks(*s, *s->prepare(with_cache), with_cache);
    const ReferenceCache::Counts stored = cache.counts();
    const std::vector<CheckResult> read = reference_checks(*s, *s->prepare(with_cache), with_cache);
    EXPECT_EQ(cache.counts().hits, stored.hits + 1) << id;
    ASSERT_EQ(read.size(), fresh.size());
    for (std::size_t i = 0; i < read.size(); ++i) expect_same_check(read[i], fresh[i], false);
    // Another seed is another entry.
    const RunContext other{seed + 1, {}, &cache};
    reference_checks(*s, *s->prepare(other), other);
    EXPECT_EQ(cache.counts().hits, stored.hits + 1) << id;
  }
};

TEST_F(CachedChecksTest, APrimitivesChecksAreReadBackWhole) {
  expect_read_back("layer_norm(eps=1e-05,shape=16x33|33|33,dtype=f32)", 1);
}

TEST_F(CachedChecksTest, AModelsChecksAreReadBackWhole) {
  expect_read_back("mlp(layers=3,batch=7,act=tanh,dtype=f32)", 2);
}

TEST_F(CachedChecksTest, TheOracleSampleIsReadBackAndKeyedByItsDevices) {
  const Subject* s = find_subject("exp(shape=16x33,dtype=f32)");
  ASSERT_TRUE(s);
  ReferenceCache cache(dir_, kDefaultReferenceCacheCap);
  const RunContext run{3, {}, &cache};
  const ReferenceData data = prepare_reference(*s->primitive_case(), run.seed);
  OracleOptions opts = light_oracle_options();
  opts.devices.push_back({&correctly_rounded_profile(), false});
  const OracleCaseResult first = cached_oracle_check_case(*s->primitive_case(), data, run, opts);
  const OracleCaseResult second = cached_oracle_check_case(*s->primitive_case(), data, run, opts);
  EXPECT_EQ(cache.counts().hits, 1);
  EXPECT_EQ(second.case_id, first.case_id);
  EXPECT_EQ(second.op_label, first.op_label);
  EXPECT_EQ(second.points, first.points);
  ASSERT_EQ(second.directions.size(), first.directions.size());
  for (std::size_t i = 0; i < first.directions.size(); ++i) {
    EXPECT_EQ(second.directions[i].points, first.directions[i].points);
    EXPECT_EQ(second.directions[i].worst_ratio, first.directions[i].worst_ratio);
    EXPECT_EQ(second.directions[i].worst_index, first.directions[i].worst_index);
    EXPECT_EQ(second.directions[i].oracle, first.directions[i].oracle);
  }
  opts.devices.push_back({&correctly_rounded_profile(), true});  // another device: another entry
  cached_oracle_check_case(*s->primitive_case(), data, run, opts);
  EXPECT_EQ(cache.counts().hits, 1);
}

}  // namespace
}  // namespace gp
