#!/usr/bin/env bash
# The test command: set-up if needed, build (warnings are errors), the style gate (ci/lint.sh),
# ctest (unit tests and the parity suite on every backend this machine has: cpu, OpenCL on PoCL,
# Vulkan on lavapipe under validation), then ThreadSanitizer on the threaded tests, a parity run
# on four workers and a stress run among them (ci/sanitizers.sh tsan-ci; GP_SKIP_TSAN=1 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh ci
bash ci/lint.sh
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$PWD/build/ci/pocl-cache}"
export GRADPARITY_CACHE_DIR="${GRADPARITY_CACHE_DIR:-$PWD/build/ci/gp-cache}"
ctest --preset ci -j "$(nproc)" "$@"
if [[ "${GP_SKIP_TSAN:-0}" != 1 ]]; then
  bash ci/sanitizers.sh tsan-ci
fi
