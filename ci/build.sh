#!/usr/bin/env bash
# Configures and builds with a CMake preset (default: ci, which requires OpenCL and Vulkan).
# Targets after the preset build only those and what they need (ci/parity.sh: gradparity);
# none builds everything, the test programs and benchmarks included (ci/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"
shift || true
bash ci/setup.sh
cmake --preset "$preset"
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}"
