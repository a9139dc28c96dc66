#!/usr/bin/env python3
"""ctest plugin/expect: a known-failures baseline (run --expect FILE, --write-expect FILE).

The test plugin's exp, made wrong by a chosen relative error (GP_TEST_EXP_RELATIVE_ERROR), fails;
--write-expect records its failures; with that file the same run is green (exit 0; the reports
list the failures apart, JUnit as skipped); a worse kernel is red (its margin above the recorded
ceiling); a fixed kernel is red too (the expectations are stale); a malformed file is a usage
error (exit 2, one line naming the field) before anything runs.
Usage: check_expect.py GRADPARITY PLUGIN_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

gradparity, plugins, work = sys.argv[1:4]
plugin = "plugin:" + os.path.join(plugins, "good.so")
failures = []


def expect(cond, message):
    if not cond:
        failures.append(message)
        print("FAIL:", message)


def run(error, *args):
    env = dict(os.environ)
    env.pop("GP_TEST_EXP_RELATIVE_ERROR", None)
    if error:
        env["GP_TEST_EXP_RELATIVE_ERROR"] = error
    return subprocess.run([gradparity, "run", "--backend", plugin, "--op", "exp", "--dtype", "f32", "--no-progress",
                           *args], capture_output=True, text=True, env=env)


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
known = os.path.join(work, "known.json")

# A kernel 10^-5 off (about 170 ULP of f32): every exp check fails, and the file records them.
p = run("1e-5", "--write-expect", known)
expect(p.returncode == 1, f"write: exit {p.returncode}, expected 1")
entries = json.load(open(known))["expect"] if os.path.exists(known) else []
# A special-values FAIL (exp(0) = 1.00001 where 1 is expected, docs/special-values.md) has no
# finite margin to record: its entry expects the FAIL at any margin.
expect(len(entries) >= 10 and all(e["verdict"] == "FAIL" and e["backend"] == "plugin:*/good.so:0"
                                  and (e.get("max_margin", 0) > 0 or "(specials," in e["check"]) for e in entries),
       f"written: {entries[:3]}")

# The same failures, expected: green, and every report says which failures were expected.
report = os.path.join(work, "green")
junit = os.path.join(work, "green.xml")
p = run("1e-5", "--expect", known, "--report-dir", report, "--junit", junit)
expect(p.returncode == 0, f"expected failures: exit {p.returncode}, expected 0; {p.stdout[-800:]!r}")
expect(f"expected failures ({known}): {len(entries)} of this run's failures, 0 other(s), 0 stale" in p.stdout,
       f"expected failures: {p.stdout[-800:]!r}")
checks = json.load(open(os.path.join(report, "parity.json")))["checks"] if p.returncode == 0 else []
failed = [c for c in checks if c["verdict"] == "FAIL"]
expect(failed and all(c.get("expected") is True for c in failed), "parity.json: failures not marked expected")
md = open(os.path.join(report, "parity.md")).read() if p.returncode == 0 else ""
expect(f"## Expected failures ({len(entries)}, from --expect)" in md and "## Failures, errors and mistrusted "
       "checks (0)" in md, "parity.md: the expected failures are not listed apart")
html = open(os.path.join(report, "parity.html")).read() if p.returncode == 0 else ""
expect(f"Expected failures ({len(entries)}, from --expect)" in html, "parity.html: the expected failures are not apart")
xml = open(junit).read() if os.path.exists(junit) else ""
expect('failures="0"' in xml and "expected FAIL (--expect)" in xml, "junit: expected failures not skipped")

# A worse kernel (10^-3): its margins exceed the recorded ceilings.
p = run("1e-3", "--expect", known)
expect(p.returncode == 1 and "UNEXPECTED exp(" in p.stdout and "above the expectation's ceiling" in p.stdout,
       f"worse kernel: exit {p.returncode}; {p.stdout[-800:]!r}")

# A fixed kernel: every expectation is stale.
p = run("", "--expect", known)
expect(p.returncode == 1 and "STALE expectation exp(" in p.stdout and "pass now; remove it" in p.stdout,
       f"fixed kernel: exit {p.returncode}; {p.stdout[-800:]!r}")

# A malformed file: refused before the run, one line naming the field.
bad = os.path.join(work, "bad.json")
with open(bad, "w") as f:
    json.dump({"gradparity_expectations": 1, "expect": [{"backend": "*", "check": "*", "verdict": "PASS"}]}, f)
p = run("", "--expect", bad)
lines = p.stderr.strip().splitlines()
expect(p.returncode == 2 and len(lines) == 1 and "expect[0].verdict" in p.stderr and "PASS" in p.stderr,
       f"malformed file: exit {p.returncode}; {p.stderr!r}")

if failures:
    sys.exit(f"{len(failures)} expectation(s) failed")
print("expect: every case as documented")
