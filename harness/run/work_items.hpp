// The pieces of a run that its workers take, in the order they take them.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "harness/check/subject.hpp"

namespace gp {

struct WorkItem {
  static constexpr std::size_t kEveryDevice = std::numeric_limits<std::size_t>::max();
  std::size_t subject;  // index into the run's subjects
  std::size_t device;   // index into its devices, or kEveryDevice: each in turn
};

// The models and training runs first, each of their devices an item of its own, in groups of as
// many subjects as there are workers: a group's first device, then its second, ... (workers that
// took two devices of one subject at once waited for each other's shared evaluations, on 2 cores
// 5 % of a cold run; and a subject's reference data lives until its last device is done, so only
// a group's are alive at once). Then the primitive cases, one item each with all their devices, the
// large cases with a serial pass over a long line first, the longest first (on the H200 the
// variance over 2^27, one core's two passes per line, ended the whole large tier alone), the rest
// in the catalog's order. A model or training run
// takes seconds per device where a primitive case takes milliseconds: taken in the catalog's order the models came last
// and a many-core run waited for the few workers that drew them, and with one worker per subject the longest subject's
// devices ran one after the other while the other workers had nothing left to take.
std::vector<WorkItem> work_items(const std::vector<const Subject*>& subjects, std::size_t devices, std::size_t workers);

}  // namespace gp
