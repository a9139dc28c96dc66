#!/usr/bin/env bash
# The main job: set-up if needed, build, `gradparity run` on every available backend, reports in
# reports-out/ (parity.json, parity.md). Extra arguments go to `gradparity run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh ci
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$PWD/build/ci/pocl-cache}"
out="${REPORT_DIR:-reports-out}"
status=0
./build/ci/cli/gradparity run --report-dir "$out" --jobs "$(nproc)" "$@" || status=$?
echo "parity report: $out/parity.md"
exit $status
