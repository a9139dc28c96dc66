#!/usr/bin/env python3
"""gradparity hunt (docs/hunt.md) end to end:
  - on cpu, a fixed number of evaluations: exit 0, one row per op x dtype, the worst inputs
    written as a cases file; the same seed gives the same file; run --cases-file of it gives the
    margins hunt reported;
  - (with an OpenCL examples directory) an exp kernel wrong only for x in [88, 88.5] in f32: every
    catalog case of exp passes, hunt finds a FAIL at an input in the band and exits 1; the correct
    example kernel gives no finding;
  - usage errors are one line and exit 2.

Usage: check_hunt_cli.py GRADPARITY WORK_DIR [OPENCL_EXAMPLES_DIR]"""
import json
import os
import re
import sys

from cli_support import Checks, exp_wrong_in_band, fresh_work_dir

EXE, WORK = sys.argv[1:3]
OPENCL_EXAMPLES = sys.argv[3] if len(sys.argv) > 3 else None
CHECKS = Checks(EXE)
run, check, expect_usage_error, failures = CHECKS.run, CHECKS.check, CHECKS.expect_usage_error, CHECKS.failures

d = fresh_work_dir(WORK)


def hunt(backend, out, *extra):
    return run(["hunt", "-b", backend, "--no-progress", "--out", d(out), *extra])


def entries(name):
    with open(d(name)) as f:
        return json.load(f)["cases"]


# cpu, repeatable.
sel = ["--op", "exp,maximum", "--dtype", "f32", "--evaluations", "150"]
r = hunt("cpu", "found.json", *sel)
check(r.returncode == 0, f"cpu: exit {r.returncode} {r.stderr[-300:]!r}")
rows = [l for l in r.stdout.splitlines() if l.startswith(("exp f32", "maximum f32"))]
check(len(rows) == 2, f"cpu: a row per op x dtype ({rows})")
found = entries("found.json") if os.path.exists(d("found.json")) else []
check(len(found) == 2 and all(e["note"].startswith("hunt, seed 1: margin") for e in found),
      f"cpu: each group's worst inputs written ({len(found)} entries)")
r2 = hunt("cpu", "again.json", *sel)
with open(d("found.json")) as a, open(d("again.json")) as b:
    check(r2.returncode == 0 and a.read() == b.read(), "cpu: the same seed and evaluations give the same inputs")

# The found inputs as cases: the margins hunt reported.
r = run(["run", "-b", "cpu", "--cases-file", d("found.json"), "--filter", "file=", "--report-dir", d("pinned"),
         "--no-progress"])
check(r.returncode == 0, f"pinned: exit {r.returncode}")
if r.returncode == 0:
    with open(d("pinned", "parity.json")) as f:
        checks = json.load(f)["checks"]
    for e in found:
        reported = float(re.search(r"margin (\S+) of", e["note"]).group(1))
        op = e["case"].split("(")[0]
        mine = [c["margin"] for c in checks if c["op"] == op and c["backend"] == "cpu"
                and c["direction"] in ("forward", "backward")]
        check(mine and f"{max(mine):.3g}" == f"{reported:.3g}",
              f"pinned {op}: run's worst margin {max(mine) if mine else None} is hunt's {reported}")

# A kernel wrong only in a narrow band: found by hunt, missed by the catalog.
if OPENCL_EXAMPLES:
    kernels = exp_wrong_in_band(OPENCL_EXAMPLES, d("band-bug"))
    band = ["--op", "exp", "--dtype", "f32", "--evaluations", "1500"]
    r = run(["run", "-b", f"opencl-src:{kernels}:0", "--op", "exp", "--dtype", "f32", "--no-progress"])
    check(r.returncode == 0, f"band bug: the catalog's exp f32 cases pass (exit {r.returncode})")
    r = hunt(f"opencl-src:{kernels}:0", "band.json", *band)
    found = entries("band.json") if os.path.exists(d("band.json")) else []
    inside = [float.fromhex(v) for e in found for t in e["inputs"] for v in t["values"]
              if 88.0 <= float.fromhex(v) <= 88.5]
    check(r.returncode == 1 and "FAIL" in r.stdout and inside,
          f"band bug: hunt finds a FAIL with an input in [88, 88.5] (exit {r.returncode}, inside {inside[:3]})")
    r = hunt(f"opencl-src:{OPENCL_EXAMPLES}:0", "clean.json", *band)
    check(r.returncode == 0, f"band bug: the correct kernel gives no finding (exit {r.returncode} {r.stdout[-300:]!r})")

expect_usage_error(["hunt", "--op", "exp"], "--backend", "hunt without --backend")
r = run(["hunt", "-b", "cpu", "--op", "exp", "--budget", "1", "--evaluations", "10"])
check(r.returncode == 2 and "excludes" in r.stderr, f"--budget with --evaluations: exit {r.returncode}")
expect_usage_error(["hunt", "-b", "cpu", "--op", "nosuchop"], "unknown op 'nosuchop'", "an unknown op")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("all hunt checks passed")
