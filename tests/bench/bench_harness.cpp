// Harness costs: reference evaluations spent per numerical check, and the wall time of the
// full CPU parity run. Run: build/ci/tests/bench/bench_harness [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <thread>

#include "backends/registry.hpp"
#include "cases/registry.hpp"
#include "harness/run/runner.hpp"

namespace {

// Counters: reference forward evaluations per differentiable input, averaged over every case
// of the registry, split by the mode the check used (random probes or the full Jacobian).
void BM_ReferenceEvalsPerInput(benchmark::State& state) {
  double probe_evals = 0, jacobian_evals = 0, probe_inputs = 0, jacobian_inputs = 0;
  for (auto _ : state) {
    probe_evals = jacobian_evals = probe_inputs = jacobian_inputs = 0;
    gp::NumericalOptions opts;
    for (const auto& c : gp::all_cases()) {
      if (gp::op_is_straight_through(c.decl.op)) continue;
      gp::ReferenceData data = gp::prepare_reference(c, 1);
      gp::EvalCounter counter;
      gp::check_reference_numerics(c, data, 1, opts, &counter);
      double inputs = 0;
      bool jacobian = false;
      for (int k = 0; k < static_cast<int>(data.inputs.size()); ++k) {
        if (!gp::input_is_differentiable(c.decl.op, k)) continue;
        inputs += 1;
        jacobian = jacobian || (data.inputs[static_cast<std::size_t>(k)].numel() <= opts.jacobian_max_inputs &&
                                data.output.numel() <= opts.jacobian_max_outputs);
      }
      (jacobian ? jacobian_evals : probe_evals) += static_cast<double>(counter.reference_evals);
      (jacobian ? jacobian_inputs : probe_inputs) += inputs;
    }
  }
  state.counters["evals_per_input_probes"] = probe_inputs ? probe_evals / probe_inputs : 0;
  state.counters["evals_per_input_jacobian"] = jacobian_inputs ? jacobian_evals / jacobian_inputs : 0;
  state.counters["evals_per_input_all"] =
      (probe_evals + jacobian_evals) / std::max(1.0, probe_inputs + jacobian_inputs);
  state.counters["inputs_probes"] = probe_inputs;
  state.counters["inputs_jacobian"] = jacobian_inputs;
}
BENCHMARK(BM_ReferenceEvalsPerInput)->Iterations(1)->Unit(benchmark::kSecond);

// The whole CPU parity run (every case, reference numerics included), with one worker per core.
void BM_FullCpuRun(benchmark::State& state) {
  auto devices = gp::select_devices({"cpu"}, {});
  std::vector<const gp::Subject*> cases;
  for (const auto& s : gp::all_subjects())
    if (s->kind() == gp::SubjectKind::primitive) cases.push_back(s.get());
  gp::RunOptions opts;
  opts.jobs = static_cast<int>(state.range(0));
  std::size_t checks = 0;
  for (auto _ : state) checks = gp::run_parity(cases, devices, opts).checks.size();
  state.counters["cases"] = static_cast<double>(cases.size());
  state.counters["checks"] = static_cast<double>(checks);
}
BENCHMARK(BM_FullCpuRun)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
