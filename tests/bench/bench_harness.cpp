// Harness costs: reference evaluations spent per numerical check, the wall time of the full CPU
// parity run, the drawing of a large case's inputs, and a Tracked dot product (the bounds' inner
// loop, where a cold model entry spends about half its time). Run: build/ci/tests/bench/bench_harness
// [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cmath>
#include <thread>
#include <vector>

#include "backends/registry.hpp"
#include "cases/case.hpp"
#include "cases/registry.hpp"
#include "harness/check/inputs.hpp"
#include "harness/run/runner.hpp"
#include "reference/sum.hpp"
#include "reference/tracked.hpp"

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

// The inputs and cotangent of the large tier's exp over 10^8 elements, in f32 (its own dtype) and
// in bf16 (the index case's dtype, past 2^31 elements there): the index cases' preparation was
// the long pole of the tier's warm run (docs/scale.md). Counter: nanoseconds per element drawn.
void BM_DrawLargeInputs(benchmark::State& state) {
  const gp::Case* base = gp::find_case("exp(large,shape=100000000,dtype=f32)");
  if (!base) {
    state.SkipWithError("the large tier has no exp over 10^8 elements");
    return;
  }
  gp::Case c = *base;
  c.dtype = static_cast<gp::DType>(state.range(0));
  for (gp::DType& t : c.call.input_dtypes) t = c.dtype;
  std::int64_t elements = 0;
  for (auto _ : state) {
    std::vector<gp::HostTensor> inputs = gp::make_inputs(c, 1);
    gp::HostTensor dy = gp::make_cotangent(c, 1);
    elements += inputs.at(0).numel() + dy.numel();
    benchmark::DoNotOptimize(dy.data());
  }
  state.SetLabel(std::string(gp::dtype_name(c.dtype)));
  state.counters["ns_per_element"] =
      benchmark::Counter(static_cast<double>(elements), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_DrawLargeInputs)
    ->Arg(static_cast<int>(gp::DType::f32))
    ->Arg(static_cast<int>(gp::DType::bf16))
    ->Iterations(2)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

// Sum<Tracked> over products of 256 terms in f32, as a Tracked matmul's element accumulates them:
// operands with errors of their own (a model's activations), and exact ones (a primitive's inputs).
// Counter: nanoseconds per term.
void BM_TrackedDotProduct(benchmark::State& state) {
  const bool with_errors = state.range(0) != 0;
  const gp::ref::TrackingScope scope(gp::ref::context_for(gp::DType::f32, nullptr, false));
  constexpr int kTerms = 256;
  std::vector<gp::ref::Tracked> a(kTerms), b(kTerms);
  for (int k = 0; k < kTerms; ++k) {
    a[k] = gp::ref::Tracked(std::ldexp(static_cast<float>((k * 7919) % 1000 - 500), -9));
    b[k] = gp::ref::Tracked(std::ldexp(static_cast<float>((k * 104729) % 997 - 498), -7));
    if (with_errors) a[k].e.det = std::fabs(a[k].v) * 0x1p-24L;
  }
  std::int64_t terms = 0;
  for (auto _ : state) {
    gp::ref::Sum<gp::ref::Tracked> sum;
    for (int k = 0; k < kTerms; ++k) sum.add_product(a[k], b[k]);
    gp::ref::Tracked r = sum.result();
    benchmark::DoNotOptimize(r);
    terms += kTerms;
  }
  state.SetLabel(with_errors ? "operands with errors" : "exact operands");
  state.counters["ns_per_term"] =
      benchmark::Counter(static_cast<double>(terms), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TrackedDotProduct)->Arg(0)->Arg(1);

}  // namespace

BENCHMARK_MAIN();
