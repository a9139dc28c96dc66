#include "harness/audit/fault_injection.hpp"

#include <cmath>
#include <cstring>
#include <functional>
#include <iterator>

#include "core/enum_table.hpp"
#include "harness/check/rng.hpp"

namespace gp {

std::string_view fault_class_name(FaultClass f) {
  static constexpr std::string_view kNames[] = {"gradient_scaled",      "sign_flipped",           "element_zeroed",
                                                "last_element_dropped", "last_row_dropped",       "gradients_crossed",
                                                "forward_scaled",       "double_rounded",         "element_perturbed",
                                                "edge_tile_wrong",      "last_workgroup_dropped", "index_wrapped"};
  static_assert(std::size(kNames) == static_cast<std::size_t>(FaultClass::index_wrapped) + 1);
  return enum_row(kNames, f);
}

namespace {

bool is_16bit(DType t) { return t == DType::f16 || t == DType::bf16; }

// One more rounding of a 16-bit value, to a grid twice as coarse (one mantissa bit less), ties
// to even: the error of a kernel that stores through a narrower intermediate, up to one ULP.
double round_once_more(DType t, double x) {
  if (!std::isfinite(x) || x == 0) return x;
  const double coarse = 2 * ulp_of(t, x);
  return round_to(t, std::nearbyint(x / coarse) * coarse);
}

std::int64_t largest_magnitude(const HostTensor& t) {
  std::int64_t best = 0;
  for (std::int64_t i = 1; i < t.numel(); ++i)
    if (std::fabs(t.get(i)) > std::fabs(t.get(best))) best = i;
  return best;
}

// Copies elements [from, numel) of `before` over `after`, byte for byte: what a kernel that
// skipped them leaves behind.
void restore_tail(HostTensor& after, const HostTensor& before, std::int64_t from) {
  const std::size_t width = dtype_size(after.dtype());
  const auto off = static_cast<std::size_t>(from) * width;
  std::memcpy(after.data() + off, before.data() + off, after.bytes() - off);
}

bool is_large_fault(FaultClass k) { return k >= FaultClass::element_perturbed; }

// The last tile of 16 x 16 of the last matrix (of 16 elements for a vector), where a kernel's
// partial edge tile lies whatever its tile size (16 or a multiple), each element moved away from
// zero by the tensor's largest magnitude: wrong by the size of the tensor's values, which every
// sound bound resolves (doubled, the last column of a 16-bit softmax row over 50,257 entries,
// below f16's normal range, stayed within the bound of a device that may flush it to zero).
bool shift_edge_tile(HostTensor& t) {
  constexpr std::int64_t kTile = 16;
  double largest = 0;
  for (std::int64_t i = 0; i < t.numel(); ++i) largest = std::max(largest, std::fabs(t.get(i)));
  if (largest == 0) return false;
  const Shape& s = t.shape();
  const std::int64_t cols = s.rank() >= 1 ? s[s.rank() - 1] : 1;
  const std::int64_t rows = s.rank() >= 2 ? s[s.rank() - 2] : 1;
  const std::int64_t matrix = (t.numel() / (rows * cols) - 1) * rows * cols;
  for (std::int64_t r = (rows - 1) / kTile * kTile; r < rows; ++r)
    for (std::int64_t c = (cols - 1) / kTile * kTile; c < cols; ++c) {
      const double v = t.get(matrix + r * cols + c);
      t.set(matrix + r * cols + c, v + (v < 0 ? -largest : largest));
    }
  return true;
}

bool differs_from(const HostTensor& a, const HostTensor& b, std::int64_t from) {
  const auto off = static_cast<std::size_t>(from) * dtype_size(a.dtype());
  return std::memcmp(a.data() + off, b.data() + off, a.bytes() - off) != 0;
}

}  // namespace

bool apply_large_fault(const Fault& f, HostTensor& after, const HostTensor& before, int which,
                       std::int64_t wrap_period) {
  const std::int64_t n = after.numel();
  if (n == 0 || (f.tensor >= 0 && f.tensor != which)) return false;
  switch (f.kind) {
    case FaultClass::element_perturbed: {
      Rng rng = Rng::for_case(f.trial, "element_perturbed", std::to_string(which));
      const auto start = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n)));
      // The first nonzero element from there on: scaling a zero changes nothing.
      for (std::int64_t k = 0; k < n; ++k) {
        const std::int64_t i = (start + k) % n;
        if (after.get(i) != 0) {
          after.set(i, after.get(i) * (1 + f.epsilon));
          return true;
        }
      }
      return false;
    }
    case FaultClass::edge_tile_wrong:
      return shift_edge_tile(after);
    case FaultClass::last_workgroup_dropped: {
      const std::int64_t from = std::max<std::int64_t>(0, n - kWorkgroupElements);
      const bool changed = differs_from(after, before, from);
      restore_tail(after, before, from);
      return changed;
    }
    case FaultClass::index_wrapped: {
      if (n <= wrap_period) return false;
      const std::size_t width = dtype_size(after.dtype());
      const auto wrap = static_cast<std::size_t>(wrap_period) * width, tail = after.bytes() - wrap;
      std::memmove(after.data(), after.data() + wrap, tail);  // element i lands at i - 2^31
      restore_tail(after, before, wrap_period);
      return true;
    }
    default:
      return false;
  }
}

