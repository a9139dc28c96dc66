#!/usr/bin/env python3
"""ctest plugin/abi-versions: the host loads plugins of every ABI version it supports
(include/gradparity/plugin.h), and uses a version's optional members only where a plugin has them.
  - a plugin built for version 1 (its table ends before version 2's members) loads, says "ABI 1",
    and its exp checks PASS; `bench` times its calls and reports no arithmetic rate for it;
  - a version-2 plugin with an arithmetic probe says so, and `bench` times it (f32); its table ends
    before version 3's member, and it loads and runs;
  - a version-3 plugin declares the ops whose backward computes from the forward's value: the declaration
    is listed and named in each check's tolerance; an op name outside the catalog is refused in one
    line (exit 2) naming it, with no report written; its table ends before version 4's member;
  - a version-4 plugin declares math budgets: an exp 3 to 6 ULP off FAILs under the cpu profile
    undeclared and PASSes with its declared 8 ULP, listed, flagged as looser than the profile (in
    the HTML report too), and named in each check's tolerance; a tighter declaration is not flagged; an unknown function, a
    dtype other than f32/f64 and a negative budget are each one line, exit 2, no report;
  - a version-5 plugin that declares strided inputs is given the catalog's strided exp cases
    (docs/strided-inputs.md) and passes them; one built for version 4 SKIPs them saying it takes
    contiguous inputs only, and passes the rest; one that declares them but reads its buffers as
    contiguous FAILs each view;
  - a version past this host's is refused in one line naming both (plugin/bad-plugins).

Usage: check_abi_versions.py GRADPARITY PLUGIN_DIR WORK_DIR"""
import json
import os
import shutil
import subprocess
import sys

gradparity, plugins, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def gp(*args, declared=None, budgets=None, exp_error=None):
    env = dict(os.environ)
    for name, value in (("GP_TEST_BACKWARD_READS_OUTPUT", declared), ("GP_TEST_MATH_BUDGETS", budgets),
                        ("GP_TEST_EXP_RELATIVE_ERROR", exp_error)):
        env.pop(name, None)
        if value is not None:
            env[name] = value
    return subprocess.run([gradparity, *args], capture_output=True, text=True, env=env)


def bench(variant):
    path = os.path.join(plugins, variant + ".so")
    r = gp("bench", "--backend", f"plugin:{path}", "--op", "exp", "--dtype", "f32", "--filter", r"shape=127,",
           "--min-time", "0.001", "--repetitions", "2", "--processes", "1", "--json", os.path.join(work, variant + ".json"))
    doc = json.load(open(os.path.join(work, variant + ".json"))) if r.returncode == 0 else {}
    return r, doc


old = os.path.join(plugins, "abi_v1.so")
r = gp("list", "backends", "--backend", f"plugin:{old}")
check(r.returncode == 0 and "ABI 1," in r.stdout and "arithmetic probe" not in r.stdout,
      f"version 1: listed as ABI 1 without a probe: {r.returncode} {r.stdout[-300:]!r} {r.stderr!r}")
r = gp("run", "--backend", f"plugin:{old}", "--op", "exp", "--dtype", "f32", "--no-progress", "--report-dir",
       os.path.join(work, "v1-run"))
check(r.returncode == 0 and " 0 FAIL" in r.stdout and " PASS" in r.stdout, f"version 1: exp runs and passes: {r.returncode}")

r, doc = bench("abi_v1")
rows = doc.get("rows", [])
check(r.returncode == 0 and rows and all(row["outcome"] == "timed" for row in rows),
      f"version 1: bench times its calls: {r.returncode} {r.stderr[-300:]!r}")
limits = doc.get("limits", [])
check(limits and all(lim["arithmetic"]["outcome"] == "skipped" and not lim["arithmetic_gflop_per_s"] for lim in limits),
      f"version 1: no arithmetic rate {limits}")

