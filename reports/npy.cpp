#include "reports/npy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>
#include <cstring>
#include <iterator>
#include <regex>

#include "core/enum_table.hpp"
#include "core/error.hpp"
#include "reports/file_io.hpp"

namespace gp {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;
constexpr std::size_t kAlignment = 64;  // NumPy pads the header so the data starts 64-aligned

// NumPy's type string per dtype, in DType's order; bf16 is widened (NumPy has no bfloat16).
const char* descr_of(DType t) {
  static constexpr const char* kDescr[] = {"<f2", "<f4", "<f4", "<f8", "<i4"};
  static_assert(std::size(kDescr) == static_cast<std::size_t>(DType::i32) + 1);
  return enum_row(kDescr, t);
}

// Python's repr of a tuple: "()", "(6,)", "(2, 3)".
std::string shape_tuple(const Shape& s) {
  if (s.rank() == 1) return fmt::format("({},)", s[0]);
  return fmt::format("({})", fmt::join(s.dims(), ", "));
}

// Appends `size`-byte little-endian elements, swapping on a big-endian host.
void append_little_endian(std::string& out, const std::byte* data, std::size_t bytes, std::size_t size) {
  const auto* p = reinterpret_cast<const char*>(data);
  if constexpr (std::endian::native == std::endian::little) {
    out.append(p, bytes);
  } else {
    for (std::size_t i = 0; i < bytes; i += size)
      for (std::size_t k = size; k-- > 0;) out += p[i + k];
  }
}

std::string header_for(const std::string& dict, std::size_t length_field_size) {
  // dict + spaces + '\n', padded so that magic + version + length field + header is aligned.
  const std::size_t prefix = kMagicSize + 2 + length_field_size;
  const std::size_t unpadded = prefix + dict.size() + 1;
  const std::size_t total = (unpadded + kAlignment - 1) / kAlignment * kAlignment;
  return dict + std::string(total - unpadded, ' ') + "\n";
}

}  // namespace

std::string npy_bytes(const HostTensor& tensor) {
  const std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                       descr_of(tensor.dtype()), shape_tuple(tensor.shape()));
  const std::string header = header_for(dict, 2);
  if (header.size() > 0xFFFF) throw Error("npy: header too long for format 1.0");
  std::string out(kMagic, kMagicSize);
  out += '\x01';  // format version 1.0
  out += '\x00';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  if (tensor.dtype() == DType::bf16) {
    for (std::int64_t i = 0; i < tensor.numel(); ++i) {
      const float widened = static_cast<float>(tensor.get(i));  // bf16 -> f32 is exact
      append_little_endian(out, reinterpret_cast<const std::byte*>(&widened), 4, 4);
    }
  } else {
    append_little_endian(out, tensor.data(), tensor.bytes(), dtype_size(tensor.dtype()));
  }
  return out;
}

void write_npy(const std::filesystem::path& path, const HostTensor& tensor) {
  write_file_atomically(path, npy_bytes(tensor));
}

NpyArray parse_npy(const std::string& bytes) {
  if (bytes.size() < 10 || bytes.compare(0, kMagicSize, kMagic, kMagicSize) != 0)
    throw Error("npy: not a .npy file (bad magic)");
  const auto major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3) throw Error(fmt::format("npy: unsupported format version {}", major));
  const std::size_t length_size = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_size) throw Error("npy: truncated header");
  std::size_t header_len = 0;
  for (std::size_t k = 0; k < length_size; ++k)
    header_len |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + k])) << (8 * k);
  const std::size_t data_start = 8 + length_size + header_len;
  if (bytes.size() < data_start) throw Error("npy: truncated header");
  const std::string header = bytes.substr(8 + length_size, header_len);

  NpyArray a;
  std::smatch match;
  static const std::regex descr_re(R"('descr':\s*'([^']*)')");
  static const std::regex order_re(R"('fortran_order':\s*(True|False))");
  static const std::regex shape_re(R"('shape':\s*\(([^)]*)\))");
  if (!std::regex_search(header, match, descr_re)) throw Error("npy: header has no 'descr'");
  a.descr = match[1];
  if (!std::regex_search(header, match, order_re)) throw Error("npy: header has no 'fortran_order'");
  a.fortran_order = match[1] == "True";
  if (!std::regex_search(header, match, shape_re)) throw Error("npy: header has no 'shape'");
  const std::string dims = match[1];
  static const std::regex dim_re(R"(\d+)");
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), dim_re); it != std::sregex_iterator(); ++it)
    a.shape.push_back(std::stoll(it->str()));

  std::size_t item = 0;
  if (a.descr == "<f2") item = 2;
  if (a.descr == "<f4" || a.descr == "<i4") item = 4;
  if (a.descr == "<f8") item = 8;
  if (item == 0) throw Error("npy: unsupported descr '" + a.descr + "'");
  std::size_t numel = 1;
  for (std::int64_t d : a.shape) numel *= static_cast<std::size_t>(d);
  if (bytes.size() - data_start != numel * item)
    throw Error(fmt::format("npy: expected {} data bytes for shape ({}), found {}", numel * item,
                            fmt::join(a.shape, ", "), bytes.size() - data_start));
  a.data = bytes.substr(data_start);
  return a;
}

NpyArray read_npy(const std::filesystem::path& path) {
  try {
    return parse_npy(read_whole_file(path));
  } catch (const Error& e) {
    throw Error(path.string() + ": " + e.what());
  }
}

HostTensor NpyArray::to_tensor() const {
  if (fortran_order) throw Error("npy: Fortran-order arrays are not supported");
  DType t = descr == "<f2" ? DType::f16 : descr == "<f8" ? DType::f64 : descr == "<i4" ? DType::i32 : DType::f32;
  HostTensor out(t, Shape(shape));
  if (out.bytes() != data.size()) throw Error("npy: data size does not match the shape");
  const std::size_t size = dtype_size(t);
  std::string native;
  append_little_endian(native, reinterpret_cast<const std::byte*>(data.data()), data.size(), size);  // LE -> host
  std::memcpy(out.data(), native.data(), native.size());
  return out;
}

}  // namespace gp
