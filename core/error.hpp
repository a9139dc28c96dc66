// Errors. A device error names the API call, the API's error name and the case in flight, so a
// failure line alone tells where to look.
#pragma once

#include <stdexcept>
#include <string>

namespace gp {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A usage error: bad op, backend, dtype, shard or regex given by the user (exit code 2).
class UsageError : public Error {
 public:
  using Error::Error;
};

class DeviceError : public Error {
 public:
  DeviceError(std::string api_call, std::string error_name, std::string case_id, std::string detail = {});
  const std::string& api_call() const { return api_call_; }
  const std::string& error_name() const { return error_name_; }
  const std::string& case_id() const { return case_id_; }

 private:
  std::string api_call_, error_name_, case_id_;
};

// The device is gone (VK_ERROR_DEVICE_LOST and the like): the backend instance is unusable.
class DeviceLost : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

// Memory could not be allocated for a case: that case is an ERROR, the run goes on.
class OutOfMemory : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

}  // namespace gp
