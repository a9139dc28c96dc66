// `gradparity hunt` (docs/hunt.md): a search over a case's input values, shapes fixed, for the
// largest margin (error / bound) of its forward and backward checks on one device. Every op x
// dtype is one group: its catalog cases (the ordinary samples and the hard regimes) are the
// starting points; a step applies one move (hunt/moves.hpp) to the current inputs of one start
// and keeps the result when the margin does not fall; a start that stalls restarts from a fresh
// draw of its domain. What is found is of two kinds: a kernel beyond its bound (margin > 1) and a
// reference that fails its MPFR check there (a hole in the error model), told apart by the oracle
// at the worst inputs.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cases/case.hpp"
#include "harness/check/context.hpp"
#include "results/result.hpp"

namespace gp {

struct HuntOptions {
  double budget_seconds = 5;     // per op x dtype x device
  std::int64_t evaluations = 0;  // per op x dtype x device, 0: until the budget; alone it makes a hunt repeatable
  std::uint64_t seed = 1;        // the moves' stream, the starting draws and the cotangents
  int stall = 200;               // moves without a rise of a start's margin before it restarts
};

// The catalog cases of one op in one dtype.
struct HuntGroup {
  OpKind op{};
  DType dtype = DType::f32;
  std::vector<const Case*> cases;
  std::string label() const;  // "exp f32"
};
// Groups of the given catalog cases, in catalog order (cases from files are left out: their values
// are fixed).
std::vector<HuntGroup> hunt_groups(const std::vector<const Case*>& cases);

enum class Finding : std::uint8_t {
  none,            // the worst margin found is within the bound
  kernel_fail,     // the device exceeds its bound at inputs where the oracle trusts the reference
  device_error,    // the device threw or crashed at some inputs
  reference_hole,  // the reference fails its MPFR check at the worst inputs: the error model is wrong there
  unsupported,     // the device runs none of the group's cases
};
const char* finding_name(Finding f);

// The inputs that gave the largest margin, and what that margin was.
struct HuntWorst {
  const Case* base = nullptr;  // the catalog case whose shapes, attributes and domains they have
  std::vector<HostTensor> inputs;
  HostTensor cotangent;
  double margin = -std::numeric_limits<double>::infinity();
  std::string check;   // "forward", "backward input 1"
  std::string reason;  // the failing check's reason, a device error's message
};

struct HuntResult {
  std::string group;  // HuntGroup::label()
  std::string device;
  std::int64_t evaluations = 0, rejected = 0, restarts = 0;
  double seconds = 0;
  HuntWorst worst;
  Finding finding = Finding::none;
  double oracle_ratio = 0;  // the reference's error at the worst inputs over the tightest bound
  std::string detail;       // why unsupported; the oracle's failure
};

// The search on one device (its queue used by this thread only).
HuntResult hunt_group(const HuntGroup& group, const DeviceContext& device, const HuntOptions& opts);

}  // namespace gp
