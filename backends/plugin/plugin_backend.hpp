// A device of a plugin library as a gradparity Backend (backends/backend.hpp). Every plugin
// object is owned by an RAII wrapper: the device by DeviceHandle, buffers by PluginBuffer,
// queues by PluginQueue; each holds the device, which holds the library, so the library is
// unloaded only after the last object it made is released. Destructors never throw: a plugin's
// free and destroy functions return nothing.
//
// Thread-safety contract (how backends/backend.hpp's holds): the host takes the lock the
// plugin's declared contract asks for (plugin_library.hpp) around every call into it, so
// info(), supports(), allocate() and create_queue() may be called from many threads; a queue is
// used by one thread at a time, as the interface requires and the ABI promises the plugin.
#pragma once

#include <memory>
#include <string>

#include "backends/backend.hpp"
#include "backends/plugin/plugin_library.hpp"

namespace gp::plugin {

class DeviceHandle {
 public:
  DeviceHandle(std::shared_ptr<const Library> lib, int index);  // throws gp::DeviceError
  ~DeviceHandle();
  DeviceHandle(const DeviceHandle&) = delete;
  DeviceHandle& operator=(const DeviceHandle&) = delete;
  const Library& lib() const { return *lib_; }
  const gp_plugin_api& api() const { return lib_->api(); }
  gp_device* get() const { return device_; }

 private:
  std::shared_ptr<const Library> lib_;
  gp_device* device_ = nullptr;
};

class PluginBackend final : public Backend {
 public:
  PluginBackend(std::shared_ptr<const Library> lib, int index, DeviceInfo info);
  const DeviceInfo& info() const override { return info_; }
  // The device's dtypes first, then the plugin's answer: GP_UNSUPPORTED is a SKIP "not
  // implemented by plugin NAME" with its reason; GP_ERROR throws (an ERROR verdict).
  Support supports(const OpCall& call) const override;
  std::unique_ptr<DeviceBuffer> allocate(DType dtype, const Shape& shape) override;
  std::unique_ptr<Queue> create_queue() override;

 private:
  const DeviceInfo info_;
  std::shared_ptr<DeviceHandle> device_;
};

}  // namespace gp::plugin
