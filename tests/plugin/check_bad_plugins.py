#!/usr/bin/env python3
"""ctest plugin/bad-plugins: what a user sees for each broken plugin (tests/plugin/test_plugin.c).

A plugin that cannot load (wrong ABI version, a missing symbol, a missing function): one line on
stderr naming the plugin's path and what is wrong, exit code 2, for `run` and `list backends`.
A plugin whose forward (or supports) returns an error: ERROR verdicts naming the plugin, the C function and
the case; the run goes on (other ops SKIP) and the reports are written; exit code 1.
A plugin that crashes inside forward (on one shape): under `run`, the child process running the
plugin's cases dies, that case is an ERROR naming the signal, the other cases run in a new child
and PASS, the reports are written, exit code 1 (with --no-isolate the process dies instead); under
`stress`, each mode's child process dies, the mode is reported as a crash, exit code 1.
A plugin that crashes or hangs under `bench`: that case's rows are errors, every other call is timed.
A plugin that hangs in forward (on one shape) under `run`: its child is killed after --case-timeout
without progress, that case is an ERROR saying so, the others PASS, exit code 1.
A call the catalog refuses: the good plugin refuses it (PASS), one that accepts it FAILs, one that
crashes in supports() on it is an ERROR naming the case; the valid cases PASS either way.
Usage: check_bad_plugins.py GRADPARITY PLUGIN_DIR WORK_DIR ABI_HEADER
"""
import json
import os
import re
import shutil
import subprocess
import sys

gradparity, plugins, work, abi_header = sys.argv[1:5]
failures = []


def expect(cond, message):
    if not cond:
        failures.append(message)
        print("FAIL:", message)


