#!/usr/bin/env python3
"""The report commands end to end on the cpu backend: shards merged equal the unsharded run,
merge / compare refuse bad input with one line and exit 2 without touching the output, compare
flags drift with exit 1, SIGINT / SIGTERM give an interrupted report and exit 130, a report folder
that cannot be written stops the run before it starts, --junit writes one testcase per check, and
an OpenCL backend named explicitly but without a driver gives exit 3. The selection includes the
gated composite models, so shards of models merge too. A call the catalog refuses is listed,
reproduced as the device's refusal and not dumped.

Usage: check_reports_cli.py GRADPARITY WORK_DIR"""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

from cli_support import Checks

EXE, WORK = sys.argv[1], sys.argv[2]
SEL = ["--backend", "cpu", "--op", "exp,add,softmax,sum,tanh,gated", "--dtype", "f32,f16", "--no-progress"]
CHECKS = Checks(EXE)
run, check, expect_usage_error, failures = CHECKS.run, CHECKS.check, CHECKS.expect_usage_error, CHECKS.failures


def checks_of(path):
    with open(os.path.join(path, "parity.json")) as f:
        doc = json.load(f)
    # Everything but the timing identifies a check's outcome.
    return sorted(json.dumps({k: v for k, v in c.items() if k != "time_ms"}, sort_keys=True) for c in doc["checks"])


def digest(folder):
    return {n: hashlib.sha256(open(os.path.join(folder, n), "rb").read()).hexdigest() for n in sorted(os.listdir(folder))}


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
d = lambda *p: os.path.join(WORK, *p)

# --- shards 1/3, 2/3, 3/3 merged == the unsharded run ----------------------------------------------
r = run(["run", *SEL, "--report-dir", d("whole"), "--junit", d("whole.xml")])
check(r.returncode in (0, 1) and os.path.exists(d("whole", "parity-details.md")), f"unsharded run: exit {r.returncode}")
for k in (1, 2, 3):
    r = run(["run", *SEL, "--shard", f"{k}/3", "--report-dir", d(f"s{k}")])
    check(r.returncode in (0, 1), f"shard {k}/3: exit {r.returncode}")
r = run(["merge", d("s1"), d("s2"), d("s3"), "--report-dir", d("merged")])
check(r.returncode in (0, 1) and not r.stderr.strip(), f"merge of 3 shards: exit {r.returncode} {r.stderr.strip()!r}")
check(checks_of(d("merged")) == checks_of(d("whole")), "merged shards hold exactly the unsharded run's checks and metrics")
for name in ("parity.md", "parity-details.md", "parity.html"):
    check(os.path.getsize(d("merged", name)) > 0, f"merge writes {name}")
r = run(["compare", d("whole"), d("merged"), "--max-margin-increase", "0"])
check(r.returncode == 0 and "0 appeared, 0 vanished" in r.stdout, f"compare unsharded vs merged: exit {r.returncode}")

# --- merge warnings and refusals ------------------------------------------------------------------
r = run(["merge", d("s1"), d("s3"), "--report-dir", d("partial")])
check(r.returncode in (0, 1) and "warning: shard 2/3 is missing" in r.stderr, "missing shard warns")
os.makedirs(d("out"))
with open(d("out", "parity.md"), "w") as f:
    f.write("keep me\n")
before = digest(d("out"))
expect_usage_error(["merge", d("s1"), d("s1"), "--report-dir", d("out")], "the shards overlap", "overlapping shards")
r = run(["run", *SEL, "--shard", "2/3", "--seed", "7", "--report-dir", d("s2seed7")])
expect_usage_error(["merge", d("s1"), d("s2seed7"), "--report-dir", d("out")], "seed 7", "different seeds")
bad = {"truncated": open(d("s1", "parity.json")).read()[:5000],
       "foreign": '{"name": "left-pad", "version": "1.3.0"}\n',
       "future": re.sub(r'"schema_version": "1\.\d+"', '"schema_version": "2.0"', open(d("s1", "parity.json")).read(), 1)}
for kind, text in bad.items():
    os.makedirs(d(kind))
    with open(d(kind, "parity.json"), "w") as f:
        f.write(text)
    expect_usage_error(["merge", d("s1"), d(kind), "--report-dir", d("out")], kind + "/parity.json", f"merge of a {kind} report")
    expect_usage_error(["compare", d("s1"), d(kind)], kind + "/parity.json", f"compare with a {kind} report")
expect_usage_error(["merge", d("s1"), d("s2"), "--report-dir", d("s1")], "would overwrite", "merge into a shard's folder")
check(digest(d("out")) == before, "nothing in --report-dir was overwritten by the refused merges")

