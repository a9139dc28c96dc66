// A catalog case at values given from outside (cases files): the declaration is the catalog's,
// the shapes and values the file's, the id derived from the values.
#include <cmath>
#include <cstdio>

#include "cases/case.hpp"
#include "core/error.hpp"

namespace gp {

namespace {

std::string name_of(DType t) { return std::string(dtype_name(t)); }

// FNV-1a, 64 bits: the same bytes give the same id on every machine (std::hash does not).
class ContentHash {
 public:
  void add(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h_ = (h_ ^ p[i]) * 1099511628211ull;
  }
  void add(const std::string& s) { add(s.data(), s.size() + 1); }  // with its terminator: "ab","c" != "a","bc"
  void add(const HostTensor& t) {
    add(name_of(t.dtype()) + t.shape().to_string());
    add(t.data(), t.bytes());
  }
  // 48 bits are plenty to tell apart the cases one run reads, and keep the id short.
  std::string hex12() const {
    char buf[20];
    std::snprintf(buf, sizeof buf, "%012llx", static_cast<unsigned long long>(h_ >> 16));
    return buf;
  }

 private:
  std::uint64_t h_ = 1469598103934665603ull;
};

void require_finite(const HostTensor& t, const std::string& tensor) {
  for (std::int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(t.get(i)))
      throw UsageError(tensor + ": element " + std::to_string(i) + " is " + std::to_string(t.get(i)) +
                       "; cases files take finite values only");
}

void require_indices(const HostTensor& t, std::int64_t count, const std::string& tensor) {
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const double v = t.get(i);
    if (v < 0 || v >= static_cast<double>(count))
      throw UsageError(tensor + ": index " + std::to_string(static_cast<long long>(v)) + " at element " +
                       std::to_string(i) + " is outside [0, " + std::to_string(count) + ")");
  }
}

}  // namespace

Case case_with_values(const Case& base, GivenValues values) {
  if (base.decl.tier != Tier::small)
    throw UsageError("cases files name small-tier cases: " + base.id + " is a large case (docs/scale.md)");
  if (base.given) throw UsageError(base.id + " is itself a case from a file; name the catalog case it came from");
  const std::size_t n = base.decl.inputs.size();
  if (values.inputs.size() != n)
    throw UsageError(base.id + " takes " + std::to_string(n) + " inputs, the file gives " +
                     std::to_string(values.inputs.size()));
  Case c;
  c.decl = base.decl;
  c.dtype = base.dtype;
  c.decl.dtypes = {base.dtype};
  std::vector<Shape> shapes;
  for (std::size_t k = 0; k < n; ++k) {
    const HostTensor& t = values.inputs[k];
    if (t.dtype() != base.call.input_dtypes[k])
      throw UsageError("input " + std::to_string(k) + " is " + name_of(t.dtype()) + ", the case's is " +
                       name_of(base.call.input_dtypes[k]));
    c.decl.inputs[k].shape = t.shape();
    shapes.push_back(t.shape());
  }
  try {
    c.call = make_call(base.decl.op, base.decl.attrs, base.dtype, shapes);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    throw UsageError(std::string("the inputs do not fit the op: ") + e.what());
  }
  for (std::size_t k = 0; k < n; ++k) {
    const std::string name = "input " + std::to_string(k);
    if (is_float(values.inputs[k].dtype()))
      require_finite(values.inputs[k], name);
    else
      require_indices(values.inputs[k], index_count(c.call), name);
  }
  ContentHash hash;
  hash.add(base.id);
  for (const HostTensor& t : values.inputs) hash.add(t);
  if (values.cotangent) {
    if (values.cotangent->dtype() != base.dtype || values.cotangent->shape() != c.call.output_shape)
      throw UsageError("the cotangent is " + name_of(values.cotangent->dtype()) + " of shape " +
                       values.cotangent->shape().to_string() + ", the output " + name_of(base.dtype) + " of shape " +
                       c.call.output_shape.to_string());
    require_finite(*values.cotangent, "the cotangent");
    hash.add("cotangent");
    hash.add(*values.cotangent);
  }
  c.decl.variant = (base.decl.variant.empty() ? "" : base.decl.variant + ",") + "file=" + hash.hex12();
  c.id = make_case_id(c.decl, c.dtype);
  c.call.case_id = c.id;
  c.given = std::make_shared<const GivenValues>(std::move(values));
  return c;
}

}  // namespace gp
