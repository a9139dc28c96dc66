#include "core/shape.hpp"

#include <charconv>

#include "core/error.hpp"

namespace gp {

std::int64_t Shape::numel() const {
  std::int64_t n = 1;
  for (auto d : dims_) n *= d;
  return n;
}

int Shape::axis(int a) const {
  int r = rank();
  int n = a < 0 ? a + r : a;
  if (n < 0 || n >= r) throw Error("axis " + std::to_string(a) + " is out of range for shape " + to_string());
  return n;
}

std::string Shape::to_string() const {
  if (dims_.empty()) return "scalar";
  std::string s;
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(dims_[i]);
  }
  return s;
}

bool parse_shape(const std::string& text, Shape& out) {
  if (text == "scalar") {
    out = Shape{};
    return true;
  }
  std::vector<std::int64_t> dims;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    std::int64_t d = 0;
    auto [next, ec] = std::from_chars(p, end, d);
    if (ec != std::errc{} || d < 0) return false;
    dims.push_back(d);
    p = next;
    if (p < end && *p++ != 'x') return false;
    if (p == end && text.back() == 'x') return false;
  }
  if (dims.empty() || static_cast<int>(dims.size()) > kMaxRank) return false;
  out = Shape(std::move(dims));
  return true;
}

}  // namespace gp
