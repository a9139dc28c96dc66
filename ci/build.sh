#!/usr/bin/env bash
# Configures and builds with a CMake preset (default: ci, which requires OpenCL and Vulkan).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"
bash ci/setup.sh
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
