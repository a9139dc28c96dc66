// The bytes of a reference cache entry (harness/check/reference_cache.hpp): what the reference
// computed, written and read back bit for bit. A reader that runs out of bytes or meets a size
// it cannot hold throws BlobError; the cache then recomputes the entry.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "reference/reference.hpp"

namespace gp {

class BlobError : public Error {
 public:
  using Error::Error;
};

class BlobWriter {
 public:
  void u64(std::uint64_t v);
  void f80(long double v);  // the 10 bytes of an x87 extended value: no padding bytes
  void f64(double v);
  void text(std::string_view s);
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

class BlobReader {
 public:
  explicit BlobReader(std::string_view bytes) : in_(bytes) {}
  std::uint64_t u64();
  long double f80();
  double f64();
  std::string text();
  // A count of elements of `size` bytes each that the remaining bytes can hold.
  std::size_t count(std::size_t size);
  void expect_end() const;

 private:
  std::string_view take(std::size_t n);
  std::string_view in_;
};

void encode(BlobWriter& w, const ref::ErrorBound& e);
void decode(BlobReader& r, ref::ErrorBound& e);
void encode(BlobWriter& w, const ref::RefTensor& t);
void decode(BlobReader& r, ref::RefTensor& t);
void encode(BlobWriter& w, const ref::Bounded& b);
void decode(BlobReader& r, ref::Bounded& b);
inline void encode(BlobWriter& w, long double v) { w.f80(v); }
inline void decode(BlobReader& r, long double& v) { v = r.f80(); }
inline void encode(BlobWriter& w, double v) { w.f64(v); }
inline void decode(BlobReader& r, double& v) { v = r.f64(); }
inline void encode(BlobWriter& w, const std::string& s) { w.text(s); }
inline void decode(BlobReader& r, std::string& s) { s = r.text(); }
// Integers, flags and enumerations as 8 bytes (a signed value as its two's complement).
template <class I>
requires(std::is_integral_v<I> || std::is_enum_v<I>) void encode(BlobWriter& w, I v) {
  w.u64(static_cast<std::uint64_t>(v));
}
template <class I>
requires(std::is_integral_v<I> || std::is_enum_v<I>) void decode(BlobReader& r, I& v) { v = static_cast<I>(r.u64()); }

// A struct's codec from its fields, written and read in one order:
//   void encode(BlobWriter& w, const S& s) { encode_fields(w, s.a, s.b); }
template <class... F>
void encode_fields(BlobWriter& w, const F&... f);
template <class... F>
void decode_fields(BlobReader& r, F&... f);

template <class T>
void encode(BlobWriter& w, const std::vector<T>& v) {
  w.u64(v.size());
  for (const T& x : v) encode(w, x);
}
template <class T>
void decode(BlobReader& r, std::vector<T>& v) {
  v.resize(r.count(1));  // each element takes a byte at least
  for (T& x : v) decode(r, x);
}
template <class T>
void encode(BlobWriter& w, const std::map<std::string, T>& m) {
  w.u64(m.size());
  for (const auto& [k, x] : m) {
    w.text(k);
    encode(w, x);
  }
}
template <class T>
void decode(BlobReader& r, std::map<std::string, T>& m) {
  m.clear();
  for (std::size_t n = r.count(1); n > 0; --n) {
    std::string k = r.text();
    decode(r, m[k]);
  }
}

template <class... F>
void encode_fields(BlobWriter& w, const F&... f) {
  (encode(w, f), ...);
}
template <class... F>
void decode_fields(BlobReader& r, F&... f) {
  (decode(r, f), ...);
}

}  // namespace gp
