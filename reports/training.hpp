// The Training summary: per training run x backend, the loss curve against the reference and its
// band (from the check "loss at every step"), the largest loss error / bound over the steps, the
// step map's amplification, and the first step at which any of the run's checks left its band.
#pragma once

#include <string>
#include <vector>

#include "results/result.hpp"

namespace gp {

// A check of a training run (docs/training.md): the composite model "train".
bool is_training(const CheckResult& c);

struct TrainingRow {
  std::string case_id, backend;
  DType dtype = DType::f32;
  Verdict verdict = Verdict::skip;  // the worst of the run's checks on this backend
  TrainingSteps curve;              // the loss's, step by step; empty when the run did not run
  double worst_ratio = 0;           // max over steps of |loss - reference| / bound
  int worst_step = 0;               // where (from 1)
  int first_out = 0;                // the first step any check left its band; 0: none
  double amplification_max = 0, amplification_product = 1;
};

// Rows in order of first appearance of each (run, backend); the reference's own run (its
// convergence only) has none.
std::vector<TrainingRow> training_rows(const std::vector<CheckResult>& checks);

}  // namespace gp
