#!/usr/bin/env python3
"""Kernels from source files end to end (--backend opencl-src:DIR, docs/kernel-files.md), on the
first OpenCL device:
  - examples/kernels-opencl passes: every forward and backward check of exp, mul and softmax in
    f32 PASSes, and an op or dtype the directory lacks SKIPs naming the missing kernel;
  - the walk-through's planted bug (softmax's backward leaving the line's last element out of its
    dot product) FAILs the softmax backward checks (and its finite-difference check), no forward
    check, exit 1;
  - attributes reach a kernel through the parameter block: a leaky_relu whose kernels read alpha
    as float (f32) and as a double (f64, GP_REAL64) passes;
  - a malformed directory is one line and exit 2: a file that does not compile, a kernel with the
    wrong argument count, a name outside the catalog, a backward of a forward-only op, a kernel
    defined twice, no .cl file, no directory.

Usage: check_kernel_files_cli.py GRADPARITY EXAMPLES_DIR WORK_DIR"""
import json
import os
import shutil
import sys

from cli_support import Checks

EXE, EXAMPLES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
CHECKS = Checks(EXE)
run, check, expect_usage_error, failures = CHECKS.run, CHECKS.check, CHECKS.expect_usage_error, CHECKS.failures

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
d = lambda *p: os.path.join(WORK, *p)


def parity(directory, ops, report, extra=()):
    r = run(["run", "--backend", f"opencl-src:{directory}:0", "--op", ops, "--report-dir", d(report),
             "--no-progress", *extra])
    checks = []
    if os.path.exists(d(report, "parity.json")):
        with open(d(report, "parity.json")) as f:
            checks = [c for c in json.load(f)["checks"] if c["backend"].startswith("opencl-src:")]
    return r, checks


def copy_examples(name):
    shutil.copytree(EXAMPLES, d(name))
    return d(name)


# The examples pass.
r, checks = parity(EXAMPLES, "exp,mul,softmax,tanh", "good")
check(r.returncode == 0, f"examples: exit {r.returncode} {r.stderr[-400:]!r}")
for op in ("exp", "mul", "softmax"):
    for direction in ("forward", "backward"):
        mine = [c for c in checks if c["op"] == op and c["dtype"] == "f32" and c["direction"] == direction]
        check(mine and all(c["verdict"] == "PASS" for c in mine),
              f"examples: {op} f32 {direction}: {len(mine)} checks, verdicts {sorted({c['verdict'] for c in mine})}")
skips = [c for c in checks if c["op"] == "tanh" and c["direction"] == "forward"]
check(skips and all(c["verdict"] == "SKIP" and "no kernel tanh_forward_" in c["reason"] for c in skips),
      f"examples: tanh SKIPs naming its missing kernel ({len(skips)} checks)")
f64 = [c for c in checks if c["op"] == "exp" and c["dtype"] == "f64" and c["direction"] == "forward"]
check(f64 and all("no kernel exp_forward_f64" in c["reason"] for c in f64), "examples: exp f64 SKIPs naming its kernel")

# The walk-through's planted bug.
planted = copy_examples("planted")
with open(os.path.join(planted, "softmax.cl")) as f:
    text = f.read()
correct = "for (uint j = 0; j < n; ++j) dot +="
check(text.count(correct) == 1, "walk-through: softmax.cl has the loop the planted bug changes")
with open(os.path.join(planted, "softmax.cl"), "w") as f:
    f.write(text.replace(correct, "for (uint j = 0; j + 1 < n; ++j) dot +="))
r, checks = parity(planted, "softmax", "planted", ["--dtype", "f32"])
failed = {(c["op"], c["direction"]) for c in checks if c["verdict"] == "FAIL"}
check(r.returncode == 1, f"planted bug: exit {r.returncode}")
check(("softmax", "backward") in failed and failed <= {("softmax", "backward"), ("softmax", "numerical_backend")},
      f"planted bug: FAILs in {sorted(failed)}")
