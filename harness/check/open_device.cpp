#include "harness/check/open_device.hpp"

namespace gp {

OpenedDevice open_device(const SelectedDevice& d) {
  OpenedDevice out;
  if (!d.entry.create) {
    out.unusable = ReasonKind::unavailable;
    out.reason = d.entry.unavailable.empty() ? "device unavailable" : d.entry.unavailable;
    return out;
  }
  try {
    out.backend = d.entry.create();
  } catch (const std::exception& e) {
    out.unusable = ReasonKind::device_failed;
    out.reason = std::string("could not open device: ") + e.what();
  }
  return out;
}

}  // namespace gp