def gp(*args, env_extra=None, cwd=None):
    env = dict(os.environ, **env_extra) if env_extra else None
    p = subprocess.run([os.path.abspath(gradparity), *args], capture_output=True, text=True, env=env, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def cannot_load(variant, text):
    """`text`: a regular expression the one line must match."""
    path = os.path.join(plugins, variant + ".so")
    for args in (["run", "--op", "exp", "--no-progress"], ["list", "backends"]):
        rc, out, err = gp(*args, "--backend", "plugin:" + path)
        lines = err.strip().splitlines()
        expect(rc == 2, f"{variant} {args[0]}: exit code {rc}, expected 2")
        expect(len(lines) == 1 and f"plugin {path}: " in err and re.search(text, err),
               f"{variant} {args[0]}: expected one line naming {path} and matching '{text}', got {err!r}")


# The plugin reports the host's version plus one: named, with the versions this host loads.
version = int(re.search(r"#define GP_PLUGIN_ABI_VERSION (\d+)u", open(abi_header).read()).group(1))
cannot_load("bad_abi", f"plugin ABI version {version + 1}, this gradparity loads versions 1 to {version}")
cannot_load("no_table", "missing symbol gradparity_plugin")
cannot_load("null_function", "function vjp is missing from its table")
cannot_load("does_not_exist", "cannot be loaded")

# A device selector after the path: an index or a part of the device's name.
good = os.path.join(plugins, "good.so")
for selector in (":0", ":test plugin", ""):
    rc, out, err = gp("list", "backends", "--backend", "plugin:" + good + selector)
    expect(rc == 0 and f"plugin:{good}:0 test plugin device" in out, f"good{selector}: {rc} {out!r} {err!r}")
rc, out, err = gp("list", "backends", "--backend", "plugin:" + good + ":7")
expect(rc == 2 and f"no plugin:{good} device 7: its device indices go from 0 to 0" in err, f"good:7: {rc} {err!r}")
# An index is an index: a device whose name holds that digit is not device 1.
rc, out, err = gp("list", "backends", "--backend", "plugin:" + good + ":1", env_extra={"GP_TEST_DEVICE_NAME": "device 1"})
expect(rc == 2 and len(err.strip().splitlines()) == 1 and f"no plugin:{good} device 1: its device indices go from 0 "
       f"to 0; devices: plugin:{good}:0 (device 1)" in err, f"good:1 named 'device 1': {rc} {out!r} {err!r}")
# A plugin named without a '/' is the file in the current folder (dlopen alone searches only the
# library path), and one that is nowhere says where it was looked for.
rc, out, err = gp("list", "backends", "--backend", "plugin:good.so", cwd=plugins)
expect(rc == 0 and "plugin:good.so:0 test plugin device" in out, f"good.so from its folder: {rc} {out!r} {err!r}")
rc, out, err = gp("list", "backends", "--backend", "plugin:nowhere.so", cwd=plugins)
expect(rc == 2 and "no such file in the current folder either" in err, f"nowhere.so: {rc} {err!r}")
rc, out, err = gp("list", "backends", "--backend", "plugin:" + good + ":nomatch")
expect(rc == 2 and f"no plugin:{good} device matches 'nomatch'" in err, f"good:nomatch: {rc} {err!r}")

shutil.rmtree(work, ignore_errors=True)
erroring = os.path.join(plugins, "error_return.so")
report = os.path.join(work, "error_return")
rc, out, err = gp("run", "--backend", "plugin:" + erroring, "--op", "exp,tanh", "--dtype", "f32", "--no-progress",
                  "--report-dir", report)
expect(rc == 1, f"error_return: exit code {rc}, expected 1")
checks = json.load(open(os.path.join(report, "parity.json")))["checks"] if os.path.exists(
    os.path.join(report, "parity.json")) else []
expect(checks, "error_return: no parity.json written")
plugin_checks = [c for c in checks if c["backend"].startswith("plugin:")]
errors = [c for c in plugin_checks if c["verdict"] == "ERROR"]
expect(errors and all(c["op"] == "exp" for c in errors), "error_return: exp's checks are not the ERRORs")
for c in errors:
    expect(f"plugin {erroring}: forward failed: GP_ERROR [case {c['case_id']}]: injected failure in forward"
           in c["reason"], f"error_return: reason {c['reason']!r}")
tanh = [c for c in plugin_checks if c["op"] == "tanh"]
expect(tanh and all(c["verdict"] == "SKIP" and c["reason"] == "not implemented by plugin test: exp in f32 only"
                    for c in tanh), "error_return: tanh did not SKIP with the plugin's reason")

# supports() failing is an ERROR of the case, not a SKIP that would hide it.
failing = os.path.join(plugins, "supports_error.so")
rc, out, err = gp("run", "--backend", "plugin:" + failing, "--op", "exp,tanh", "--dtype", "f32", "--no-progress")
expect(rc == 1, f"supports_error: exit code {rc}, expected 1")
expect(f"plugin {failing}: supports failed: GP_ERROR [case exp(shape=7,dtype=f32)]: injected failure in supports"
       in out, f"supports_error: {out[-2000:]!r}")

crashing = os.path.join(plugins, "segv.so")
report = os.path.join(work, "segv-run")
rc, out, err = gp("run", "--backend", "plugin:" + crashing, "--op", "exp,tanh", "--dtype", "f32", "--no-progress",
                  "--report-dir", report)
expect(rc == 1, f"segv run: exit code {rc}, expected 1; stderr {err[-2000:]!r}")
checks = json.load(open(os.path.join(report, "parity.json")))["checks"] if os.path.exists(
    os.path.join(report, "parity.json")) else []
expect(checks, "segv run: no parity.json written")
plugin_checks = [c for c in checks if c["backend"].startswith("plugin:")]
crashed = [c for c in plugin_checks if c["verdict"] == "ERROR"]
expect(len(crashed) == 1 and crashed[0]["case_id"] == "exp(shape=7,dtype=f32)"
       and "signal 11 (SIGSEGV) during this case" in crashed[0]["reason"], f"segv run: ERRORs {crashed}")
later = [c for c in plugin_checks if c["op"] == "exp" and c["case_id"] != "exp(shape=7,dtype=f32)"]
expect(later and all(c["verdict"] in ("PASS", "SKIP") for c in later) and len(
    [c for c in later if c["verdict"] == "PASS"]) >= 10, "segv run: the other exp cases did not all pass")
expect(any(c["op"] == "tanh" and c["verdict"] == "SKIP" for c in plugin_checks), "segv run: tanh did not SKIP")
expect("the run goes on in a new process" in err, f"segv run: stderr {err[-2000:]!r}")
rc, out, err = gp("run", "--backend", "plugin:" + crashing, "--op", "exp", "--dtype", "f32", "--no-progress",
                  "--no-isolate")
expect(rc == -11, f"segv run --no-isolate: exit code {rc}, expected death by SIGSEGV (-11)")

# The small tier's f32 exp cases (what `--op exp --dtype f32` runs): each passes forward and backward.
_, listing, _ = gp("list", "cases")
exp_cases = [line for line in listing.splitlines() if line.startswith("  exp(") and "dtype=f32)" in line
             and "(large," not in line and "(invalid," not in line and "(specials," not in line]
others = 2 * (len(exp_cases) - 1)  # checks (and bench rows) of the exp cases but exp(shape=7)
# and the checks of exp at IEEE special values (docs/special-values.md), which bench does not time
specials = 2 * sum(1 for line in listing.splitlines() if line.startswith("  exp(specials,") and "dtype=f32)" in line)

hanging = os.path.join(plugins, "hang.so")
rc, out, err = gp("run", "--backend", "plugin:" + hanging, "--op", "exp", "--dtype", "f32", "--no-progress",
                  "--case-timeout", "2", "--junit", os.path.join(work, "hang.xml"))
expect(rc == 1, f"hang run: exit code {rc}, expected 1; stderr {err[-2000:]!r}")
expect("ERROR exp(shape=7,dtype=f32)" in out and "no progress for 2 s (--case-timeout; killed) during this case" in out,
       f"hang run: {out[-2000:]!r}")
# and the refusal of the exp call the catalog refuses (docs/invalid-calls.md)
expect(f"{others + specials + 1} PASS, 0 FAIL" in out,
       f"hang run: the other exp cases did not PASS ({others}, {specials} at special values and a refusal): "
       f"{out[-600:]!r}")

# A call the catalog refuses (docs/invalid-calls.md): refused by the good plugin, a FAIL where
# supports() accepts it, an ERROR naming the case where supports() crashes on it.
invalid_exp = "exp(invalid,shape=4x5,out=5x4,dtype=f32)"
for variant, verdict, why in (("good", "PASS", "refused: not implemented by plugin test: exp: one f32 input"),
                              ("trusting", "FAIL", "supports() accepted a call the catalog refuses (exp: output "
                               "shape 5x4, where the inputs give 4x5)"),
                              ("supports_segv", "ERROR", "signal 11 (SIGSEGV) during this case")):
    report = os.path.join(work, variant + "-invalid")
    rc, out, err = gp("run", "--backend", "plugin:" + os.path.join(plugins, variant + ".so"), "--op", "exp", "--dtype",
                      "f32", "--no-progress", "--report-dir", report)
    expect(rc == (0 if verdict == "PASS" else 1), f"{variant} on invalid calls: exit code {rc}; {err[-1000:]!r}")
    checks = json.load(open(os.path.join(report, "parity.json")))["checks"] if os.path.exists(
        os.path.join(report, "parity.json")) else []
    refusals = [c for c in checks if c["backend"].startswith("plugin:") and c["direction"] == "refusal"]
    expect(len(refusals) == 1 and refusals[0]["case_id"] == invalid_exp and refusals[0]["verdict"] == verdict
           and why in refusals[0]["reason"], f"{variant} on invalid calls: {refusals}")
    others_ok = [c for c in checks if c["backend"].startswith("plugin:") and c["direction"] != "refusal"]
    expect(len([c for c in others_ok if c["verdict"] == "PASS"]) == others + specials + 2,
           f"{variant} on invalid calls: the valid exp cases did not all PASS")

# bench: the case whose calls crashed or hung its child is an error row, every other call is timed.
for plugin, extra, why in ((crashing, [], "signal 11 (SIGSEGV) in this case's calls"),
                           (hanging, ["--case-timeout", "2"], "no progress for 2 s (--case-timeout; killed)")):
    bench_json = os.path.join(work, os.path.basename(plugin) + "-bench.json")
    rc, out, err = gp("bench", "--backend", "plugin:" + plugin, "--op", "exp", "--dtype", "f32", "--no-progress",
                      "--min-time", "0.001", "--repetitions", "2", "--json", bench_json, *extra)
    expect(rc == 1, f"bench {plugin}: exit code {rc}, expected 1; stderr {err[-2000:]!r}")
    rows = json.load(open(bench_json))["rows"] if os.path.exists(bench_json) else []
    bad = [r for r in rows if r["outcome"] == "error"]
    expect(len(bad) == 2 and all(r["case_id"] == "exp(shape=7,dtype=f32)" and why in r["reason"] for r in bad),
           f"bench {plugin}: error rows {bad}")
    timed = [r for r in rows if r["outcome"] == "timed"]
    expect(len(timed) == others and all(len(r["repetition_seconds"]) == 2 for r in timed),  # the other exp cases
           f"bench {plugin}: {len(timed)} timed rows, expected {others}")

# dump names a plugin device's files after the library's file name, not its whole path (which
# made nested folders).
dump_dir = os.path.join(work, "dump")
rc, out, err = gp("dump", "exp(shape=127,dtype=f32)", "--backend", "plugin:" + os.path.abspath(good), "--out", dump_dir)
dumped = sorted(os.listdir(dump_dir)) if os.path.isdir(dump_dir) else []
expect(rc == 0 and "plugin_good.so_0_output.npy" in dumped and "plugin_good.so_0_grad0.npy" in dumped
       and all(os.path.isfile(os.path.join(dump_dir, f)) for f in dumped), f"dump of a plugin: {rc} {dumped} {err!r}")

report = os.path.join(work, "segv")
rc, out, err = gp("stress", "--backend", "plugin:" + crashing, "--op", "exp", "--dtype", "f32", "--threads", "2",
                  "--iterations", "2", "--mode", "shared,per-thread", "--mode-timeout", "30", "--no-progress",
                  "--report-dir", report)
expect(rc == 1, f"segv stress: exit code {rc}, expected 1")
rows = json.load(open(os.path.join(report, "parity.json")))["stress"] if os.path.exists(
    os.path.join(report, "parity.json")) else []
expect(len(rows) == 2 and all(r["failed"] and r["crash"] for r in rows), f"segv stress rows: {rows}")
# The crash names what the child was running (its serial baseline of exp(shape=7), here).
expect(all(r["crash"] == "signal 11 (SIGSEGV) while running exp(shape=7,dtype=f32)" for r in rows),
       f"segv stress: the crash does not name the case in flight: {[r['crash'] for r in rows]}")
expect("CRASH: signal 11 (SIGSEGV) while running exp(shape=7,dtype=f32)" in out, f"segv stress: {out[-1000:]!r}")
print(out)

if failures:
    sys.exit(f"{len(failures)} expectation(s) failed")
print("bad plugins: every case reported as expected")
