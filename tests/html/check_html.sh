#!/usr/bin/env bash
# parity.html in a real browser: headless Chromium loads the page from disk with networking
# features off, and the test checks that the inline script ran to its end (no script error
# stops it), that the console logged no error, and that the heatmap is in the rendered DOM with
# its cells. With SCREENSHOT=FILE.png it also saves what the browser drew.
# Usage: check_html.sh CHROMIUM REPORT.html
set -euo pipefail
chromium=$1
html=$(realpath "$2")
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$profile" --enable-logging=stderr --v=0)

dom=$("$chromium" "${flags[@]}" --dump-dom "file://$html" 2>"$profile/log") || {
  echo "FAIL: chromium exited with $?"; cat "$profile/log"; exit 1; }
fail=0
grep -q 'data-gp-ready="1"' <<<"$dom" || { echo "FAIL: the page's script did not run to its end"; fail=1; }
grep -q '<svg id="heatmap"' <<<"$dom" || { echo "FAIL: no heatmap in the rendered page"; fail=1; }
cells=$(grep -o '<rect class="cell"' <<<"$dom" | wc -l)
[ "$cells" -gt 0 ] || { echo "FAIL: the heatmap has no cells"; fail=1; }
# Console messages go to the log as CONSOLE(...) lines; uncaught exceptions say "Uncaught".
if grep -E 'Uncaught|CONSOLE.*(Error|error)|Refused to|net::ERR' "$profile/log"; then
  echo "FAIL: the browser logged errors above"; fail=1
fi
if [ -n "${SCREENSHOT:-}" ]; then
  "$chromium" "${flags[@]}" --window-size=1400,1800 --screenshot="$SCREENSHOT" "file://$html" 2>/dev/null
  [ -s "$SCREENSHOT" ] || { echo "FAIL: no screenshot"; fail=1; }
fi
[ $fail -eq 0 ] && echo "ok: parity.html renders in $("$chromium" --version 2>/dev/null | head -1): heatmap with $cells cells, no errors"
exit $fail
