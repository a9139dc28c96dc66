"""What the plugin tests that use the installed package share: gradparity installed into a
temporary prefix, a plugin project built against it from outside the tree, and the verdicts of a
run of that plugin (check_example.py, check_clblast.py, check_onednn.py, check_libtorch.py)."""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, **kw)


def check(cond, message):
    if not cond:
        sys.exit("FAIL: " + message)


def installed_paths_are_relative(prefix, forbidden):
    for root, _, files in os.walk(prefix):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                data = f.read()
            for bad in forbidden:
                check(bad.encode() not in data, f"{path} names the build machine's {bad}")


def install(build_dir, source_dir, work):
    """A fresh WORK with gradparity installed into WORK/staging and moved to WORK/prefix (the
    package must be relocatable); returns the prefix."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    staging, prefix = os.path.join(work, "staging"), os.path.join(work, "prefix")
    run(["cmake", "--install", build_dir, "--prefix", staging], stdout=subprocess.DEVNULL)
    os.rename(staging, prefix)
    installed_paths_are_relative(prefix, [os.path.realpath(source_dir), os.path.realpath(build_dir), staging])
    return prefix


def build_project(source, build, prefix, generator):
    """Configures and builds the CMake project SOURCE into BUILD against the installed prefix."""
    run(["cmake", "-S", source, "-B", build, "-G", generator, f"-DCMAKE_PREFIX_PATH={prefix}"], cwd=os.path.dirname(build))
    run(["cmake", "--build", build], cwd=os.path.dirname(build))


def installed_plugin(project, library):
    """The tests' common start: their arguments parsed, gradparity installed into --work, the
    plugin PROJECT (a path under the source tree) built against it. Returns the arguments, the
    prefix and the plugin library's path."""
    ap = argparse.ArgumentParser()
    for arg in ("--build-dir", "--source-dir", "--work", "--generator"):
        ap.add_argument(arg, required=True)
    a = ap.parse_args()
    prefix = install(a.build_dir, a.source_dir, a.work)
    build = os.path.join(a.work, os.path.basename(project))
    build_project(os.path.join(a.source_dir, project), build, prefix, a.generator)
    return a, prefix, os.path.join(build, library)


def list_backends(gradparity, plugin):
    return run([gradparity, "list", "backends", "--backend", "plugin:" + plugin], capture_output=True,
               text=True).stdout


def run_plugin(gradparity, plugin, ops, report, extra=()):
    """`gradparity run` of the plugin on OPS; returns its exit code and the plugin's checks. In this
    process and without the reference's own checks: the plugin's checks are the same either way,
    the reference's are the parity suite's (ctest reference/...), isolation is plugin/bad-plugins',
    and together they were two thirds of plugin/libtorch's run (13.3 s against 4.4 s, 2-core)."""
    # Not check=True: a failing check is named from parity.json by check_verdicts.
    rc = subprocess.run([gradparity, "run", "--backend", "plugin:" + plugin, "--op", ",".join(ops), "--jobs", "2",
                         "--no-isolate", "--no-reference-checks", "--no-progress", "--report-dir", report, *extra],
                        stdout=subprocess.DEVNULL).returncode
    checks = [c for c in json.load(open(os.path.join(report, "parity.json")))["checks"]
              if c["backend"].startswith("plugin:")]
    return rc, checks


def check_refusal(c, name):
    """For a check of a call the catalog refuses (direction refusal, docs/invalid-calls.md): that
    the plugin refused it too. True when `c` was such a check."""
    if c["direction"] != "refusal":
        return False
    check(c["verdict"] == "PASS" and c["reason"].startswith(f"refused: not implemented by plugin {name}"),
          f"{c['case_id']} {c['direction']}: {c['verdict']} {c['reason']}, expected the plugin to refuse it")
    return True


def check_bench_probes(gradparity, plugin, work):
    """`gradparity bench` of the plugin's f32 matmul: its copy probe (a reshape) and arithmetic
    probe both read, every GEMM row with a roofline fraction. Returns the arithmetic rate."""
    bench_json = os.path.join(work, "bench.json")
    command = [gradparity, "bench", "--backend", f"plugin:{plugin}", "--op", "matmul", "--dtype", "f32", "--filter",
               r"shape=16x7\|", "--min-time", "0.001", "--repetitions", "2", "--processes", "1", "--json", bench_json]
    r = subprocess.run(command, capture_output=True, text=True)
    doc = json.load(open(bench_json)) if r.returncode == 0 else {}
    limits, rows = doc.get("limits", []), doc.get("rows", [])
    check(len(limits) == 1 and limits[0]["copy_gb_per_s"] > 0 and limits[0]["arithmetic"]["outcome"] == "timed" and
          limits[0]["arithmetic_gflop_per_s"] > 0,
          f"bench: the plugin's probes (exit {r.returncode}): {limits} {r.stderr[-300:]}")
    check(rows and all(row["outcome"] == "timed" and row["roofline_fraction"] > 0 for row in rows),
          f"bench: a roofline fraction for every GEMM row: {rows}")
    return limits[0]["arithmetic_gflop_per_s"]


def check_verdicts(checks, name, implemented_ops, dtypes):
    """Every check of an implemented op and dtype is PASS or SKIP, and each op, dtype and direction
    has a PASS; every other check SKIPs as not implemented by plugin NAME. A call the catalog refuses
    (direction refusal, docs/invalid-calls.md) PASSes, refused by the plugin, whatever its op.
    Returns the PASS counts by (op, dtype, direction)."""
    passes = collections.Counter()
    for c in checks:
        key = f"{c['case_id']} {c['direction']}: {c['verdict']} {c['reason']}"
        if check_refusal(c, name):
            continue
        check(c["verdict"] in ("PASS", "SKIP"), key)
        implemented = c["op"] in implemented_ops and c["dtype"] in dtypes
        if c["verdict"] == "PASS":
            check(implemented, key)
            passes[(c["op"], c["dtype"], c["direction"])] += 1
        elif not implemented:
            check(c["reason"].startswith("not implemented by plugin " + name), key)
    for op in implemented_ops:
        for dtype in dtypes:
            for direction in ("forward", "backward"):
                check(passes[(op, dtype, direction)] > 0, f"no {op} {dtype} {direction} check passed")
    return passes
