#!/usr/bin/env python3
"""Cases from files (docs/cases-files.md) end to end:
  - a file's cases run on cpu with ids carrying file=HASH, reports naming the file in their repro
    lines; exp at 88.25 in f32 (its gradient overflows f32) PASSes, its finite-difference check
    SKIPs naming the overflow instead of failing on the infinity a correct forward gives;
  - next to an op's kinks the finite-difference steps stay on one side (hardswish at 3 +- 1e-7);
  - ids come from the values: the same values written otherwise give the same id (the case runs
    once), a changed value another; --shard splits file cases like any;
  - the values reach the devices as given (rounded to the dtype): dump of a file case writes them;
  - a catalog case's dump folder as a file case gives the catalog case's forward and backward
    checks at seed 1, metric for metric, at another seed;
  - malformed files are one line and exit 2 and nothing is written;
  - (with an OpenCL examples directory) an exp kernel wrong only for x in [88, 88.5] passes every
    catalog case of exp f32 and fails the file case at 88.25.

Usage: check_cases_file_cli.py GRADPARITY WORK_DIR [OPENCL_EXAMPLES_DIR]"""
import json
import os
import shutil
import struct
import sys

from cli_support import Checks, exp_wrong_in_band, fresh_work_dir

EXE, WORK = sys.argv[1:3]
OPENCL_EXAMPLES = sys.argv[3] if len(sys.argv) > 3 else None
CHECKS = Checks(EXE)
run, check, expect_usage_error, failures = CHECKS.run, CHECKS.check, CHECKS.expect_usage_error, CHECKS.failures

d = fresh_work_dir(WORK)

EXP = "exp(shape=7,dtype=f32)"
EXP_BF16 = "exp(shape=7,dtype=bf16)"


def write(name, doc):
    with open(d(name), "w") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))
    return d(name)


def checks_of(report):
    with open(d(report, "parity.json")) as f:
        return json.load(f)["checks"]


