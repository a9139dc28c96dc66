#include "core/error.hpp"

namespace gp {

namespace {
std::string compose(const std::string& call, const std::string& name, const std::string& case_id,
                    const std::string& detail) {
  std::string s = call + " failed: " + name;
  if (!case_id.empty()) s += " [case " + case_id + "]";
  if (!detail.empty()) s += ": " + detail;
  return s;
}
}  // namespace

DeviceError::DeviceError(std::string api_call, std::string error_name, std::string case_id, std::string detail)
    : Error(compose(api_call, error_name, case_id, detail)),
      api_call_(std::move(api_call)),
      error_name_(std::move(error_name)),
      case_id_(std::move(case_id)) {}

}  // namespace gp
