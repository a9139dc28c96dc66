#include "harness/audit/fault_injection.hpp"

#include <cmath>
#include <cstring>
#include <functional>
#include <iterator>

#include "core/enum_table.hpp"

namespace gp {

std::string_view fault_class_name(FaultClass f) {
  static constexpr std::string_view kNames[] = {"gradient_scaled",      "sign_flipped",     "element_zeroed",
                                                "last_element_dropped", "last_row_dropped", "gradients_crossed",
                                                "forward_scaled",       "double_rounded"};
  static_assert(std::size(kNames) == static_cast<std::size_t>(FaultClass::double_rounded) + 1);
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

class FaultyQueue : public Queue {
 public:
  FaultyQueue(Backend& backend, std::unique_ptr<Queue> inner, const Fault& fault)
      : backend_(backend), inner_(std::move(inner)), fault_(fault) {}

  void upload(DeviceBuffer& dst, const HostTensor& src) override { inner_->upload(dst, src); }
  HostTensor download(const DeviceBuffer& src) override { return inner_->download(src); }
  void finish() override { inner_->finish(); }
  std::optional<double> take_device_seconds() noexcept override { return inner_->take_device_seconds(); }

  void forward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, DeviceBuffer& out) override {
    inner_->forward(call, inputs, out);
    if (!hits(call)) return;
    if (fault_.kind == FaultClass::forward_scaled) rewrite(out, [&](HostTensor& t) { scale(t, 1 + fault_.epsilon); });
    if (fault_.kind == FaultClass::double_rounded) rewrite(out, round_all_once_more);
  }

  void backward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, const DeviceBuffer& out,
                const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) override {
    if (!hits(call)) return inner_->backward(call, inputs, out, dout, grads);
    const bool drops = fault_.kind == FaultClass::last_element_dropped || fault_.kind == FaultClass::last_row_dropped;
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
    }
  }

 private:
  bool hits(const OpCall& call) const { return fault_.target.empty() || call.case_id == fault_.target; }
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
