#!/usr/bin/env bash
# The main job: set-up if needed, build, `gradparity run` on every available backend, reports in
# reports-out/ (parity.md summary, parity-details.md, parity.html, parity.json, junit.xml). Extra
# arguments go to `gradparity run`. On GitHub Actions the summary goes to the job's summary page.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh ci gradparity  # the main job builds what it runs
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$PWD/build/ci/pocl-cache}"
out="${REPORT_DIR:-reports-out}"
status=0
./build/ci/cli/gradparity run --report-dir "$out" --junit "$out/junit.xml" --jobs "$(nproc)" "$@" || status=$?
echo "parity report: $out/parity.md (and parity.html)"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/parity.md" ]; then cat "$out/parity.md" >>"$GITHUB_STEP_SUMMARY"; fi
exit $status
