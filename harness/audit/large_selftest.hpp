// `gradparity selftest --scale large`: a large case's sampled and complete checks (harness/large/)
// run through the large tier's faults (fault_injection.hpp): one element anywhere perturbed by
// 1e-3 (several positions, a detection rate), the last edge tile wrong, the last work-group's
// output dropped, an index that wraps at 2^31. What the sample alone cannot see (an element away
// from every tile boundary) is what the complete checks are for; the rates say where they exist.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "cases/case.hpp"
#include "harness/audit/fault_injection.hpp"
#include "harness/check/context.hpp"

namespace gp {

struct LargeFaultOutcome {
  Fault fault;              // as applied, but for Fault::trial, which each trial sets
  std::string tensor;       // element_perturbed: the tensor perturbed ("output", "gradient 0", ...)
  int trials = 0;           // 0: the fault cannot change this case's results (`evidence` says why)
  int caught = 0;           // trials in which a check failed
  bool must_catch = false;  // a boundary fault the sample holds (every check set must catch it)
  std::string evidence;     // the first failing check of the first caught trial, or why not applicable
};

struct LargeSelftest {
  const Case* c = nullptr;
  std::string baseline_problem;  // the unperturbed device already fails: nothing is measured
  std::vector<LargeFaultOutcome> faults;
};

struct LargeSelftestOptions {
  RunContext run;     // the seed, the sample's options, the reference cache
  int positions = 8;  // element_perturbed: positions drawn per case
  double epsilon = 1e-3;
};

// The large tier's fault set: element_perturbed at `epsilon`, edge_tile_wrong,
// last_workgroup_dropped, index_wrapped. selftest_large_case applies element_perturbed to each
// checked tensor in turn (the output, then each gradient), the others to every tensor at once.
std::vector<Fault> large_fault_set(double epsilon);

LargeSelftest selftest_large_case(const Case& c, const SelectedDevice& device, Backend& backend,
                                  const LargeSelftestOptions& o);

}  // namespace gp
