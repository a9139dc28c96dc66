// `gradparity selftest`: the checks of each case run through a perturbing decorator of a real
// backend (harness/audit/fault_injection.hpp), once per fault class, and per case the smallest
// gradient scaling (1 + eps*) they catch. A green run proves what this says it can catch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "cases/case.hpp"
#include "harness/audit/fault_injection.hpp"
#include "harness/check/checker.hpp"

namespace gp {

struct FaultOutcome {
  Fault fault;
  bool applies = true;  // false: the fault cannot change this case's results (reason says why)
  bool must_catch = false;
  bool caught = false;
  std::string evidence;  // the first failing check, or why the fault does not apply
  // Why a gross scaling is not required of this case (below its bounds' resolution), if so.
  std::string resolution_note;
};

struct CaseSelftest {
  const Case* c = nullptr;
  std::string baseline_problem;  // the unperturbed backend already fails: nothing is measured
  std::vector<FaultOutcome> faults;
  // Smallest epsilon of gradient x (1 + eps) that some check fails (bisection in log10, a
  // factor of 1.5 wide); infinity when even eps = 1 passes, 0 when the case has no gradient.
  double epsilon_star = 0;
};

struct SelftestOptions {
  std::uint64_t seed = 1;
  NumericalOptions numerical;
  bool progress = false;
};

// The fault set of a dtype: gradient scalings 1e-2..1e-5 (and 1e-8, 1e-11 in f64), one element
// sign-flipped or zeroed, the last element or row dropped, crossed gradients, the forward alone
// scaled by 1e-2 (1e-8 in f64), and double rounding in 16-bit types.
std::vector<Fault> fault_set(DType dtype);

// Faults that any checker worth the name catches, on a case whose unperturbed run is clean:
// structural ones (sign, zero, dropped element or row, crossed gradients), and gross scalings
// (1e-2 in f32 and f64, 1e-8 in f64) where the case's bounds resolve them (selftest_case: eps at
// least twice the tightest relative bound). Whatever else is measured, not required.
bool must_catch(const Fault& f, DType dtype);

CaseSelftest selftest_case(const Case& c, const SelectedDevice& device, Backend& backend, const SelftestOptions& o);

}  // namespace gp
