// The large tier's complete checks read back from the reference cache (harness/large/
// cached_complete_check.hpp): a device that gives the same bytes again gets the stored judgement,
// one that gives other bytes (here one element off, away from the sample) a check of its own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/check/reference_cache.hpp"
#include "harness/large/sampled_reference.hpp"
#include "harness/large/sampled_subject.hpp"
#include "support/fake_backend.hpp"
#include "support/lookup.hpp"
#include "support/same_check.hpp"
#include "support/temp_folder_test.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;
using testing::case_named;

class CachedCompleteCheck : public TempFolderTest {};

TEST_F(CachedCompleteCheck, TheSameBytesReadTheJudgementBackAndOtherBytesAreCheckedAgain) {
  const Case& c = case_named("softmax(large,axis=-1,shape=8x32000,dtype=f32)");
  ReferenceCache cache(dir_, kDefaultReferenceCacheCap);
  RunContext run{4};
  run.sample.random = 0;
  run.reference_cache = &cache;
  const SampledReference reference = prepare_sampled_reference(c, run);
  const std::int64_t wrong = 3 * 32000 + 12345;  // away from the sample (LargeTier's line test)
  auto complete = [&](bool bug, const std::string& device) {
    FakeBackend backend;
    NiceMock<MockQueue> queue;
    ON_CALL(queue, forward)
        .WillByDefault(Invoke([=](const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
          exact_forward(call, in, out);
          if (bug) host(out).set(wrong, host(out).get(wrong) * (1 + 1e-3));
        }));
    ON_CALL(queue, backward).WillByDefault(Invoke(exact_backward));
    const std::vector<CheckResult> all = check_sampled_on_backend(c, {device, &backend, &queue}, reference, run);
    EXPECT_EQ(all.size(), 4u);
    EXPECT_EQ(all.at(1).direction, Direction::forward_complete);
    return all.at(1);
  };
  const CheckResult right = complete(false, "fake:1");
  const ReferenceCache::Counts first = cache.counts();
  EXPECT_EQ(right.verdict, Verdict::pass) << right.reason;
  EXPECT_EQ(right.metrics.elements, 8 * 32000);

  // Another device of the same profile, the same bytes: the entry, under its own name.
  CheckResult again = complete(false, "fake:2");
  EXPECT_GE(cache.counts().hits, first.hits + 2) << "both complete checks read back";
  EXPECT_EQ(again.backend, "fake:2");
  again.backend = right.backend;
  expect_same_check(again, right, false);

  const CheckResult off = complete(true, "fake:1");
  EXPECT_EQ(off.verdict, Verdict::fail) << "other bytes read the correct device's entry";
  EXPECT_EQ(off.metrics.worst.index, wrong) << off.reason;
  const CheckResult off_again = complete(true, "fake:1");
  EXPECT_EQ(off_again.verdict, Verdict::fail);
  EXPECT_EQ(off_again.reason, off.reason);
}

}  // namespace
}  // namespace gp
