// Tensor shapes: row-major, rank 0 (a scalar) to kMaxRank. A dimension may be 0: an empty tensor
// (core/README.md, "Empty tensors").
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace gp {

inline constexpr int kMaxRank = 4;

class Shape {
 public:
  Shape() = default;  // rank 0: a scalar with one element
  Shape(std::initializer_list<std::int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<std::int64_t> dims) : dims_(std::move(dims)) {}

  int rank() const { return static_cast<int>(dims_.size()); }
  std::int64_t operator[](int i) const { return dims_.at(static_cast<std::size_t>(i)); }
  std::int64_t numel() const;
  const std::vector<std::int64_t>& dims() const { return dims_; }
  // Normalises a possibly negative axis; throws gp::Error when out of range.
  int axis(int a) const;
  // "16x33"; "scalar" for rank 0.
  std::string to_string() const;
  bool operator==(const Shape&) const = default;

 private:
  std::vector<std::int64_t> dims_;
};

// Parses "16x33", "7", "0x5", "scalar"; returns false on malformed text.
bool parse_shape(const std::string& text, Shape& out);

}  // namespace gp
