// ctest label "oracle": the long-double reference against its own formulas in 168-bit MPFR on
// every registered case at seed 1 (sampled sub-problems, harness/audit/oracle_sample.cpp). Fails when
// any element's |ref - oracle| exceeds kOracleRatioLimit of the tightest backend bound, naming the
// case, the direction and the element. `gradparity oracle --all` is the exhaustive version.
// The cases' bounds go through the reference cache the parity suite's entries use
// ($GRADPARITY_CACHE_DIR, which ci/test.sh sets), so each is computed once in a ctest run.
#include <cstdio>
#include <thread>

#include "cases/registry.hpp"
#include "core/memory_size.hpp"
#include "harness/audit/oracle_check.hpp"
#include "harness/check/reference_cache.hpp"
#include "reference/oracle.hpp"

int main() {
  using namespace gp;
  keep_large_blocks_in_heap();  // as the gradparity command
  std::vector<const Case*> cases;
  for (const Case& c : all_cases()) cases.push_back(&c);
  const int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ReferenceCache cache(reference_cache_dir(""), kDefaultReferenceCacheCap);
  OracleOptions opts;
  opts.cache = &cache;
  const std::vector<OracleCaseResult> results = run_oracle(cases, 1, opts, jobs);

  int failures = 0;
  for (const OracleCaseResult& r : results) {
    if (!r.error.empty()) {
      std::printf("FAIL %s: %s\n", r.case_id.c_str(), r.error.c_str());
      ++failures;
      continue;
    }
    for (const OracleDirection& d : r.directions) {
      if (d.worst_ratio <= kOracleRatioLimit) continue;
      std::printf("FAIL %s [%s] %s: ratio %.3g at index %lld (ref %.17g, oracle %.17g, bound %.3g)\n",
                  r.case_id.c_str(), r.op_label.c_str(), direction_label(d.direction, d.input).c_str(), d.worst_ratio,
                  static_cast<long long>(d.worst_index), d.reference, d.oracle, d.bound);
      ++failures;
    }
  }
  const OracleTotals t = oracle_totals(results);
  std::printf("%s: %lld cases, %lld points, worst ratio %.3e (%s %s index %lld), limit %g\n",
              ref::oracle_description().c_str(), static_cast<long long>(t.cases), static_cast<long long>(t.points),
              t.worst_ratio, t.worst_case.c_str(), t.worst_direction.c_str(), static_cast<long long>(t.worst_index),
              kOracleRatioLimit);
  return failures == 0 ? 0 : 1;
}
