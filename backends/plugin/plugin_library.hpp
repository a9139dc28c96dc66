// A loaded plugin library (include/gradparity/plugin.h): the dlopen handle, its checked function
// table, and the lock its declared thread-safety contract asks the host to hold.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "core/error.hpp"
#include "gradparity/plugin.h"

namespace gp::plugin {

// What a call touches, for the contract's locking: device-wide functions (supports, allocate,
// queues, device info) or one queue's work.
enum class Scope { device, queue };

std::string contract_name(gp_thread_contract c);  // "serialised", "queue-per-thread", "full"

class Library {
 public:
  // Opens PATH, checks the ABI version before reading the table (one this host loads:
  // GP_PLUGIN_ABI_OLDEST to GP_PLUGIN_ABI_VERSION), then the table itself (version, size for
  // that version, every required function present, a known contract). Throws gp::UsageError, one
  // line naming the path and what is wrong.
  static std::shared_ptr<const Library> load(const std::string& path);
  ~Library() = default;
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  const gp_plugin_api& api() const { return *api_; }
  std::uint32_t abi_version() const { return api_->abi_version; }
  // The version-2 arithmetic probe, or null: a version-1 table has no such member (none is read
  // past its struct_size), a version-2 one may leave it NULL.
  decltype(gp_plugin_api::arithmetic_probe) arithmetic_probe() const;
  decltype(gp_plugin_api::backward_reads_output) backward_reads_output() const;  // NULL below version 3
  decltype(gp_plugin_api::math_budgets) math_budgets() const;                    // NULL below version 4
  bool strided_inputs() const;  // declared by a version-5 table: it reads gp_op_call::input_layouts
  const std::string& path() const { return path_; }
  std::string name() const;  // the plugin's own name, or the file name when it gives none

  // Runs fn() under the lock the contract requires for a call of this scope.
  template <typename F>
  auto locked(Scope scope, F&& fn) const {
    std::unique_lock lock(mutex_, std::defer_lock);
    if (needs_lock(scope)) lock.lock();
    return fn();
  }
  // Runs a fallible call under that lock; a status other than GP_OK throws gp::DeviceError
  // naming the plugin's path, the C function, the status, the case and last_error(), which is
  // read on this thread before the lock is released.
  template <typename F>
  void check(Scope scope, const char* function, const std::string& case_id, F&& fn) const {
    std::unique_lock lock(mutex_, std::defer_lock);
    if (needs_lock(scope)) lock.lock();
    const gp_status s = fn();
    if (s != GP_OK) throw failure(function, s, case_id);
  }
  DeviceError failure(const char* function, gp_status s, const std::string& case_id) const;

 private:
  struct Closer {
    void operator()(void* handle) const noexcept;
  };
  Library(std::string path, std::unique_ptr<void, Closer> handle, const gp_plugin_api* api);
  bool needs_lock(Scope scope) const;

  std::string path_;
  std::unique_ptr<void, Closer> handle_;
  const gp_plugin_api* api_;
  mutable std::mutex mutex_;
};

}  // namespace gp::plugin
