// Whether a case fits the device and the machine: its buffers within the memory the device
// reports (DeviceInfo::memory_bytes) and each tensor within its largest buffer, and for the large
// tier the run's host copies within the machine's physical memory. A case that does not fit SKIPs
// with the sizes, instead of failing an allocation or being killed for memory (docs/scale.md).
#pragma once

#include <cstdint>

#include "backends/backend.hpp"
#include "cases/case.hpp"
#include "core/parallel_blocks.hpp"
#include "harness/check/context.hpp"

namespace gp {

// What a large case holds on the host for one device: the inputs and the cotangent the reference
// keeps, the downloaded output, two copies of each gradient (the backward runs twice) and one
// poison tensor: twice its buffers' bytes (cases/case.hpp device_bytes); and where the device's
// buffers are in host memory, the buffers again and their f32 working copies (four times their
// bytes for a 16-bit call; counted as the buffers' bytes otherwise). An estimate: exp over
// 2^31 + 4,097 bf16 elements on the H200 host peaked at 21.1 GB with OpenCL alone (estimate
// 34.4 GB), at 67.4 GB with the cpu backend (then estimated at 68.7 GB, now 103 GB). With 4x and
// 5x for 16-bit cases the whole tier was killed for memory on that host (125 GiB), the two index
// cases and a variance over 2^27 the cases left each time it was logged: the add past 2^31 alone,
// or the exp past 2^31 beside the variance, took more than estimated. At 6x the add's estimate
// (155 GB) exceeds the host and the cpu backend SKIPs it there; that run was not killed.
std::int64_t large_case_host_bytes(const Case& c, const DeviceInfo& device);

// What a large case's complete checks keep on the host per device profile: the line references
// (harness/large/complete_lines.hpp: 80 bytes an element and its place in the line order, 8) of
// each tensor of at most `limits.complete_elements` elements; an upper bound for a matrix
// product's, which keeps 16 bytes an element once.
std::int64_t complete_check_host_bytes(const Case& c, const SampleOptions& limits);

// What a streamed complete check (harness/check/complete_kind.hpp) holds while it runs, once per
// case (its tensors and devices take turns): a block on each of `threads` (for_each_block's,
// core/parallel_blocks.hpp), each block's Tracked evaluation counted at about 600 bytes an
// element (a binary op's inputs, cotangent, output and gradients in Tracked form, 80 bytes each,
// and their gathers); counted from what a block holds, not measured.
std::int64_t streamed_check_host_bytes(const Case& c, const SampleOptions& limits, int threads = block_threads());

// `host_bytes`: the machine's physical memory (core/memory_size.hpp), a parameter for tests.
Support fits_in_memory(const Case& c, const DeviceInfo& device, std::int64_t host_bytes);

}  // namespace gp