def read_npy(path):
    """The values of a little-endian '<f4' / '<f8' file as dump writes them."""
    with open(path, "rb") as f:
        data = f.read()
    header_len = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + header_len].decode()
    body = data[10 + header_len:]
    fmt = "f" if "<f4" in header else "d"
    return list(struct.unpack("<" + fmt * (len(body) // struct.calcsize(fmt)), body))


near_overflow = {"case": EXP, "note": "near overflow",
                 "inputs": [{"shape": [4], "values": [88.25, "0x1.6p+6", -0.0, 1e-3]}]}
with_cotangent = {"case": EXP_BF16, "inputs": [{"values": [1, 2, 3, 4, 5, 6, 7.1]}],
                  "cotangent": {"values": [1, 1, 1, 1, 1, 1, -1]}}
cases = write("cases.json", {"cases": [near_overflow, with_cotangent]})

# The file's cases run and report.
r = run(["run", "-b", "cpu", "--cases-file", cases, "--filter", "file=", "--report-dir", d("run"), "--no-progress"])
check(r.returncode == 0, f"run: exit {r.returncode} {r.stderr[-300:]!r}")
got = checks_of("run")
ids = sorted({c["case_id"] for c in got})
check(len(ids) == 2 and all("file=" in i for i in ids), f"run: two file cases, ids {ids}")
check(all(f"--cases-file '{cases}'" in c["repro"] for c in got), "run: repro lines name the file")
exp_id = next(i for i in ids if i.endswith("dtype=f32)"))
# The same file elsewhere: the reference's verdicts come from the reference cache, the repro lines
# name the new place.
moved = d("moved.json")
shutil.copy(cases, moved)
r = run(["run", "-b", "cpu", "--cases-file", moved, "--filter", "file=", "--report-dir", d("moved"), "--no-progress"])
check(r.returncode == 0 and all(f"--cases-file '{moved}'" in c["repro"] for c in checks_of("moved")),
      "moved file: repro lines name where it is now")
fd = [c for c in got if c["case_id"] == exp_id and c["direction"] == "numerical_backend"]
check(fd and fd[0]["verdict"] == "SKIP" and "overflow" in fd[0]["reason"],
      f"exp at 88.25: the finite-difference check SKIPs at the overflow ({[(c['verdict'], c['reason']) for c in fd]})")
check(all(c["verdict"] in ("PASS", "SKIP") for c in got), "run: every check PASSes or SKIPs")

# Values within 2e-7 of hardswish's kinks at -3 and 3: the reference's finite differences (steps of
# a few 1e-6 in long double) step only as far as half the distance to the kink, or they would
# straddle it and disagree with the one-sided gradient.
kinks = write("kinks.json", {"cases": [{"case": "hardswish(shape=7,dtype=f64)", "inputs": [
    {"values": [3.0000001, 2.9999998, -2.9999999, -3.0000002, 0.5, 1.5, -1]}]}]})
r = run(["run", "-b", "cpu", "--cases-file", kinks, "--filter", "file=", "--report-dir", d("kinks"), "--no-progress"])
ref = [c for c in checks_of("kinks") if c["direction"] == "numerical_reference"]
check(r.returncode == 0 and ref and all(c["verdict"] == "PASS" for c in ref),
      f"next to kinks: the reference's finite differences pass ({[(c['verdict'], c['reason'][:60]) for c in ref]})")

# Ids from the values: the same values written otherwise, and a changed one.
same = dict(near_overflow, inputs=[{"shape": [4], "values": ["0x1.61p+6", 88, "-0", 0.001]}], note="the same bytes")
changed = dict(near_overflow, inputs=[{"shape": [4], "values": [88.25, 88, 0.0, 0.001]}])  # +0 for -0
r = run(["run", "-b", "cpu", "--cases-file", cases, "--cases-file", write("same.json", {"cases": [same, changed]}),
         "--filter", "file=", "--op", "exp", "--dtype", "f32", "--report-dir", d("ids"), "--no-progress"])
ids2 = sorted({c["case_id"] for c in checks_of("ids")}) if r.returncode == 0 else []
check(len(ids2) == 2 and exp_id in ids2, f"ids: the same values share {exp_id}, -0 -> +0 makes another: {ids2}")
shard_ids = []
for k in (1, 2):
    r = run(["run", "-b", "cpu", "--cases-file", cases, "--cases-file", d("same.json"), "--filter", "file=",
             "--shard", f"{k}/2", "--report-dir", d(f"shard{k}"), "--no-progress"])
    shard_ids += sorted({c["case_id"] for c in checks_of(f"shard{k}")}) if r.returncode == 0 else []
check(sorted(shard_ids) == sorted(set(ids) | set(ids2)), f"shards: each file case in one shard ({shard_ids})")

# The values reach the device as given, rounded to the dtype.
bf16_id = next(i for i in ids if i.endswith("dtype=bf16)"))
r = run(["dump", bf16_id, "-b", "cpu", "--cases-file", cases, "--out", d("dumped")])
values = read_npy(d("dumped", "input0.npy")) if r.returncode == 0 else []
check(values == [1, 2, 3, 4, 5, 6, 7.09375], f"dump: the bf16 inputs as given, 7.1 rounded to 7.09375: {values}")
cot = read_npy(d("dumped", "cotangent.npy")) if r.returncode == 0 else []
check(cot == [1, 1, 1, 1, 1, 1, -1], f"dump: the given cotangent {cot}")

# A catalog case's dump as a file case: the same forward and backward checks at another seed.
LN = "layer_norm(eps=1e-05,shape=7|7|7,dtype=f32)"
r = run(["dump", LN, "-b", "cpu", "--out", d("ln-dump")])
check(r.returncode == 0, f"dump {LN}: exit {r.returncode}")
from_dump = write("from-dump.json", {"cases": [{"case": LN, "dump": "ln-dump"}]})
r1 = run(["run", "-b", "cpu", "--filter", "^" + LN.replace("(", r"\(").replace(")", r"\)").replace("|", r"\|") + "$",
          "--report-dir", d("ln-catalog"), "--no-progress"])
r2 = run(["run", "-b", "cpu", "--cases-file", from_dump, "--filter", "file=", "--seed", "7",
          "--report-dir", d("ln-file"), "--no-progress"])


def compared(report):
    return {(c["direction"], c.get("input")): (c["verdict"], c["max_abs"], c["bound"], c["margin"])
            for c in checks_of(report) if c["backend"] == "cpu" and c["direction"] in ("forward", "backward")}


a, b = (compared("ln-catalog"), compared("ln-file")) if r1.returncode == 0 and r2.returncode == 0 else ({}, {1: 1})
check(a and a == b, f"dump -> file case: forward and backward as the catalog case's at seed 1 ({len(a)} checks)")

# Malformed files: one line, exit 2, nothing written.
bad = {
    "not JSON": ("{", "not JSON"),
    "no cases array": ({"case": EXP}, "'cases' array"),
    "unknown key": ({"cases": [dict(near_overflow, inptus=[])]}, "unknown key 'inptus'"),
    "unknown case": ({"cases": [dict(near_overflow, case="exp(shape=8,dtype=f32)")]}, "no catalog case"),
    "value count": ({"cases": [dict(near_overflow, inputs=[{"shape": [3], "values": [1, 2]}])]}, "2 values for shape"),
    "not a number": ({"cases": [dict(near_overflow, inputs=[{"values": [1, "one", 2, 3, 4, 5, 6]}])]},
                     "element 1 is \"one\""),
    "non-finite": ({"cases": [dict(near_overflow, inputs=[{"values": [1, "inf", 2, 3, 4, 5, 6]}])]},
                   "element 1 is inf"),
    "shapes the op refuses": ({"cases": [{"case": "add(shape=7|7,dtype=f32)",
                                          "inputs": [{"shape": [3], "values": [1, 2, 3]},
                                                     {"shape": [2], "values": [1, 2]}]}]}, "do not broadcast"),
    "index out of range": ({"cases": [{"case": "cross_entropy(shape=1x5|1,dtype=f32)",
                                       "inputs": [{"values": [1, 2, 3, 4, 5]}, {"values": [5]}]}]},
                           "index 5 at element 0 is outside [0, 5)"),
    "missing npy": ({"cases": [dict(near_overflow, inputs=[{"npy": "nowhere.npy"}])]}, "nowhere.npy"),
    "a large case": ({"cases": [dict(near_overflow, case="matmul(large,shape=1000x1000|1000x1000,dtype=f32)")]},
                     "is a large case"),
    "cotangent shape": ({"cases": [dict(near_overflow, cotangent={"shape": [3], "values": [1, 2, 3]})]},
                        "the output f32 of shape 4"),
    "negative dimension": ({"cases": [dict(near_overflow, inputs=[{"shape": [-1], "values": []}])]},
                           "has a negative dimension"),
    # core/README.md, "Empty tensors": a mean over no element has no value, and the shape rule says so
    "mean over no element": ({"cases": [{"case": "mean(axis=0,keepdim=0,shape=7,dtype=f32)",
                                         "inputs": [{"shape": [0], "values": []}]}]}, "has no value over no element"),
}
for name, (doc, needle) in bad.items():
    path = write("bad.json", doc)
    expect_usage_error(["run", "-b", "cpu", "--cases-file", path, "--report-dir", d("bad-report")], needle,
                       f"malformed file, {name}")
    check(not os.path.exists(d("bad-report")), f"malformed file, {name}: no report written")
expect_usage_error(["run", "-b", "cpu", "--cases-file", d("absent.json")], "absent.json", "a file that does not exist")

# A captured tensor may be empty (a batch of none): the file case runs like the catalog's empty cases,
# the broadcast input's gradient the zeros of a sum over no row.
empty = write("empty.json", {"cases": [{"case": "add(shape=7|7,dtype=f32)",
                                         "inputs": [{"shape": [0, 3], "values": []},
                                                    {"shape": [3], "values": [1, 2, 3]}]}]})
r = run(["run", "-b", "cpu", "--cases-file", empty, "--filter", "file=", "--report-dir", d("empty"), "--no-progress"])
got = checks_of("empty") if r.returncode == 0 else []
empty_checks = {(c["direction"], c.get("input")): (c["verdict"], c["elements"]) for c in got
            if c["backend"] == "cpu" and c["direction"] in ("forward", "backward")}
check(empty_checks == {("forward", None): ("PASS", 0), ("backward", 0): ("PASS", 0), ("backward", 1): ("PASS", 3)},
      f"an empty file case: exit {r.returncode}, {empty_checks} {r.stderr[-300:]!r}")

# A kernel wrong only in a narrow band of arguments: the catalog's samples miss it, the file's hit it.
if OPENCL_EXAMPLES:
    kernels = exp_wrong_in_band(OPENCL_EXAMPLES, d("band-bug"))
    backend = f"opencl-src:{kernels}:0"
    r = run(["run", "-b", backend, "--op", "exp", "--dtype", "f32", "--report-dir", d("band-catalog"), "--no-progress"])
    forward = [c for c in checks_of("band-catalog") if c["direction"] == "forward" and c["backend"] != "reference"] \
        if os.path.exists(d("band-catalog", "parity.json")) else []
    check(r.returncode == 0 and forward and all(c["verdict"] == "PASS" for c in forward),
          f"band bug: the {len(forward)} catalog cases of exp f32 pass (exit {r.returncode})")
    r = run(["run", "-b", backend, "--cases-file", cases, "--op", "exp", "--dtype", "f32", "--filter", "file=",
             "--report-dir", d("band-file"), "--no-progress"])
    fails = [c for c in checks_of("band-file") if c["verdict"] == "FAIL"] \
        if os.path.exists(d("band-file", "parity.json")) else []
    check(r.returncode == 1 and any(c["direction"] == "forward" for c in fails),
          f"band bug: the file case at 88.25 fails its forward (exit {r.returncode}, "
          f"{[(c['direction'], c['verdict']) for c in fails]})")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("all cases-file checks passed")
