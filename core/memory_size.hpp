// Memory sizes: the machine's physical memory, the process's peak, and a size in words for
// messages and listings.
#pragma once

#include <cstdint>
#include <string>

namespace gp {

// The machine's physical memory in bytes (0 when the system does not say).
std::int64_t host_memory_bytes();

// The peak resident memory of this process or of its largest finished child (a plugin's
// isolated run), whichever is larger; 0 when the system does not say.
std::int64_t peak_resident_bytes();

// Keeps blocks up to 32 MiB in the allocator's heaps, and up to 256 MiB of freed memory there,
// instead of mapping each such block from the kernel and returning it when freed (glibc's
// default adapts its threshold, but not across threads' arenas): the large tier's per-block
// Tracked buffers (a block of 2^18 elements is 20 MiB) were otherwise faulted in page by page for
// every block, a quarter of a streamed complete check's time. No effect outside glibc.
void keep_large_blocks_in_heap();

// "1.5 KiB", "64 MiB", "4 GiB": three significant digits.
std::string memory_text(std::int64_t bytes);

}  // namespace gp