check("FAIL softmax(" in r.stdout and "backward input 0" in r.stdout, "planted bug: a FAIL line names op and direction")

# Attributes through the parameter block, in f32 and f64.
os.makedirs(d("attrs"))
with open(d("attrs", "leaky_relu.cl"), "w") as f:
    f.write("""
#define LEAKY(T, SUFFIX, ALPHA)                                                                         \\
  __kernel void leaky_relu_forward_##SUFFIX(__global const T* in0, __global T* out,                    \\
                                            __global const gp_params* p) {                            \\
    const uint i = get_global_id(0);                                                                  \\
    if (i < p->count) out[i] = in0[i] > 0 ? in0[i] : ALPHA * in0[i];                                  \\
  }                                                                                                   \\
  __kernel void leaky_relu_backward_##SUFFIX(__global const T* in0, __global const T* out,             \\
                                             __global const T* dout, __global T* grad0,               \\
                                             __global const gp_params* p) {                           \\
    const uint i = get_global_id(0);                                                                  \\
    if (i < p->count) grad0[i] = in0[i] > 0 ? dout[i] : ALPHA * dout[i];                              \\
  }
LEAKY(float, f32, p->reals[GP_ALPHA])
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
LEAKY(double, f64, GP_REAL64(p, GP_ALPHA))
#endif
""")
r, checks = parity(d("attrs"), "leaky_relu", "attrs", ["--dtype", "f32,f64"])
ran = [c for c in checks if c["verdict"] != "SKIP" and c["direction"] in ("forward", "backward")]
check(r.returncode == 0 and ran and all(c["verdict"] == "PASS" for c in ran),
      f"attributes: exit {r.returncode}, {len(ran)} checks ran, dtypes {sorted({c['dtype'] for c in ran})}")


# Malformed directories: one line, exit 2.
def malformed(name, edit, needle, what):
    path = copy_examples(name)
    edit(path)
    expect_usage_error(["run", "--backend", f"opencl-src:{path}", "--op", "exp", "--report-dir", d(name + "-report")],
                       needle, what)
    check(not os.path.exists(d(name + "-report")), f"{what}: no report written")


def replace_in(path, old, new):
    with open(path) as f:
        text = f.read()
    assert old in text, f"{old!r} not in {path}"
    with open(path, "w") as f:
        f.write(text.replace(old, new))


malformed("no-compile", lambda p: replace_in(os.path.join(p, "exp.cl"), "exp(in0[i]);", "exp(in0[i])"),
          "exp.cl does not compile", "a file that does not compile")
malformed("arguments", lambda p: replace_in(os.path.join(p, "exp.cl"), "__global float* grad0,",
                                            "__global float* grad0, __global float* extra,"),
          "exp_backward_f32 takes 6 arguments, the convention 5", "a kernel with one argument too many")
malformed("unknown-op", lambda p: replace_in(os.path.join(p, "exp.cl"), "exp_forward_f32", "expo_forward_f32"),
          "names op 'expo', not in the catalog", "a kernel named after no op")
malformed("forward-only", lambda p: replace_in(os.path.join(p, "exp.cl"), "exp_backward_f32", "sgd_step_backward_f32"),
          "sgd_step has no backward", "a backward kernel of an op whose inputs get no gradient")
malformed("twice", lambda p: shutil.copy(os.path.join(p, "exp.cl"), os.path.join(p, "exp2.cl")),
          "is defined in", "a kernel defined twice")
os.makedirs(d("empty"))
expect_usage_error(["run", "--backend", f"opencl-src:{d('empty')}", "--op", "exp"], "holds no .cl file",
                   "a directory without kernels")
expect_usage_error(["run", "--backend", f"opencl-src:{d('missing')}", "--op", "exp"], "no directory",
                   "a directory that is not there")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all kernel-file checks passed")
