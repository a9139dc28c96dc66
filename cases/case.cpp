#include "cases/case.hpp"

#include <cstdio>

#include "core/error.hpp"

namespace gp {

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string interval(const Domain& d) { return "[" + num(d.lo) + ", " + num(d.hi) + "]"; }

}  // namespace

std::string describe(const Domain& d) {
  switch (d.kind) {
    case Domain::Kind::uniform: {
      std::string s = "U" + interval(d);
      if (d.min_abs > 0) s = "|x| >= " + num(d.min_abs) + " in " + interval(d);
      if (!d.kinks.empty()) {
        s += ", " + num(d.margin) + " from";
        for (double k : d.kinks) s += " " + num(k);
      }
      return s;
    }
    case Domain::Kind::half_integer_free:
      return "U" + interval(d) + ", " + num(d.margin) + " from every k + 1/2" +
             (d.min_abs > 0 ? ", |x| >= " + num(d.min_abs) : "");
    case Domain::Kind::gate:
      return "U" + interval(d) + ", " + num(d.margin) + " from -1, 0, 1";
    case Domain::Kind::apart_from_input0:
      return "U" + interval(d) + ", " + num(d.margin) + " from input 0";
    case Domain::Kind::unique_row_max:
      return "U" + interval(d) + ", each row's maximum " + num(d.margin) + " above the rest";
    case Domain::Kind::class_index:
      if (d.class_stride > 1)
        return std::to_string(d.classes) + " class indices k * " + std::to_string(d.class_stride) + ", k in [0, " +
               std::to_string(d.classes) + ")";
      return "class indices [0, " + std::to_string(d.classes) + ")";
    case Domain::Kind::gumbel_noise:
      return "Gumbel noise -log(-log U)";
    case Domain::Kind::probability:
      return "U[0, 1]";
    case Domain::Kind::normal:
      return num(d.mean) + " + " + num(d.sd) + " N(0, 1)";
    case Domain::Kind::magnitude:
      return "|x| log-uniform in " + interval(d) + ", either sign";
    case Domain::Kind::constant:
      return "all " + num(d.lo);
    case Domain::Kind::near_multiples:
      return (d.phase != 0 ? num(d.phase) + " + " : std::string()) + "k " + num(d.period) + " + t, k in [-" +
             std::to_string(d.multiples) + ", " + std::to_string(d.multiples) + "], |t| log-uniform in " + interval(d) +
             ", either sign";
  }
  return "?";
}

std::int64_t device_bytes(const Case& c) {
  const OpCall& call = c.call;
  std::int64_t bytes = 2 * call.output_shape.numel() * static_cast<std::int64_t>(dtype_size(call.dtype));
  for (std::size_t k = 0; k < call.input_shapes.size(); ++k) {
    const auto size = static_cast<std::int64_t>(dtype_size(call.input_dtypes.at(k)));
    // the input (its storage, for a strided one), its gradient
    bytes += input_buffer_shape(call, k).numel() * size;
    if (input_is_differentiable(c.decl.op, static_cast<int>(k))) bytes += call.input_shapes[k].numel() * size;
  }
  return bytes;
}

const char* view_name(InputView v) {
  switch (v) {
    case InputView::contiguous:
      return "contiguous";
    case InputView::transposed:
      return "transposed";
    case InputView::step2:
      return "step2";
    case InputView::expanded:
      return "expanded";
  }
  return "?";
}

namespace {
std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> strides(dims.size());
  std::int64_t s = 1;
  for (std::size_t d = dims.size(); d-- > 0;) {
    strides[d] = s;
    s *= dims[d];
  }
  return strides;
}
}  // namespace

std::optional<StridedLayout> view_layout(InputView v, const Shape& shape) {
  std::vector<std::int64_t> dims = shape.dims();
  const std::size_t r = dims.size();
  StridedLayout l;
  switch (v) {
    case InputView::contiguous:
      return std::nullopt;
    case InputView::transposed:
      if (r < 2) throw Error("a transposed view needs rank 2 or more, not " + shape.to_string());
      std::swap(dims[r - 2], dims[r - 1]);
      l.strides = row_major_strides(dims);
      std::swap(l.strides[r - 2], l.strides[r - 1]);
      return l;
    case InputView::step2:
      if (r < 1) throw Error("a view with step 2 needs rank 1 or more");
      dims[r - 1] *= 2;
      l.strides = row_major_strides(dims);
      l.strides[r - 1] = 2;
      l.offset = 1;
      return l;
    case InputView::expanded:
      if (r < 1) throw Error("an expanded view needs rank 1 or more");
      dims[0] = 1;
      l.strides = row_major_strides(dims);
      l.strides[0] = 0;
      return l;
  }
  return std::nullopt;
}

void apply_views(const CaseDecl& d, OpCall& call) {
  call.input_layouts.clear();
  if (d.views.empty()) return;
  if (d.views.size() != call.input_shapes.size())
    throw Error(call.case_id + ": " + std::to_string(d.views.size()) + " views for " +
                std::to_string(call.input_shapes.size()) + " inputs");
  for (std::size_t k = 0; k < d.views.size(); ++k)
    call.input_layouts.push_back(view_layout(d.views[k], call.input_shapes[k]));
}

const char* tier_name(Tier t) { return t == Tier::large ? "large" : "small"; }

CaseDecl::CaseDecl() : dtypes{DType::f32, DType::f64} {}

std::string make_case_id(const CaseDecl& d, DType dtype) {
  std::string id(op_name(d.op));
  id += '(';
  if (d.tier == Tier::large) id += std::string(tier_name(d.tier)) + ",";
  std::string attrs = attrs_to_string(d.op, d.attrs);
  if (!attrs.empty()) id += attrs + ",";
  if (!d.variant.empty()) id += d.variant + ",";
  if (!d.views.empty()) {
    id += "view=";
    for (std::size_t k = 0; k < d.views.size(); ++k) id += (k ? "|" : "") + std::string(view_name(d.views[k]));
    id += ",";
  }
  id += "shape=";
  // An optimizer step's inputs all have the parameter's shape: it is named once.
  const std::size_t named = op_family(d.op) == OpFamily::optimizer ? 1 : d.inputs.size();
  for (std::size_t i = 0; i < named; ++i) id += (i ? "|" : "") + d.inputs[i].shape.to_string();
  id += ",dtype=";
  id += dtype_name(dtype);
  id += ')';
  return id;
}

}  // namespace gp