namespace {

class FaultyQueue : public Queue {
 public:
  FaultyQueue(Backend& backend, std::unique_ptr<Queue> inner, const Fault& fault)
      : backend_(backend), inner_(std::move(inner)), fault_(fault) {}

  void upload(DeviceBuffer& dst, const HostTensor& src) override { inner_->upload(dst, src); }
  HostTensor download(const DeviceBuffer& src) override { return inner_->download(src); }
  void finish() override { inner_->finish(); }
  std::optional<double> take_device_seconds() noexcept override { return inner_->take_device_seconds(); }

  void forward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, DeviceBuffer& out) override {
    if (hits(call) && is_large_fault(fault_.kind)) {
      if (!touches(0)) return inner_->forward(call, inputs, out);
      // What the buffer held before: only the faults that leave elements as found read it (a
      // download of a 2^31-element tensor is seconds).
      const bool reads_before =
          fault_.kind == FaultClass::last_workgroup_dropped || fault_.kind == FaultClass::index_wrapped;
      const HostTensor before = reads_before ? inner_->download(out) : HostTensor();
      inner_->forward(call, inputs, out);
      rewrite(out, [&](HostTensor& t) { apply_large_fault(fault_, t, reads_before ? before : t, 0); });
      return;
    }
    inner_->forward(call, inputs, out);
    if (!hits(call)) return;
    if (fault_.kind == FaultClass::forward_scaled) rewrite(out, [&](HostTensor& t) { scale(t, 1 + fault_.epsilon); });
    if (fault_.kind == FaultClass::double_rounded) rewrite(out, round_all_once_more);
  }

