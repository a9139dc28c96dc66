// The oracle check of large-tier cases (harness/audit/oracle_large.hpp): the sampled reference
// against MPFR on each element's slice, elements on longer slices counted and not compared.
#include <gtest/gtest.h>

#include "harness/audit/oracle_large.hpp"
#include "harness/large/sampled_reference.hpp"
#include "support/lookup.hpp"

namespace gp {
namespace {

using testing::case_named;

constexpr const char* kEdgeGemm = "matmul(large,shape=33x4097|4097x31,dtype=f32)";

TEST(OracleLarge, AGemmsSampledReferenceAgreesWithMpfrOnEveryTensorsSlices) {
  const Case& c = case_named(kEdgeGemm);
  const SampledReference reference = prepare_sampled_reference(c, RunContext{});
  const OracleCaseResult r = oracle_check_large_case(c, reference, LargeOracleOptions{});
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_FALSE(r.skipped);
  EXPECT_EQ(r.points_skipped, 0);
  ASSERT_EQ(r.directions.size(), 3u);  // the output and both gradients: dot products of 4,097 and of 31 terms
  for (const OracleDirection& d : r.directions) {
    EXPECT_EQ(d.points, 4);
    EXPECT_LE(d.worst_ratio, kOracleRatioLimit) << direction_label(d.direction, d.input);
    EXPECT_GE(d.worst_index, 0);
  }
  EXPECT_EQ(r.points, 12);
}

// A reference value that the formulas do not give at the inputs the device reads (here: the
// reference kept from before the first input changed) fails the check, on the tensors that read
// that input.
TEST(OracleLarge, AReferenceThatDoesNotMatchItsInputsFails) {
  const Case& c = case_named(kEdgeGemm);
  SampledReference reference = prepare_sampled_reference(c, RunContext{});
  const OracleCaseResult before = oracle_check_large_case(c, reference, LargeOracleOptions{});  // bounds kept
  HostTensor& a = reference.inputs[0];
  for (std::int64_t i = 0; i < a.numel(); ++i) a.set(i, a.get(i) * (1 + 1.0 / 1024));
  const OracleCaseResult after = oracle_check_large_case(c, reference, LargeOracleOptions{});
  ASSERT_EQ(after.directions.size(), 3u);
  EXPECT_GT(after.directions[0].worst_ratio, 1.0) << "the output reads A";
  EXPECT_LE(after.directions[1].worst_ratio, kOracleRatioLimit) << "A's gradient reads B and the cotangent";
  EXPECT_GT(after.directions[2].worst_ratio, 1.0) << "B's gradient reads A";
  EXPECT_GT(after.worst_ratio(), kOracleRatioLimit);
  EXPECT_LE(before.worst_ratio(), kOracleRatioLimit);
}

// A reduction's slice is its whole line: over the limit, its elements are counted, not compared.
TEST(OracleLarge, ElementsOnSlicesLongerThanTheLimitAreCountedAndNotCompared) {
  const Case& c = case_named("sum(large,axis=-1,keepdim=0,shape=1000000,dtype=f32)");
  const SampledReference reference = prepare_sampled_reference(c, RunContext{});
  const OracleCaseResult short_slices = oracle_check_large_case(c, reference, LargeOracleOptions{});
  EXPECT_TRUE(short_slices.skipped);
  EXPECT_EQ(short_slices.points, 0);
  EXPECT_EQ(short_slices.points_skipped, 5);  // the output's one element and four of the gradient's
  LargeOracleOptions whole_lines;             // one element of each tensor: an MPFR pass over the line each
  whole_lines.max_slice_elements = 1'000'000;
  whole_lines.points = 1;
  const OracleCaseResult r = oracle_check_large_case(c, reference, whole_lines);
  EXPECT_FALSE(r.skipped);
  EXPECT_EQ(r.points, 2);
  EXPECT_EQ(r.points_skipped, 0);
  EXPECT_LE(r.worst_ratio(), kOracleRatioLimit);
}

}  // namespace
}  // namespace gp
