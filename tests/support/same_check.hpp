// Every field of two check results equal, NaN equal to NaN: what a round trip through a report
// (reports/json_report) or a reference cache entry (harness/check/cached_reference_checks) must
// give back. `with_time`: a result read from the cache carries the read's own time instead.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "results/result.hpp"

namespace gp {

inline bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

inline void expect_same_check(const CheckResult& a, const CheckResult& b, bool with_time = true) {
  SCOPED_TRACE(a.case_id + " " + a.backend);
  EXPECT_EQ(a.case_id, b.case_id);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.family, b.family);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.direction, b.direction);
  EXPECT_EQ(a.input, b.input);
  EXPECT_EQ(a.part, b.part);
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.subject, b.subject);
  EXPECT_EQ(a.reason_kind, b.reason_kind);
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_EQ(a.formulation, b.formulation);
  EXPECT_EQ(a.tolerance, b.tolerance);
  const Metrics &m = a.metrics, &n = b.metrics;
  for (auto [x, y] : {std::pair{m.max_abs, n.max_abs},
                      {m.max_rel, n.max_rel},
                      {m.max_ulp, n.max_ulp},
                      {m.nmse, n.nmse},
                      {m.bound, n.bound},
                      {m.margin, n.margin},
                      {m.worst.expected, n.worst.expected},
                      {m.worst.got, n.worst.got},
                      {m.worst.bound, n.worst.bound},
                      {m.sensitivity_ulp, n.sensitivity_ulp},
                      {m.budget_ulp, n.budget_ulp},
                      {with_time ? a.time_ms : 0.0, with_time ? b.time_ms : 0.0}})
    EXPECT_TRUE(same_double(x, y)) << x << " vs " << y;
  EXPECT_EQ(m.elements, n.elements);
  EXPECT_EQ(m.nonfinite, n.nonfinite);
  EXPECT_EQ(m.insignificant, n.insignificant);
  EXPECT_EQ(m.worst.index, n.worst.index);
  ASSERT_EQ(m.worst.inputs.size(), n.worst.inputs.size());
  for (std::size_t i = 0; i < m.worst.inputs.size(); ++i)
    EXPECT_TRUE(same_double(m.worst.inputs[i], n.worst.inputs[i]));
  if (with_time) {
    EXPECT_EQ(a.speed.seconds, b.speed.seconds);
    EXPECT_EQ(a.speed.device_timer, b.speed.device_timer);
    EXPECT_EQ(a.speed.bytes, b.speed.bytes);
    EXPECT_EQ(a.speed.flops, b.speed.flops);
  }
  EXPECT_EQ(a.memory.device_bytes, b.memory.device_bytes);
  EXPECT_EQ(a.memory.host_bytes, b.memory.host_bytes);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.repro, b.repro);
  EXPECT_EQ(a.steps.first_out, b.steps.first_out);
  EXPECT_EQ(a.steps.loss, b.steps.loss);
  EXPECT_EQ(a.steps.reference, b.steps.reference);
  EXPECT_EQ(a.steps.bound, b.steps.bound);
  EXPECT_EQ(a.steps.amplification, b.steps.amplification);
}

}  // namespace gp
