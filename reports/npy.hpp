// NumPy .npy files (format version 1.0), so a failing tensor can be inspected with
// numpy.load(). Written little-endian: f32 '<f4', f64 '<f8', f16 '<f2', i32 '<i4'. NumPy has no
// bfloat16, so bf16 tensors are widened (exactly) to f32 and written as '<f4'.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/tensor.hpp"

namespace gp {

// The whole file: magic, version, header length, header dict padded to 64 bytes, data.
std::string npy_bytes(const HostTensor& tensor);
void write_npy(const std::filesystem::path& path, const HostTensor& tensor);

// A parsed .npy file; only what write_npy produces is understood (little-endian '<f2', '<f4',
// '<f8', '<i4', C order, versions 1.0-3.0 of the header). Used by tests and tools.
struct NpyArray {
  std::string descr;  // "<f4"
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
  std::string data;  // raw little-endian element bytes

  // The data as a host tensor of the matching dtype ('<f4' -> f32, so bf16 comes back as f32).
  HostTensor to_tensor() const;
};

// Throws gp::Error naming what is wrong (bad magic, unsupported descr, truncated data, ...).
NpyArray parse_npy(const std::string& bytes);
NpyArray read_npy(const std::filesystem::path& path);

}  // namespace gp
