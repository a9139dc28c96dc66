#include "harness/check/cache_blob.hpp"

#include <cfloat>
#include <cstring>

namespace gp {

static_assert(LDBL_MANT_DIG == 64, "f80 writes the x87 extended format");
constexpr std::size_t kF80Bytes = 10;

void BlobWriter::u64(std::uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out_.append(b, 8);
}

void BlobWriter::f80(long double v) {
  char b[sizeof(long double)];
  std::memcpy(b, &v, sizeof v);
  out_.append(b, kF80Bytes);
}

void BlobWriter::f64(double v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out_.append(b, 8);
}

void BlobWriter::text(std::string_view s) {
  u64(s.size());
  out_.append(s);
}

std::string_view BlobReader::take(std::size_t n) {
  if (n > in_.size())
    throw BlobError("truncated: " + std::to_string(n) + " bytes wanted, " + std::to_string(in_.size()) + " left");
  std::string_view s = in_.substr(0, n);
  in_.remove_prefix(n);
  return s;
}

std::uint64_t BlobReader::u64() {
  std::uint64_t v = 0;
  std::memcpy(&v, take(8).data(), 8);
  return v;
}

long double BlobReader::f80() {
  long double v = 0;
  std::memcpy(&v, take(kF80Bytes).data(), kF80Bytes);
  return v;
}

double BlobReader::f64() {
  double v = 0;
  std::memcpy(&v, take(8).data(), 8);
  return v;
}

std::string BlobReader::text() {
  const std::size_t n = count(1);
  return std::string(take(n));
}

std::size_t BlobReader::count(std::size_t size) {
  const std::uint64_t n = u64();
  if (n > in_.size() / size) throw BlobError("a count of " + std::to_string(n) + " exceeds the entry");
  return static_cast<std::size_t>(n);
}

void BlobReader::expect_end() const {
  if (!in_.empty()) throw BlobError(std::to_string(in_.size()) + " bytes left over");
}

void encode(BlobWriter& w, const ref::ErrorBound& e) {
  for (long double v : {e.det, e.acc, e.prob, e.spec}) w.f80(v);
}
void decode(BlobReader& r, ref::ErrorBound& e) {
  e.det = r.f80();
  e.acc = r.f80();
  e.prob = r.f80();
  e.spec = r.f80();
}

void encode(BlobWriter& w, const ref::RefTensor& t) {
  w.u64(static_cast<std::uint64_t>(t.shape.rank()));
  for (int i = 0; i < t.shape.rank(); ++i) w.u64(static_cast<std::uint64_t>(t.shape[i]));
  encode_fields(w, t.v, t.err);
}
void decode(BlobReader& r, ref::RefTensor& t) {
  std::vector<std::int64_t> dims(r.count(8));
  for (auto& d : dims) d = static_cast<std::int64_t>(r.u64());
  t.shape = Shape(std::move(dims));
  decode_fields(r, t.v, t.err);
}

void encode(BlobWriter& w, const ref::Bounded& b) { encode_fields(w, b.output, b.grads); }
void decode(BlobReader& r, ref::Bounded& b) { decode_fields(r, b.output, b.grads); }

}  // namespace gp
