// A kernel whose element index is 32-bit (issue 26): past 2^31 elements it writes element i at
// i - 2^31, so the start of the tensor holds the values of the elements past 2^31 and those keep
// what the buffer held. The large tier's index case (exp over 2^31 + 4,097 bf16 elements) must
// FAIL it, forward and backward, and the small tier, whose tensors are far shorter, must not.
//
// The large case's host copies and the fake's buffers take about 48 GiB: on a machine with less
// physical memory the test SKIPs with the sizes (CI's 2-core machine has 24 GiB; it runs on the
// GPU hosts from the bundle, docs/devices.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "cases/registry.hpp"
#include "core/memory_size.hpp"
#include "core/parallel_blocks.hpp"
#include "core/strided.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/memory_fit.hpp"
#include "harness/large/sampled_reference.hpp"
#include "harness/large/sampled_subject.hpp"
#include "support/fake_backend.hpp"
#include "support/lookup.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;

constexpr std::int64_t kIndexPeriod = std::int64_t{1} << 31;
const char* const kIndexCase = "exp(large,shape=2147487745,dtype=bf16)";

// exp on bf16 buffers, each value rounded once from long double, as the exact fake does but
// without widening whole tensors to the reference's form (80 bytes an element, a value and its
// error terms: 160 GiB a tensor at this size).
// `wraps`: element i is stored at i mod 2^31. The elements below the period are written first, on
// every core; the few past it after them, in order, so the overwritten start is the same each call
// (the second backward must repeat every bit).
template <typename Value>
void store_elementwise(std::int64_t n, bool wraps, std::span<std::uint16_t> out, const Value& value) {
  const std::int64_t unwrapped = wraps ? std::min(n, kIndexPeriod) : n;
  for_each_block(unwrapped, std::int64_t{1} << 22, [&](std::int64_t, std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) out[static_cast<std::size_t>(i)] = value(i);
  });
  for (std::int64_t i = unwrapped; i < n; ++i) out[static_cast<std::size_t>(i % kIndexPeriod)] = value(i);
}

long double exp_of(std::span<const std::uint16_t> x, std::int64_t i) {
  return std::exp(static_cast<long double>(bf16_to_double(x[static_cast<std::size_t>(i)])));
}

std::uint16_t rounded(long double v) { return bf16_from_double(static_cast<double>(v)); }

void install_bf16_exp(MockQueue& queue, bool wraps) {
  ON_CALL(queue, forward)
      .WillByDefault(Invoke([wraps](const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
        ASSERT_EQ(call.kind, OpKind::exp);
        ASSERT_EQ(call.dtype, DType::bf16);
        const auto x = host(*in[0]).as<std::uint16_t>();
        store_elementwise(host(out).numel(), wraps, host(out).as<std::uint16_t>(),
                          [&](std::int64_t i) { return rounded(exp_of(x, i)); });
      }));
  ON_CALL(queue, backward)
      .WillByDefault(Invoke([wraps](const OpCall&, std::span<const DeviceBuffer* const> in, const DeviceBuffer&,
                                    const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
        const auto x = host(*in[0]).as<std::uint16_t>();
        const auto dy = host(dout).as<std::uint16_t>();
        store_elementwise(host(*grads[0]).numel(), wraps, host(*grads[0]).as<std::uint16_t>(), [&](std::int64_t i) {
          return rounded(static_cast<long double>(bf16_to_double(dy[static_cast<std::size_t>(i)])) * exp_of(x, i));
        });
      }));
}

std::vector<CheckResult> large_checks(bool wraps) {
  const Case& c = testing::case_named(kIndexCase);
  FakeBackend backend;
  NiceMock<MockQueue> queue;
  install_bf16_exp(queue, wraps);
  RunContext run{7};
  return check_sampled_on_backend(c, {"fake", &backend, &queue}, prepare_sampled_reference(c, run), run);
}

class IndexWrap : public ::testing::Test {
 protected:
  void SetUp() override {
    const Case& c = testing::case_named(kIndexCase);
    // The run's host copies, and the fake's buffers, which are host memory too.
    const std::int64_t needed = large_case_host_bytes(c, FakeBackend().info()) + device_bytes(c);
    if (host_memory_bytes() < needed)
      GTEST_SKIP() << kIndexCase << " needs about " << memory_text(needed) << " of host memory; this machine has "
                   << memory_text(host_memory_bytes());
  }
};

TEST_F(IndexWrap, AnIndexThatWrapsPast2To31FailsTheIndexCaseForwardAndBackward) {
  const std::vector<CheckResult> wrapped = large_checks(true);
  ASSERT_EQ(wrapped.size(), 2u);
  for (const CheckResult& r : wrapped) {
    SCOPED_TRACE(check_label(r));
    EXPECT_EQ(r.verdict, Verdict::fail) << r.reason;
  }
  // The same kernel with a 64-bit index passes: the wrap alone is what fails.
  for (const CheckResult& r : large_checks(false))
    EXPECT_EQ(r.verdict, Verdict::pass) << check_label(r) << ": " << r.reason;
}

TEST(IndexWrapSmall, TheKernelThatWrapsPast2To31PassesTheSmallTier) {
  int checked = 0;
  for (const Case& c : all_cases()) {
    // The fake reads its input as contiguous: the strided cases' layouts are not its business.
    if (c.decl.op != OpKind::exp || c.dtype != DType::bf16 || input_layout(c.call, 0)) continue;
    SCOPED_TRACE(c.id);
    FakeBackend backend;
    NiceMock<MockQueue> queue;
    install_bf16_exp(queue, true);
    RunContext run{7};
    for (const CheckResult& r : check_on_backend(c, {"fake", &backend, &queue}, prepare_reference(c, run.seed), run)) {
      EXPECT_NE(r.verdict, Verdict::fail) << check_label(r) << ": " << r.reason;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace gp
