// A training run as a composite subject (graph/model_subject.hpp): the graph's and the
// optimizer's calls, drawn leaves with the teacher's targets, the reference trajectory's
// convergence, the whole loop on a device against it, and as its unjudged tensors the loss at
// every step, then every parameter and optimizer state at every step.
#pragma once

#include "harness/graph/model_subject.hpp"

namespace gp {

extern const CompositeKind kTrainingKind;

}  // namespace gp
