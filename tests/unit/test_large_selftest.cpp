// selftest's large-tier faults (harness/audit/fault_injection.hpp, large_selftest.hpp): what each
// does to a tensor, and that a large GEMM's sampled and complete checks catch every one of them,
// the one element anywhere included.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "harness/audit/large_selftest.hpp"
#include "support/fake_backend.hpp"
#include "support/lookup.hpp"

namespace gp {
namespace {

using ::testing::HasSubstr;

HostTensor filled(const Shape& shape, const std::vector<double>& values) {
  HostTensor t(DType::f32, shape);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, values.at(static_cast<std::size_t>(i)));
  return t;
}

std::vector<double> values_of(const HostTensor& t) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < t.numel(); ++i) v.push_back(t.get(i));
  return v;
}

TEST(LargeFaults, AWrappedIndexWritesPastThePeriodAtTheStartAndLeavesTheRestAsFound) {
  const HostTensor before = filled(Shape{7}, {-1, -1, -1, -1, -1, -1, -1});
  HostTensor after = filled(Shape{7}, {10, 11, 12, 13, 14, 15, 16});
  EXPECT_TRUE(apply_large_fault({FaultClass::index_wrapped}, after, before, 1, 4));
  EXPECT_EQ(values_of(after), (std::vector<double>{14, 15, 16, 13, -1, -1, -1}));
  HostTensor short_one = filled(Shape{4}, {10, 11, 12, 13});
  EXPECT_FALSE(apply_large_fault({FaultClass::index_wrapped}, short_one, before, 1, 4)) << "nothing past the period";
  EXPECT_EQ(values_of(short_one), (std::vector<double>{10, 11, 12, 13}));
}

TEST(LargeFaults, TheEdgeTileIsTheLastSixteenBySixteenOfTheLastMatrix) {
  HostTensor t(DType::f32, Shape{2, 33, 31});
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, 1);
  t.set(5, -3);  // the largest magnitude: the tile moves by 3, away from zero
  EXPECT_TRUE(apply_large_fault({FaultClass::edge_tile_wrong}, t, t, 0));
  int doubled = 0;
  for (std::int64_t i = 0; i < t.numel(); ++i)
    if (t.get(i) == 4) {
      ++doubled;
      EXPECT_EQ(i / (33 * 31), 1) << "the last matrix";
      EXPECT_EQ(i % (33 * 31) / 31, 32) << "the last row, 32 = 2 x 16";
      EXPECT_GE(i % 31, 16) << "columns 16 to 30";
    }
  EXPECT_EQ(doubled, 15);
}

TEST(LargeFaults, TheDroppedWorkgroupIsTheLast256Elements) {
  std::vector<double> poison(300, -1), written(300, 5);
  const HostTensor before = filled(Shape{300}, poison);
  HostTensor after = filled(Shape{300}, written);
  EXPECT_TRUE(apply_large_fault({FaultClass::last_workgroup_dropped}, after, before, 0));
  EXPECT_EQ(after.get(43), 5);
  EXPECT_EQ(after.get(44), -1);
  EXPECT_EQ(after.get(299), -1);
}

// The 4097-inner GEMM on an exact fake device: the sample holds its edge tile and its last
// elements, the complete checks every element, so every trial of every fault is caught; no tensor
// has 2^31 elements, so the index fault does not apply.
TEST(LargeSelftest, ALargeGemmsChecksCatchEveryLargeFault) {
  const Case& c = testing::case_named("matmul(large,shape=33x4097|4097x31,dtype=f32)");
  testing::FakeBackend backend;
  const SelectedDevice fake{"fake", {}};
  LargeSelftestOptions o;
  o.run.seed = 3;
  o.run.sample.random = 0;  // the boundaries and extremes alone: the perturbed elements are off the sample
  o.positions = 4;
  const LargeSelftest r = selftest_large_case(c, fake, backend, o);
  ASSERT_EQ(r.baseline_problem, "");
  ASSERT_EQ(r.faults.size(), 6u) << "element_perturbed on the output and on each gradient, then the other three";
  for (const LargeFaultOutcome& f : r.faults) {
    SCOPED_TRACE(std::string(fault_class_name(f.fault.kind)) + " " + f.tensor);
    if (f.fault.kind == FaultClass::index_wrapped) {
      EXPECT_EQ(f.trials, 0);
      EXPECT_THAT(f.evidence, HasSubstr("no tensor past 2^31 elements"));
      continue;
    }
    EXPECT_EQ(f.trials, f.fault.kind == FaultClass::element_perturbed ? 4 : 1);
    EXPECT_EQ(f.caught, f.trials) << f.evidence;
  }
  EXPECT_EQ(r.faults[0].tensor, "output");
  EXPECT_EQ(r.faults[2].tensor, "gradient 1");
  for (int k = 0; k < 3; ++k)  // one element anywhere: the complete checks see it
    EXPECT_THAT(r.faults[static_cast<std::size_t>(k)].evidence,
                HasSubstr(k == 0 ? "forward_complete" : "backward_complete"));
}

}  // namespace
}  // namespace gp
