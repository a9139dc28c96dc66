#!/usr/bin/env python3
"""gradparity bench end to end on the cpu backend: bench.md and bench.json written, every selected
call timed over the repetitions, a model's rows too (in child processes); --check runs the parity
checks first and every row carries them; compare of a bench with itself finds no slowdown (exit 0),
a row made slower in the JSON is flagged (exit 1), a bench and a parity.json are refused (exit 2);
bad options are one line and exit 2 without writing, a named backend that is unavailable exit 3.
Times are never asserted.

Usage: check_bench_cli.py GRADPARITY WORK_DIR"""
import json
import os
import shutil
import sys

from cli_support import Checks

EXE, WORK = sys.argv[1], sys.argv[2]
SEL = ["--backend", "cpu", "--dtype", "f32", "--filter",
       r"^(exp\(shape=(7|127),|matmul\(shape=16x7\||adamw_step\(.*wd=0.01,step=10,shape=7,|mlp\(layers=1,batch=1,)"]
CHECKS = Checks(EXE)
run, check, expect_usage_error, failures = CHECKS.run, CHECKS.check, CHECKS.expect_usage_error, CHECKS.failures


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
d = lambda *p: os.path.join(WORK, *p)

# Two child processes of two repetitions each, their rows and the device's limits merged.
r = run(["bench", *SEL, "--min-time", "0.001", "--repetitions", "4", "--processes", "2", "--report-dir", d("one")])
check(r.returncode == 0, f"bench: exit {r.returncode} {r.stderr[-500:]!r}")
with open(d("one", "bench.json")) as f:
    doc = json.load(f)
rows = doc["rows"]
ids = sorted({row["case_id"] for row in rows})
check(len(ids) == 5, f"bench: {len(ids)} cases and models {ids}")
check(all(row["outcome"] == "timed" and len(row["repetition_seconds"]) == 4 for row in rows),
      "bench: every row timed, 4 repetitions each")
step_rows = [row for row in rows if row["op"] == "adamw_step"]
check(step_rows and all(row["direction"] == "forward" for row in step_rows), "bench: an optimizer step forward only")
check(any(row["flops"] > 0 for row in rows if row["op"] == "matmul"), "bench: matmul rows count their operations")
model_rows = [(row["subject"], row["direction"]) for row in rows if row["op"] == "mlp"]
check(model_rows == [("model", "forward"), ("model", "backward")], f"bench: the model's two rows {model_rows}")
limits = doc["limits"]
check(len(limits) == 1 and limits[0]["copy_gb_per_s"] > 0 and limits[0]["arithmetic_gflop_per_s"] > 0 and
      len(limits[0]["arithmetic"]["repetition_seconds"]) == 4, f"bench: the cpu's limits {limits}")
md = open(d("one", "bench.md")).read()
check("## `cpu`" in md and "GFLOP/s" in md, "bench.md: the cpu table")

r = run(["bench", *SEL, "--min-time", "0.001", "--repetitions", "2", "--processes", "1", "--no-probes", "--check",
         "--report-dir", d("checked")])
with open(d("checked", "bench.json")) as f:
    checked = json.load(f)
check(r.returncode == 0 and os.path.exists(d("checked", "parity.json")) and
      all(row["accuracy"] and row["accuracy"]["verdict"] == "PASS" for row in checked["rows"]),
      f"bench --check: exit {r.returncode}, parity.json and every row's accuracy")
expect_usage_error(["bench", *SEL, "--check", "--parity", d("checked")], "--check and --parity", "--check and --parity")

r = run(["bench", *SEL, "--min-time", "0.001", "--repetitions", "2", "--processes", "1", "--no-probes",
         "--json", d("bare.json")])
check(r.returncode == 0 and json.load(open(d("bare.json")))["limits"] == [], "bench --no-probes: no limits")

r = run(["compare", d("one"), d("one", "bench.json")])
check(r.returncode == 0 and "no slowdown" in r.stdout, f"compare with itself: exit {r.returncode} {r.stdout!r}")

slowed = json.loads(json.dumps(doc))
target = slowed["rows"][0]
# Every repetition above the slowest old one: the rank test's smallest p for 4 and 4 (1/70).
slowest = max(target["repetition_seconds"])
target["repetition_seconds"] = [slowest * (1.5 + 0.01 * i) for i in range(len(target["repetition_seconds"]))]
with open(d("slowed.json"), "w") as f:
    json.dump(slowed, f)
r = run(["compare", d("one", "bench.json"), d("slowed.json"), "--significance", "0.02"])
check(r.returncode == 1 and target["case_id"] in r.stdout and "1 slower rows" in r.stdout,
      f"compare flags the slowed row: exit {r.returncode} {r.stdout!r}")

r = run(["run", "--backend", "cpu", "--op", "exp", "--filter", "shape=7,", "--report-dir", d("parity"), "--no-progress"])
expect_usage_error(["compare", d("one"), d("parity")], "is a bench report", "bench vs parity.json")
expect_usage_error(["bench", *SEL, "--min-time", "0", "--json", d("never.json")], "--min-time", "--min-time 0")
expect_usage_error(["bench", *SEL, "--repetitions", "0"], "--repetitions", "--repetitions 0")
expect_usage_error(["bench", "--op", "nosuchop"], "nosuchop", "unknown op")
processes = [line for line in run(["bench", "--help"]).stdout.splitlines() if "--processes" in line]
check(processes and processes[0].rstrip().endswith("=5"), f"bench --processes defaults to 5 (docs/bench.md): {processes}")
expect_usage_error(["bench", "--preset", "library-report", "--op", "exp"], "--preset", "--preset with --op")
expect_usage_error(["bench", "--preset", "nosuchpreset"], "nosuchpreset", "unknown preset")
if "opencl" in run(["list", "backends"]).stdout:
    os.makedirs(d("no-icd"))
    env = dict(os.environ, OCL_ICD_VENDORS=d("no-icd"))  # an ICD folder with no driver in it
    r = run(["bench", "--backend", "opencl", *SEL[2:], "--json", d("never.json")], env=env)
    check(r.returncode == 3 and len(r.stderr.strip().splitlines()) == 1 and "unavailable" in r.stderr,
          f"--backend opencl without a driver: exit {r.returncode}, {r.stderr.strip()!r}")
check(not os.path.exists(d("never.json")), "a refused bench writes nothing")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
