#include "backends/plugin/plugin_library.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <filesystem>
#include <string_view>
#include <utility>

namespace gp::plugin {

namespace {

// Every function of the table, each required: a plugin that leaves one out is refused at load
// time rather than crashing on a null pointer when a case first needs it.
// clang-format off
#define GP_PLUGIN_FUNCTIONS(X)                                                                      \
  X(device_count) X(device_info) X(open_device) X(close_device) X(supports) X(allocate)             \
  X(free_buffer) X(create_queue) X(destroy_queue) X(upload) X(download) X(forward) X(vjp) X(finish) \
  X(last_error)
// clang-format on

std::string missing_function(const gp_plugin_api& api) {
#define GP_X(fn) \
  if (!api.fn) return #fn;
  GP_PLUGIN_FUNCTIONS(GP_X)
#undef GP_X
  return {};
}

// The size of a table of ABI version v: up to the first member a later version appended.
std::size_t table_size(std::uint32_t v) {
  switch (v) {
    case 1:
      return offsetof(gp_plugin_api, arithmetic_probe);
    case 2:
      return offsetof(gp_plugin_api, backward_reads_output);
    case 3:
      return offsetof(gp_plugin_api, math_budgets);
    case 4:
      return offsetof(gp_plugin_api, strided_inputs);
    default:
      return sizeof(gp_plugin_api);
  }
}

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dlerror";
}

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
  throw UsageError("plugin " + path + ": " + what);
}

std::string status_name(gp_status s) {
  switch (s) {
    case GP_ERROR:
      return "GP_ERROR";
    case GP_UNSUPPORTED:
      return "GP_UNSUPPORTED";
    default:
      return "status " + std::to_string(s);
  }
}

// dlopen looks a name without a '/' up in the library path and never in the current folder,
// where a user who names "libmine.so" means the file in front of them.
std::string dlopen_path(const std::string& path) {
  if (path.find('/') == std::string::npos && std::filesystem::is_regular_file(path)) return "./" + path;
  return path;
}

}  // namespace

std::string contract_name(gp_thread_contract c) {
  switch (c) {
    case GP_THREADS_SERIALISED:
      return "serialised";
    case GP_THREADS_QUEUE_PER_THREAD:
      return "queue-per-thread";
    case GP_THREADS_FULL:
      return "full";
  }
  return "unknown (" + std::to_string(c) + ")";
}

void Library::Closer::operator()(void* handle) const noexcept { dlclose(handle); }

Library::Library(std::string path, std::unique_ptr<void, Closer> handle, const gp_plugin_api* api)
    : path_(std::move(path)), handle_(std::move(handle)), api_(api) {}

std::shared_ptr<const Library> Library::load(const std::string& path) {
  dlerror();
  std::unique_ptr<void, Closer> handle(dlopen(dlopen_path(path).c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!handle)
    refuse(path, "cannot be loaded: " + dl_error() +
                     (path.find('/') == std::string::npos
                          ? " (no such file in the current folder either; a name without '/' is looked up in the "
                            "library path)"
                          : ""));
  auto symbol = [&](const char* name) {
    dlerror();
    void* s = dlsym(handle.get(), name);
    if (!s) refuse(path, std::string("missing symbol ") + name + " (" + dl_error() + "); see docs/plugins.md");
    return s;
  };
  auto version = reinterpret_cast<gp_plugin_abi_version_fn>(symbol(GP_PLUGIN_ABI_VERSION_SYMBOL));
  const std::uint32_t v = version();
  if (v < GP_PLUGIN_ABI_OLDEST || v > GP_PLUGIN_ABI_VERSION)
    refuse(path, "plugin ABI version " + std::to_string(v) + ", this gradparity loads versions " +
                     std::to_string(GP_PLUGIN_ABI_OLDEST) + " to " + std::to_string(GP_PLUGIN_ABI_VERSION) +
                     " (rebuild it against this gradparity's plugin.h)");
  auto table = reinterpret_cast<gp_plugin_api_fn>(symbol(GP_PLUGIN_API_SYMBOL));
  const gp_plugin_api* api = table();
  if (!api) refuse(path, std::string(GP_PLUGIN_API_SYMBOL) + "() returned NULL");
  if (api->abi_version != v)
    refuse(path, "its table says ABI version " + std::to_string(api->abi_version) + " but " +
                     GP_PLUGIN_ABI_VERSION_SYMBOL + "() says " + std::to_string(v));
  if (api->struct_size < table_size(v))
    refuse(path, "its table has " + std::to_string(api->struct_size) + " bytes, ABI version " + std::to_string(v) +
                     " has " + std::to_string(table_size(v)));
  if (const std::string fn = missing_function(*api); !fn.empty())
    refuse(path, "function " + fn + " is missing from its table (NULL)");
  if (contract_name(api->threads).rfind("unknown", 0) == 0)
    refuse(path, "unknown thread-safety contract " + std::to_string(api->threads) +
                     " (GP_THREADS_SERIALISED, GP_THREADS_QUEUE_PER_THREAD or GP_THREADS_FULL)");
  return std::shared_ptr<const Library>(new Library(path, std::move(handle), api));
}

decltype(gp_plugin_api::arithmetic_probe) Library::arithmetic_probe() const {
  return api_->abi_version >= 2 && api_->struct_size >= table_size(2) ? api_->arithmetic_probe : nullptr;
}

decltype(gp_plugin_api::backward_reads_output) Library::backward_reads_output() const {
  return api_->abi_version >= 3 && api_->struct_size >= table_size(3) ? api_->backward_reads_output : nullptr;
}

decltype(gp_plugin_api::math_budgets) Library::math_budgets() const {
  return api_->abi_version >= 4 && api_->struct_size >= table_size(4) ? api_->math_budgets : nullptr;
}

bool Library::strided_inputs() const {
  return api_->abi_version >= 5 && api_->struct_size >= table_size(5) && api_->strided_inputs == 1;
}

std::string Library::name() const {
  if (api_->name && *api_->name) return api_->name;
  const auto slash = path_.find_last_of('/');
  return slash == std::string::npos ? path_ : path_.substr(slash + 1);
}

bool Library::needs_lock(Scope scope) const {
  switch (api_->threads) {
    case GP_THREADS_SERIALISED:
      return true;
    case GP_THREADS_QUEUE_PER_THREAD:
      return scope == Scope::device;
    default:
      return false;
  }
}

DeviceError Library::failure(const char* function, gp_status s, const std::string& case_id) const {
  const char* text = api_->last_error();
  return DeviceError("plugin " + path_ + ": " + function, status_name(s), case_id,
                     text && *text ? text : "(the plugin gave no error text)");
}

}  // namespace gp::plugin