v2 = os.path.join(plugins, "abi_v2.so")
r = gp("list", "backends", "--backend", f"plugin:{v2}", declared="exp")
check(r.returncode == 0 and "ABI 2," in r.stdout and "arithmetic probe" in r.stdout and "declared" not in r.stdout,
      f"version 2: listed as ABI 2 with a probe, no declaration read: {r.stdout[-300:]!r}")
r, doc = bench("abi_v2")
limits = doc.get("limits", [])
check(r.returncode == 0 and len(limits) == 1 and limits[0]["arithmetic"]["outcome"] == "timed" and
      limits[0]["arithmetic_gflop_per_s"] > 0, f"version 2: bench reads its arithmetic rate {limits}")
r = gp("run", "--backend", f"plugin:{v2}", "--op", "exp", "--dtype", "f32", "--no-progress", "--report-dir",
       os.path.join(work, "v2-run"))
check(r.returncode == 0 and " 0 FAIL" in r.stdout and " PASS" in r.stdout, f"version 2: exp runs and passes: {r.returncode}")

# The cases judged by bounds, which name the profile and the declarations: not exp at IEEE special
# values, whose exact sets (docs/special-values.md) an exp perturbed everywhere fails at exp(0) = 1,
# nor the strided ones, which a plugin before ABI 5 SKIPs (checked below).
BOUNDED = "^(?!.*(specials|view=))"

v3 = os.path.join(plugins, "abi_v3.so")
r = gp("list", "backends", "--backend", f"plugin:{v3}", declared="exp")
check(r.returncode == 0 and "ABI 3," in r.stdout and "backward computed from the forward's value (declared): exp"
      in r.stdout, f"version 3: listed as ABI 3 with its declaration: {r.stdout[-400:]!r}")
report = os.path.join(work, "v3-run")
r = gp("run", "--backend", f"plugin:{v3}", "--op", "exp", "--dtype", "f32", "--filter", BOUNDED, "--no-progress",
       "--report-dir", report, declared="exp")
checks = json.load(open(os.path.join(report, "parity.json")))["checks"] if r.returncode == 0 else []
own = [c for c in checks if c["backend"].startswith("plugin") and c["direction"] in ("forward", "backward")]
named = [c for c in own if "the backward of exp computes from the forward's value (declared)" in c.get("tolerance", "")]
backward = [c for c in own if c["direction"] == "backward"]
check(r.returncode == 0 and " 0 FAIL" in r.stdout and backward and len(named) == len(own) and all(
    c.get("formulation") == "computed from the forward's value (declared by the device)" for c in backward),
      f"version 3: exp passes; each check names the declaration, each backward its formulation: "
      f"{r.returncode} {len(named)} of {len(own)}")
bad = os.path.join(work, "v3-bad")
r = gp("run", "--backend", f"plugin:{v3}", "--op", "exp", "--no-progress", "--report-dir", bad,
       declared="exp, tanhh")
lines = r.stderr.strip().splitlines()
check(r.returncode == 2 and len(lines) == 1 and "'tanhh', which is not a catalog op" in lines[0] and
      not os.path.exists(bad), f"version 3: an unknown op name is one line, exit 2: {r.returncode} {r.stderr!r}")

r = gp("list", "backends", "--backend", f"plugin:{v3}", budgets="exp:f32:8:0:test promise")
check(r.returncode == 0 and "budgets" not in r.stdout, f"version 3: no budgets read: {r.stdout[-300:]!r}")

good = os.path.join(plugins, "good.so")
promise = "exp:f32:8:0:the test plugin's promise"
r = gp("list", "backends", "--backend", f"plugin:{good}", budgets=promise + ";log:f32:0.5:0:tight")
check(r.returncode == 0 and "ABI 5," in r.stdout and "math budgets declared by the device: exp f32 8 ULP (the test "
      "plugin's promise); log f32 0.5 ULP (tight)" in r.stdout and "LOOSER than the cpu profile (checks are judged by "
      "the promise): exp f32 8 ULP\n" in r.stdout, f"version 4: budgets listed, exp flagged, log not: {r.stdout[-500:]!r}")


