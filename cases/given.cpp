// A catalog case at values given from outside (cases files): the declaration is the catalog's,
// the shapes and values the file's, the id derived from the values.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "cases/case.hpp"
#include "core/error.hpp"
#include "core/fnv1a.hpp"

namespace gp {

namespace {

std::string name_of(DType t) { return std::string(dtype_name(t)); }

// A text with its terminator, so that "ab","c" and "a","bc" hash apart.
void add_text(Fnv1a& h, const std::string& s) { h.add_bytes(s.c_str(), s.size() + 1); }
void add_tensor(Fnv1a& h, const HostTensor& t) {
  add_text(h, name_of(t.dtype()) + t.shape().to_string());
  h.add_bytes(t.data(), t.bytes());
}
// 48 bits are plenty to tell apart the cases one run reads, and keep the id short.
std::string hex12(const Fnv1a& h) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%012llx", static_cast<unsigned long long>(h.value() >> 16));
  return buf;
}

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

// A strided input reads what its storage holds: an expanded view's slices are one slice.
void require_viewable(const HostTensor& t, const StridedLayout& layout, const std::string& tensor) {
  const HostTensor viewed = as_viewed(t, layout);
  for (std::int64_t i = 0; i < t.numel(); ++i)
    if (std::memcmp(t.data() + i * static_cast<std::int64_t>(dtype_size(t.dtype())),
                    viewed.data() + i * static_cast<std::int64_t>(dtype_size(t.dtype())), dtype_size(t.dtype())) != 0)
      throw UsageError(tensor + ": element " + std::to_string(i) + " is " + std::to_string(t.get(i)) +
                       " where its view (" + describe(layout) + ") reads " + std::to_string(viewed.get(i)) +
                       " from the element it shares");
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
  try {
    apply_views(c.decl, c.call);
  } catch (const Error& e) {
    throw UsageError(std::string("the inputs do not fit the case's views: ") + e.what());
  }
  for (std::size_t k = 0; k < n; ++k)
    if (const StridedLayout* layout = input_layout(c.call, k))
      require_viewable(values.inputs[k], *layout, "input " + std::to_string(k));
  for (std::size_t k = 0; k < n; ++k) {
    const std::string name = "input " + std::to_string(k);
    if (is_float(values.inputs[k].dtype()))
      require_finite(values.inputs[k], name);
    else
      require_indices(values.inputs[k], index_count(c.call), name);
  }
  Fnv1a hash(Fnv1a::kShortStart);  // the same bytes give the same id on every machine
  add_text(hash, base.id);
  for (const HostTensor& t : values.inputs) add_tensor(hash, t);
  if (values.cotangent) {
    if (values.cotangent->dtype() != base.dtype || values.cotangent->shape() != c.call.output_shape)
      throw UsageError("the cotangent is " + name_of(values.cotangent->dtype()) + " of shape " +
                       values.cotangent->shape().to_string() + ", the output " + name_of(base.dtype) + " of shape " +
                       c.call.output_shape.to_string());
    require_finite(*values.cotangent, "the cotangent");
    add_text(hash, "cotangent");
    add_tensor(hash, *values.cotangent);
  }
  c.decl.variant = (base.decl.variant.empty() ? "" : base.decl.variant + ",") + "file=" + hex12(hash);
  c.id = make_case_id(c.decl, c.dtype);
  c.call.case_id = c.id;
  c.given = std::make_shared<const GivenValues>(std::move(values));
  return c;
}

}  // namespace gp
