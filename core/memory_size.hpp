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

// "1.5 KiB", "64 MiB", "4 GiB": three significant digits.
std::string memory_text(std::int64_t bytes);

}  // namespace gp