def exp_run(name, budgets):
    report = os.path.join(work, name)
    r = gp("run", "--backend", f"plugin:{good}", "--op", "exp", "--dtype", "f32", "--filter", BOUNDED, "--no-progress",
           "--report-dir", report, budgets=budgets, exp_error="3e-7")
    checks = json.load(open(os.path.join(report, "parity.json")))["checks"] if os.path.exists(report) else []
    return r, [c for c in checks if c["backend"].startswith("plugin") and c["direction"] in ("forward", "backward")]


r, own = exp_run("v4-undeclared", None)
check(r.returncode == 1 and any(c["verdict"] == "FAIL" for c in own),
      f"version 4: exp 3 to 6 ULP off FAILs under the cpu profile: {r.returncode} {r.stdout[-200:]!r}")
r, own = exp_run("v4-declared", promise)
html = os.path.join(work, "v4-declared", "parity.html")
flagged = os.path.exists(html) and "LOOSER than the cpu profile" in open(html).read()
check(flagged, "version 4: the HTML report's device table flags the looser promise")
named = [c for c in own if "declared by the device: exp f32 8 ULP (the test plugin's promise)" in c.get("tolerance", "")]
check(r.returncode == 0 and own and all(c["verdict"] == "PASS" for c in own) and len(named) == len(own),
      f"version 4: PASSes under its promise, named in every tolerance: {r.returncode} {len(named)} of {len(own)}")
for name, budgets, says in [("v4-unknown", "expp:f32:1:0:x", "a math budget for 'expp', not one of div, sqrt"),
                            ("v4-dtype", "exp:f16:1:0:x", "budgets are per compute dtype"),
                            ("v4-negative", "exp:f32:-1:0:x", "both must be finite and at least 0")]:
    bad = os.path.join(work, name)
    r = gp("run", "--backend", f"plugin:{good}", "--op", "exp", "--no-progress", "--report-dir", bad, budgets=budgets)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2 and len(lines) == 1 and says in lines[0] and not os.path.exists(bad),
          f"version 4: {budgets} is one line, exit 2: {r.returncode} {r.stderr!r}")



def strided_run(variant, cases):
    report = os.path.join(work, variant + "-" + cases)
    r = gp("run", "--backend", f"plugin:{os.path.join(plugins, variant + '.so')}", "--op", "exp", "--dtype", "f32",
           "--filter", "view=" if cases == "strided" else "^exp\\((?!.*view=)", "--no-progress", "--report-dir", report)
    checks = json.load(open(os.path.join(report, "parity.json")))["checks"] if os.path.exists(report) else []
    own = [c for c in checks if c["backend"].startswith("plugin") and c["direction"] == "forward"]
    return r, own


def views(own):
    return sorted({c["case_id"].split("view=")[1].split(",")[0] for c in own})


VIEWS = ["expanded", "step2", "transposed"]
r, own = strided_run("good", "strided")
check(r.returncode == 0 and views(own) == VIEWS and all(c["verdict"] == "PASS" for c in own),
      f"version 5: strided exp passes in every view: {r.returncode} {[(c['case_id'], c['verdict']) for c in own]}")
r, own = strided_run("abi_v4", "strided")
says = "plugin test takes contiguous inputs only (ABI 4, before strided inputs)"
check(r.returncode == 0 and views(own) == VIEWS and all(c["verdict"] == "SKIP" and says in c["reason"] for c in own),
      f"version 4: strided cases SKIP: {r.returncode} {[(c['verdict'], c['reason']) for c in own]}")
r, own = strided_run("abi_v4", "contiguous")
check(r.returncode == 0 and own and all(c["verdict"] == "PASS" for c in own),
      f"version 4: the contiguous exp cases pass: {r.returncode} {len(own)}")
r, own = strided_run("ignores_strides", "strided")
check(r.returncode == 1 and views(own) == VIEWS and all(c["verdict"] == "FAIL" for c in own),
      f"version 5: reading strided buffers as contiguous FAILs each view: {r.returncode} "
      f"{[(c['case_id'], c['verdict']) for c in own]}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all ABI version checks passed")