# --- compare flags drift ------------------------------------------------------------------------
doc = json.load(open(d("whole", "parity.json")))
passing = [c for c in doc["checks"] if c["verdict"] == "PASS" and isinstance(c.get("margin"), (int, float))]
passing[0]["margin"] = passing[0]["margin"] + 0.8  # one kernel 0.8 of its error budget worse
os.makedirs(d("drift"))
json.dump(doc, open(d("drift", "parity.json"), "w"))
r = run(["compare", d("whole"), d("drift")])
check(r.returncode == 1 and "exceeded" in r.stdout and passing[0]["case_id"] in r.stdout,
      f"compare: a margin +0.8 exceeds the default limit: exit {r.returncode}")
r = run(["compare", d("whole"), d("drift"), "--max-margin-increase", "0.9"])
check(r.returncode == 0, f"compare: +0.8 within --max-margin-increase 0.9: exit {r.returncode}")

# --- JUnit ---------------------------------------------------------------------------------------
suites = ET.parse(d("whole.xml")).getroot()
cases = suites.findall(".//testcase")
check(len(cases) == len(doc["checks"]), f"junit: {len(cases)} testcases for {len(doc['checks'])} checks")

r = run(["stress", "--backend", "cpu", "--op", "exp", "--dtype", "f32", "--threads", "2", "--iterations", "2",
         "--no-progress", "--junit", d("stress.xml")])
modes = ET.parse(d("stress.xml")).getroot().findall(".//testcase") if os.path.exists(d("stress.xml")) else []
check(r.returncode == 0 and len(modes) == 3, f"stress --junit: exit {r.returncode}, {len(modes)} testcases for 3 modes")

# --- report folder that cannot be written: found before the run --------------------------------
open(d("plainfile"), "w").close()
t0 = time.time()
expect_usage_error(["run", *SEL, "--report-dir", d("plainfile", "sub")], "--report-dir", "report dir under a file")
check(time.time() - t0 < 5, "the unwritable report dir is found before the run")
expect_usage_error(["run", *SEL, "--junit", d("plainfile", "x.xml")], "--junit", "junit file under a file")

# --- SIGINT / SIGTERM ------------------------------------------------------------------------------
for sig in (signal.SIGINT, signal.SIGTERM):
    out = d(f"int{sig.value}")
    p = subprocess.Popen([EXE, "run", "--backend", "cpu", "--jobs", "1", "--report-dir", out], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(3)  # well into the run: the full cpu catalog takes far longer
    p.send_signal(sig)
    stdout, stderr = p.communicate(timeout=120)
    meta = json.load(open(os.path.join(out, "parity.json")))
    check(p.returncode == 130 and "INTERRUPTED" in stdout and meta["meta"]["interrupted"] is True
          and len(meta["checks"]) > 0 and "Interrupted" in open(os.path.join(out, "parity.md")).read(),
          f"signal {sig.name}: exit {p.returncode}, {len(meta['checks'])} checks kept, interrupted={meta['meta']['interrupted']}")

# --- a backend named explicitly but unavailable ----------------------------------------------------
listing = run(["list", "backends"]).stdout
if "opencl" in listing:
    os.makedirs(d("no-icd"))
    env = dict(os.environ, OCL_ICD_VENDORS=d("no-icd"))  # an ICD folder with no driver in it
    r = run(["run", "--backend", "opencl", "--op", "exp", "--no-progress"], env=env)
    check(r.returncode == 3 and "unavailable" in r.stderr, f"--backend opencl without a driver: exit {r.returncode} {r.stderr.strip()!r}")
    r = run(["run", "--backend", "opencl", "--op", "exp", "--no-progress", "--allow-unavailable"], env=env)
    check(r.returncode == 0 and "SKIP" in r.stdout, f"--allow-unavailable: exit {r.returncode}")
    r = run(["run", "--op", "exp", "--no-progress"], env=env)
    check(r.returncode == 0, f"default run without an OpenCL driver still skips: exit {r.returncode}")
else:
    print("skip the unavailable-backend cases: this build has no OpenCL")

# A call the catalog refuses (docs/invalid-calls.md): listed with its problem, reproduced as the
# device's refusal, never dumped.
invalid = "matmul(invalid,shape=2x3|4x5,out=2x5,dtype=f32)"
listing = run(["list", "cases"]).stdout
check(f"  {invalid}  [matmul: inner sizes differ: 2x3 x 4x5]" in listing, "list cases names a refused call and why")
r = run(["repro", invalid, "--backend", "cpu"])
check(r.returncode == 0 and "PASS" in r.stdout and "refused: invalid call: matmul: inner sizes differ" in r.stdout,
      f"repro of a refused call: exit {r.returncode} {r.stdout.strip()!r} {r.stderr.strip()!r}")
expect_usage_error(["dump", invalid, "--backend", "cpu", "--out", d("dump-invalid")],
                   "is a call the catalog refuses, which nothing computes", "dump of a refused call")
check(not os.path.exists(d("dump-invalid")), "dump of a refused call wrote nothing")

print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
