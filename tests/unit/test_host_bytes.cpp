// Host memory for large tensors (core/host_bytes.hpp): zeroed, deep copies, every byte copied
// across the blocks a large copy is split into, and the host tensors built on it.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/host_bytes.hpp"
#include "core/tensor.hpp"

namespace gp {
namespace {

// Past the size that is mapped on its own and copied on every core, and not a whole number of
// the blocks it is copied in.
constexpr std::size_t kLarge = (std::size_t{64} << 20) + 4099;

std::byte pattern(std::size_t i) { return static_cast<std::byte>((i * 2654435761u) >> 13); }

TEST(HostBytes, ALargeBlockIsZeroedAndItsCopyHoldsEveryByteOnItsOwn) {
  ASSERT_TRUE(HostBytes::is_large(kLarge));
  HostBytes a(kLarge);
  ASSERT_EQ(a.size(), kLarge);
  for (std::size_t i = 0; i < kLarge; i += 4093) ASSERT_EQ(a.data()[i], std::byte{0}) << i;
  ASSERT_EQ(a.data()[kLarge - 1], std::byte{0});
  for (std::size_t i = 0; i < kLarge; ++i) a.data()[i] = pattern(i);

  HostBytes b(a);
  ASSERT_EQ(b.size(), kLarge);
  for (std::size_t i = 0; i < kLarge; ++i)
    if (b.data()[i] != pattern(i)) FAIL() << "byte " << i << " of " << kLarge << " not copied";
  b.data()[kLarge - 1] = ~pattern(kLarge - 1);
  EXPECT_EQ(a.data()[kLarge - 1], pattern(kLarge - 1)) << "a copy shares nothing";

  HostBytes c;
  c = a;
  EXPECT_EQ(c.data()[kLarge / 2], pattern(kLarge / 2));
  HostBytes d(std::move(c));
  EXPECT_EQ(c.size(), 0u);
  EXPECT_EQ(d.size(), kLarge);
}

TEST(HostBytes, ALargeCopyReachesTheLastByte) {
  std::vector<std::byte> from(kLarge), to(kLarge);
  for (std::size_t i = 0; i < kLarge; ++i) from[i] = pattern(i);
  copy_bytes(to.data(), from.data(), kLarge);
  EXPECT_EQ(to, from);
}

TEST(HostBytes, SmallBlocksAreZeroedAndCopied) {
  HostBytes empty(0);
  EXPECT_EQ(empty.size(), 0u);
  HostBytes copy_of_empty(empty);
  EXPECT_EQ(copy_of_empty.size(), 0u);
  HostBytes small(100);
  for (std::size_t i = 0; i < 100; ++i) ASSERT_EQ(small.data()[i], std::byte{0});
  small.data()[99] = std::byte{7};
  const HostBytes copy(small);
  EXPECT_EQ(copy.data()[99], std::byte{7});
}

TEST(HostBytes, HostTensorsCopyTheirValues) {
  HostTensor t(DType::f32, Shape{static_cast<std::int64_t>(kLarge / 4)});
  t.set(0, 1.5);
  t.set(t.numel() - 1, -2.25);
  const HostTensor u = t;
  EXPECT_EQ(u.get(0), 1.5);
  EXPECT_EQ(u.get(u.numel() - 1), -2.25);
  EXPECT_EQ(u.get(u.numel() / 2), 0.0);
}

}  // namespace
}  // namespace gp
