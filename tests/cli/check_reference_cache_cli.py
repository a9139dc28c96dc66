#!/usr/bin/env python3
"""The reference cache end to end on the cpu backend: a warm run reads what it needs of what the
cold run computed (the bounds and the reference's own verdicts; not the bounds the reference's
checks computed on the way to their verdicts) and gives the same checks; a damaged entry is recomputed with one line and the same
checks; --no-reference-cache computes everything and says nothing of a cache. The selection holds
primitive cases, a model and a training run.

Usage: check_reference_cache_cli.py GRADPARITY WORK_DIR"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

EXE, WORK = sys.argv[1], sys.argv[2]
SEL = ["--backend", "cpu", "--op", "exp,softmax,mlp,train", "--dtype", "f32", "--no-progress", "-j", "2",
       "--filter", r"^(exp|softmax)\(|^mlp\(layers=1,batch=7|^train\(model=mlp,opt=sgd"]
CACHE = os.path.join(WORK, "cache")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(name, *extra, sel=SEL, cache=CACHE):
    r = subprocess.run([EXE, "run", *sel, "--cache-dir", cache, "--report-dir", os.path.join(WORK, name), *extra],
                       capture_output=True, text=True)
    with open(os.path.join(WORK, name, "parity.json")) as f:
        checks = sorted(json.dumps({k: v for k, v in c.items() if k != "time_ms"}, sort_keys=True)
                        for c in json.load(f)["checks"])
    m = re.search(r"reference cache: (\d+) entries read, (\d+) computed", r.stdout)
    counts = (int(m.group(1)), int(m.group(2))) if m else None
    return r, checks, counts


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

r, cold, counts = run("cold")
check(r.returncode == 0 and counts is not None and counts[0] == 0 and counts[1] > 0,
      f"cold run computes every entry: exit {r.returncode}, counts {counts}")
computed = counts[1] if counts else 0
check(any('"subject": "model"' in c for c in cold) and any('"subject": "training"' in c for c in cold),
      "the selection has a model and a training run")

r, warm, counts = run("warm")
read = counts[0] if counts else 0
check(counts is not None and 0 < read <= computed and counts[1] == 0,
      f"warm run reads and computes nothing: {counts}, cold computed {computed}")
check(warm == cold, "warm run gives the cold run's checks")
check(r.stderr.strip() == "", f"warm run says nothing on stderr: {r.stderr.strip()!r}")

# The entry written last: a device's bounds or a verdict, which every warm run reads.
entry = max(glob.glob(os.path.join(CACHE, "reference", "*", "*.bin")), key=lambda p: os.stat(p).st_mtime_ns)
with open(entry, "r+b") as f:
    f.truncate(os.path.getsize(entry) // 2)
r, damaged, counts = run("damaged")
lines = [l for l in r.stderr.splitlines() if "reference cache" in l]
check(len(lines) == 1 and "truncated" in lines[0] and "recomputed" in lines[0] and os.path.basename(entry) in lines[0],
      f"a truncated entry: one line naming it: {lines}")
check(counts == (read - 1, 1), f"a truncated entry is the one entry computed: {counts}")
check(damaged == cold, "a truncated entry gives the same checks")

# Models and training runs keep their bounds too (the graph's, the nodes', the trajectory's).
composites = SEL[:-1] + [r"^mlp\(layers=1,batch=7|^train\(model=mlp,opt=sgd"]
_, _, first = run("composites-cold", sel=composites, cache=os.path.join(WORK, "composite-cache"))
_, _, again = run("composites-warm", sel=composites, cache=os.path.join(WORK, "composite-cache"))
check(first is not None and first[1] > 0 and again is not None and 0 < again[0] <= first[1] and again[1] == 0,
      f"a model and a training run read their bounds back: cold {first}, warm {again}")

r, uncached, counts = run("uncached", "--no-reference-cache")
check(counts is None and "reference cache" not in r.stdout + r.stderr, "--no-reference-cache: no cache used")
check(uncached == cold, "--no-reference-cache gives the same checks")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
