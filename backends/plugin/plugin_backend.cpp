#include "backends/plugin/plugin_backend.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "backends/plugin/plugin_call.hpp"

namespace gp::plugin {

namespace {

class PluginBuffer final : public DeviceBuffer {
 public:
  PluginBuffer(std::shared_ptr<DeviceHandle> device, DType dtype, Shape shape)
      : DeviceBuffer(dtype, std::move(shape)), device_(std::move(device)) {
    device_->lib().check(Scope::device, "allocate", "", [&] {
      return device_->api().allocate(device_->get(), to_c(dtype), static_cast<std::int64_t>(bytes()), &buffer_);
    });
  }
  ~PluginBuffer() override {
    if (buffer_) device_->lib().locked(Scope::device, [&] { device_->api().free_buffer(device_->get(), buffer_); });
  }
  gp_buffer* get() const { return buffer_; }

 private:
  std::shared_ptr<DeviceHandle> device_;
  gp_buffer* buffer_ = nullptr;
};

gp_buffer* handle(const DeviceBuffer& b) { return static_cast<const PluginBuffer&>(b).get(); }

std::vector<const gp_buffer*> handles(std::span<const DeviceBuffer* const> bufs) {
  std::vector<const gp_buffer*> out;
  for (const DeviceBuffer* b : bufs) out.push_back(b ? handle(*b) : nullptr);
  return out;
}

class PluginQueue final : public Queue {
 public:
  explicit PluginQueue(std::shared_ptr<DeviceHandle> device) : device_(std::move(device)) {
    device_->lib().check(Scope::device, "create_queue", "",
                         [&] { return device_->api().create_queue(device_->get(), &queue_); });
  }
  ~PluginQueue() override {
    if (queue_) device_->lib().locked(Scope::device, [&] { device_->api().destroy_queue(device_->get(), queue_); });
  }

  void upload(DeviceBuffer& dst, const HostTensor& src) override {
    run("upload", "",
        [&] { return api().upload(queue_, handle(dst), src.data(), static_cast<std::int64_t>(src.bytes())); });
  }
  HostTensor download(const DeviceBuffer& src) override {
    HostTensor t(src.dtype(), src.shape());
    run("download", "",
        [&] { return api().download(queue_, handle(src), t.data(), static_cast<std::int64_t>(t.bytes())); });
    return t;
  }
  void forward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, DeviceBuffer& out) override {
    const CCall c(call);
    const auto in = handles(inputs);
    run("forward", call.case_id, [&] { return api().forward(queue_, c.get(), in.data(), handle(out)); });
  }
  void backward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, const DeviceBuffer& out,
                const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) override {
    const CCall c(call);
    const auto in = handles(inputs);
    std::vector<gp_buffer*> g;
    for (DeviceBuffer* b : grads) g.push_back(b ? handle(*b) : nullptr);
    run("vjp", call.case_id,
        [&] { return api().vjp(queue_, c.get(), in.data(), handle(out), handle(dout), g.data()); });
  }
  void finish() override {
    run("finish", "", [&] { return api().finish(queue_); });
  }
  // The plugin's own probe (ABI version 2), where it has one for this dtype.
  bool arithmetic_probe(DeviceBuffer& out, int steps) override {
    const auto probe = device_->lib().arithmetic_probe();
    if (!probe) return false;
    gp_status s = GP_OK;
    run("arithmetic_probe", "arithmetic probe", [&] {
      s = probe(queue_, handle(out), to_c(out.dtype()), out.shape().numel(), steps);
      return s == GP_UNSUPPORTED ? GP_OK : s;
    });
    return s == GP_OK;
  }

 private:
  const gp_plugin_api& api() const { return device_->api(); }
  template <typename F>
  void run(const char* function, const std::string& case_id, F&& fn) {
    device_->lib().check(Scope::queue, function, case_id, std::forward<F>(fn));
  }

  std::shared_ptr<DeviceHandle> device_;
  gp_queue* queue_ = nullptr;
};

}  // namespace

DeviceHandle::DeviceHandle(std::shared_ptr<const Library> lib, int index) : lib_(std::move(lib)) {
  lib_->check(Scope::device, "open_device", "", [&] { return api().open_device(index, &device_); });
}

DeviceHandle::~DeviceHandle() {
  if (device_) lib_->locked(Scope::device, [&] { api().close_device(device_); });
}

PluginBackend::PluginBackend(std::shared_ptr<const Library> lib, int index, DeviceInfo info)
    : info_(std::move(info)), device_(std::make_shared<DeviceHandle>(std::move(lib), index)) {}

Support PluginBackend::supports(const OpCall& call) const {
  const Library& lib = device_->lib();
  for (DType t : call.input_dtypes)
    if (std::find(info_.dtypes.begin(), info_.dtypes.end(), t) == info_.dtypes.end())
      return Support::no("not implemented by plugin " + lib.name() + ": its device has no " +
                         std::string(dtype_name(t)));
  if (has_strided_input(call) && !lib.strided_inputs()) {
    // The library's own answer for the op comes first ("exp in f32 only" says more than "no
    // strides"); where it would run the op, the strided call still never reaches it.
    OpCall contiguous = call;
    contiguous.input_layouts.clear();
    if (Support s = supports(contiguous); !s.ok) return s;
    return Support::no("plugin " + lib.name() + " takes contiguous inputs only (ABI " +
                       std::to_string(lib.abi_version()) +
                       (lib.abi_version() < 5 ? ", before strided inputs" : ", strided_inputs not declared") + ")");
  }
  const CCall c(call);
  char reason[512] = "";
  std::optional<DeviceError> error;  // made under the lock, where last_error() belongs to this call
  const gp_status s = lib.locked(Scope::device, [&] {
    const gp_status r = device_->api().supports(device_->get(), c.get(), reason, sizeof reason);
    if (r != GP_OK && r != GP_UNSUPPORTED) error.emplace(lib.failure("supports", r, call.case_id));
    return r;
  });
  if (error) throw *error;
  if (s == GP_OK) return Support::yes();
  reason[sizeof reason - 1] = '\0';
  return Support::no("not implemented by plugin " + lib.name() + (*reason ? std::string(": ") + reason : ""));
}

std::unique_ptr<DeviceBuffer> PluginBackend::allocate(DType dtype, const Shape& shape) {
  return std::make_unique<PluginBuffer>(device_, dtype, shape);
}

std::unique_ptr<Queue> PluginBackend::create_queue() { return std::make_unique<PluginQueue>(device_); }

}  // namespace gp::plugin
