#include "core/strided.hpp"

#include <cstring>

#include "core/error.hpp"
#include "core/op.hpp"

namespace gp {

namespace {

// Calls f(linear, storage_index) for every element of `shape` in row-major order, carrying the
// storage index along instead of dividing per element.
template <typename F>
void for_each_element(const Shape& shape, const StridedLayout& layout, F&& f) {
  const std::int64_t n = shape.numel();
  if (n == 0) return;
  const int rank = shape.rank();
  std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);
  std::int64_t at = layout.offset;
  for (std::int64_t linear = 0; linear < n; ++linear) {
    f(linear, at);
    for (int d = rank - 1; d >= 0; --d) {
      const auto u = static_cast<std::size_t>(d);
      if (++index[u] < shape[d]) {
        at += layout.strides[u];
        break;
      }
      at -= (shape[d] - 1) * layout.strides[u];
      index[u] = 0;
    }
  }
}

}  // namespace

std::string describe(const StridedLayout& layout) {
  std::string s = "strides=";
  for (std::size_t d = 0; d < layout.strides.size(); ++d) s += (d ? "x" : "") + std::to_string(layout.strides[d]);
  if (layout.strides.empty()) s += "none";
  return s + ",offset=" + std::to_string(layout.offset);
}

std::optional<std::string> layout_problem(const Shape& shape, const StridedLayout& layout) {
  if (static_cast<int>(layout.strides.size()) != shape.rank())
    return std::to_string(layout.strides.size()) + " strides for a tensor of rank " + std::to_string(shape.rank());
  for (std::int64_t s : layout.strides)
    if (s < 0) return "a negative stride (" + describe(layout) + ")";
  if (layout.offset < 0) return "a negative offset (" + describe(layout) + ")";
  return std::nullopt;
}

std::int64_t storage_elements(const Shape& shape, const StridedLayout& layout) {
  if (shape.numel() == 0) return 0;
  std::int64_t last = layout.offset;
  for (int d = 0; d < shape.rank(); ++d) last += (shape[d] - 1) * layout.strides.at(static_cast<std::size_t>(d));
  return last + 1;
}

const StridedLayout* input_layout(const OpCall& call, std::size_t k) {
  if (k >= call.input_layouts.size() || !call.input_layouts[k]) return nullptr;
  return &*call.input_layouts[k];
}

bool has_strided_input(const OpCall& call) {
  for (const auto& l : call.input_layouts)
    if (l) return true;
  return false;
}

Shape input_buffer_shape(const OpCall& call, std::size_t k) {
  const StridedLayout* layout = input_layout(call, k);
  if (!layout) return call.input_shapes.at(k);
  return Shape{storage_elements(call.input_shapes.at(k), *layout)};
}

void gather_strided(const std::byte* storage, std::byte* dst, std::size_t element_bytes, const Shape& shape,
                    const StridedLayout& layout) {
  for_each_element(shape, layout, [&](std::int64_t linear, std::int64_t at) {
    std::memcpy(dst + static_cast<std::size_t>(linear) * element_bytes,
                storage + static_cast<std::size_t>(at) * element_bytes, element_bytes);
  });
}

void scatter_strided(const std::byte* src, std::byte* storage, std::size_t element_bytes, const Shape& shape,
                     const StridedLayout& layout) {
  for_each_element(shape, layout, [&](std::int64_t linear, std::int64_t at) {
    std::memcpy(storage + static_cast<std::size_t>(at) * element_bytes,
                src + static_cast<std::size_t>(linear) * element_bytes, element_bytes);
  });
}

HostTensor to_storage(const HostTensor& logical, const StridedLayout& layout, HostTensor background) {
  if (auto problem = layout_problem(logical.shape(), layout)) throw Error("strided input: " + *problem);
  if (background.dtype() != logical.dtype() || background.numel() != storage_elements(logical.shape(), layout))
    throw Error("strided input: a storage of " + std::to_string(background.numel()) + " elements for " +
                std::to_string(storage_elements(logical.shape(), layout)) + " (" + describe(layout) + ")");
  scatter_strided(logical.data(), background.data(), dtype_size(logical.dtype()), logical.shape(), layout);
  return background;
}

HostTensor from_storage(const HostTensor& storage, const Shape& shape, const StridedLayout& layout) {
  if (storage.numel() < storage_elements(shape, layout))
    throw Error("strided input: a storage of " + std::to_string(storage.numel()) + " elements for " +
                std::to_string(storage_elements(shape, layout)) + " (" + describe(layout) + ")");
  HostTensor out(storage.dtype(), shape);
  gather_strided(storage.data(), out.data(), dtype_size(storage.dtype()), shape, layout);
  return out;
}

HostTensor as_viewed(const HostTensor& logical, const StridedLayout& layout) {
  HostTensor storage(logical.dtype(), Shape{storage_elements(logical.shape(), layout)});
  return from_storage(to_storage(logical, layout, std::move(storage)), logical.shape(), layout);
}

void keep_viewable(std::vector<double>& values, const Shape& shape, const StridedLayout& layout) {
  std::vector<std::int64_t> last_writer(static_cast<std::size_t>(storage_elements(shape, layout)), -1);
  for_each_element(shape, layout,
                   [&](std::int64_t linear, std::int64_t at) { last_writer[static_cast<std::size_t>(at)] = linear; });
  for_each_element(shape, layout, [&](std::int64_t linear, std::int64_t at) {
    values.at(static_cast<std::size_t>(linear)) =
        values.at(static_cast<std::size_t>(last_writer[static_cast<std::size_t>(at)]));
  });
}

}  // namespace gp
