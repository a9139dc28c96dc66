// The test programs' main: the allocator settings of the gradparity command
// (core/memory_size.hpp) before the tests, so that a test costs what the command's checks cost.
// With glibc's defaults every test process mapped its large tensors from the kernel and returned
// them when freed, faulting them in again page by page: a cold ctest spent a fifth of its time in
// the kernel (docs/performance.md, "Test programs with the command's allocator").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/memory_size.hpp"

int main(int argc, char** argv) {
  gp::keep_large_blocks_in_heap();
  testing::InitGoogleMock(&argc, argv);
  return RUN_ALL_TESTS();
}