  void backward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, const DeviceBuffer& out,
                const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) override {
    if (!hits(call)) return inner_->backward(call, inputs, out, dout, grads);
    const bool drops = fault_.kind == FaultClass::last_element_dropped || fault_.kind == FaultClass::last_row_dropped ||
                       fault_.kind == FaultClass::last_workgroup_dropped || fault_.kind == FaultClass::index_wrapped;
    std::vector<HostTensor> before;
    if (drops)
      for (auto* g : grads) before.push_back(g ? inner_->download(*g) : HostTensor());
    if (fault_.kind == FaultClass::forward_scaled) {
      // The backward of a kernel pair whose forward alone is wrong: it reads the exact output.
      auto exact = backend_.allocate(out.dtype(), out.shape());
      inner_->forward(call, inputs, *exact);
      inner_->backward(call, inputs, *exact, dout, grads);
      inner_->finish();
    } else {
      inner_->backward(call, inputs, out, dout, grads);
    }
    std::vector<DeviceBuffer*> present;  // the gradients written that have an element to change
    for (auto* g : grads)
      if (g && g->shape().numel() > 0) present.push_back(g);
    if (present.empty()) return;
    switch (fault_.kind) {
      case FaultClass::gradient_scaled:
        for (auto* g : present) rewrite(*g, [&](HostTensor& t) { scale(t, 1 + fault_.epsilon); });
        break;
      case FaultClass::sign_flipped:
        rewrite(*present[0], [](HostTensor& t) {
          const auto i = largest_magnitude(t);
          t.set(i, -t.get(i));
        });
        break;
      case FaultClass::element_zeroed:
        rewrite(*present[0], [](HostTensor& t) { t.set(largest_magnitude(t), 0.0); });
        break;
      case FaultClass::last_element_dropped:
      case FaultClass::last_row_dropped:
        for (std::size_t k = 0; k < grads.size(); ++k) {
          if (!grads[k] || grads[k]->shape().numel() == 0) continue;
          const Shape& s = grads[k]->shape();
          const bool row = fault_.kind == FaultClass::last_row_dropped && s.rank() > 0;
          const std::int64_t keep = s.numel() - (row ? s[s.rank() - 1] : 1);
          rewrite(*grads[k], [&](HostTensor& t) { restore_tail(t, before[k], keep); });
        }
        break;
      case FaultClass::gradients_crossed:
        for (std::size_t b = 1; b < present.size(); ++b) {
          if (present[b]->shape() == present[0]->shape() && present[b]->dtype() == present[0]->dtype()) {
            inner_->upload(*present[b], inner_->download(*present[0]));
            break;
          }
        }
        break;
      case FaultClass::double_rounded:
        for (auto* g : present) rewrite(*g, round_all_once_more);
        break;
      case FaultClass::forward_scaled:
        break;
      case FaultClass::element_perturbed:
      case FaultClass::edge_tile_wrong:
      case FaultClass::last_workgroup_dropped:
      case FaultClass::index_wrapped:
        for (std::size_t k = 0; k < grads.size(); ++k)
          if (grads[k] && grads[k]->shape().numel() > 0 && touches(1 + static_cast<int>(k)))
            rewrite(*grads[k], [&](HostTensor& t) {
              apply_large_fault(fault_, t, drops ? before[k] : t, 1 + static_cast<int>(k));
            });
        break;
    }
  }

 private:
  bool hits(const OpCall& call) const { return fault_.target.empty() || call.case_id == fault_.target; }
  // Whether a large-tier fault changes the call's tensor `which` (Fault::tensor).
  bool touches(int which) const { return fault_.tensor < 0 || fault_.tensor == which; }
  void rewrite(DeviceBuffer& b, const std::function<void(HostTensor&)>& change) {
    HostTensor t = inner_->download(b);
    change(t);
    inner_->upload(b, t);
  }
  static void scale(HostTensor& t, double factor) {
    for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, t.get(i) * factor);
  }
  static void round_all_once_more(HostTensor& t) {
    if (!is_16bit(t.dtype())) return;
    for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, round_once_more(t.dtype(), t.get(i)));
  }

  Backend& backend_;
  std::unique_ptr<Queue> inner_;
  Fault fault_;
};

class FaultyBackend : public Backend {
 public:
  FaultyBackend(Backend& inner, const Fault& fault) : inner_(inner), fault_(fault) {}
  const DeviceInfo& info() const override { return inner_.info(); }
  Support supports(const OpCall& call) const override { return inner_.supports(call); }
  std::unique_ptr<DeviceBuffer> allocate(DType dtype, const Shape& shape) override {
    return inner_.allocate(dtype, shape);
  }
  std::unique_ptr<Queue> create_queue() override {
    return std::make_unique<FaultyQueue>(inner_, inner_.create_queue(), fault_);
  }
  std::vector<std::string> take_canary_violations() override { return inner_.take_canary_violations(); }
  std::vector<std::string> take_validation_messages() override { return inner_.take_validation_messages(); }

 private:
  Backend& inner_;
  Fault fault_;
};

}  // namespace

std::unique_ptr<Backend> make_faulty_backend(Backend& inner, const Fault& fault) {
  return std::make_unique<FaultyBackend>(inner, fault);
}

}  // namespace gp
