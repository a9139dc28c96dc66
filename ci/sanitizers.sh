#!/usr/bin/env bash
# ThreadSanitizer and AddressSanitizer jobs: build the `tsan` and `asan` presets (harness, all
# three backends, unit tests; no benchmarks), run the unit tests and a short stress run under
# each. Suppressions cover the drivers' libraries only (ci/tsan.supp, ci/asan.supp).
# Usage: ci/sanitizers.sh [tsan|asan|both|tsan-ci]   (default both).
# tsan-ci is the part that CI runs (ci/test.sh), sized for it: the TSan build of the CLI and the
# unit-test programs with threads, their threaded tests (every StressX test and each backend's
# queues-on-many-threads test) and the short stress run below.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
which="${1:-both}"
jobs="$(nproc)"

# A stress run short enough for CI, but with threads overlapping in every mode.
stress_args=(stress --backend cpu,opencl,vulkan --op exp,add,softmax,matmul,sum --dtype f32
             --filter '^(?!.*64x128)' --threads 4 --iterations 4 --mode-timeout 300 --no-progress)

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi

# run_preset PRESET [TARGET...]: everything, or only the named targets and their threaded tests.
run_preset() {
  local preset="$1"
  shift
  local t0=$SECONDS
  echo "== $preset: configure + build ${*:-(everything)}"
  cmake --preset "$preset" "${launcher[@]}"
  if [[ $# -gt 0 ]]; then
    cmake --build --preset "$preset" -j "$jobs" --target "$@"
    echo "== $preset: threaded unit tests"
    ctest --test-dir "build/$preset" -L unit -R '^Stress|Threads' -j "$jobs" --output-on-failure --timeout 900
  else
    cmake --build --preset "$preset" -j "$jobs"
    echo "== $preset: unit tests"
    ctest --test-dir "build/$preset" -L unit -j "$jobs" --output-on-failure --timeout 900
  fi
  echo "== $preset: stress"
  "build/$preset/cli/gradparity" "${stress_args[@]}" --report-dir "build/$preset/stress-report"
  echo "== $preset: done in $((SECONDS - t0)) s"
}

# halt_on_error: the first report fails the job; second_deadlock_stack: readable lock reports.
export TSAN_OPTIONS="suppressions=$root/ci/tsan.supp halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="detect_leaks=1 ${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$root/ci/asan.supp ${LSAN_OPTIONS:-}"

case "$which" in
  tsan) run_preset tsan ;;
  asan) run_preset asan ;;
  both) run_preset tsan; run_preset asan ;;
  tsan-ci) run_preset tsan gradparity gp_test_stress gp_test_cpu_backend gp_test_opencl_backend gp_test_vulkan_backend ;;
  *) echo "usage: $0 [tsan|asan|both|tsan-ci]" >&2; exit 2 ;;
esac
