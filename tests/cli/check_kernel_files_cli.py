#!/usr/bin/env python3
"""Kernels from source files end to end (docs/kernel-files.md), on the first device of one runtime:
--backend opencl-src:DIR (OpenCL C) or vulkan-spirv:DIR (GLSL compiled by glslc, SPIR-V).
  - the runtime's example directory passes: every forward and backward check of exp, mul and
    softmax in f32 PASSes, and an op or dtype the directory lacks SKIPs naming the missing kernel;
  - the walk-through's planted bug (softmax's backward leaving the line's last element out of its
    dot product) FAILs the softmax backward checks (and its finite-difference check), no forward
    check, exit 1;
  - attributes reach a kernel through the parameter block: a leaky_relu whose kernels read alpha
    as float (f32) and as a double (f64, GP_REAL64) passes;
  - 16-bit storage (exp in f16, and in bf16 on OpenCL) and an index input without a gradient
    (cross_entropy's i32 targets) pass;
  - (vulkan) a SPIR-V binary built elsewhere, declaring only the block's first field, runs;
  - a malformed directory is one line and exit 2 and writes nothing: a file that does not compile,
    a kernel with one buffer too many, a name outside the catalog, a backward of a forward-only op,
    a kernel given twice, (vulkan) a 2-D local size, no kernel file, no directory.

Usage: check_kernel_files_cli.py GRADPARITY opencl|vulkan EXAMPLES_DIR WORK_DIR"""
import json
import os
import shutil
import subprocess
import sys

from cli_support import Checks

EXE, RUNTIME, EXAMPLES, WORK = sys.argv[1:5]
CHECKS = Checks(EXE)
run, check, expect_usage_error, failures = CHECKS.run, CHECKS.check, CHECKS.expect_usage_error, CHECKS.failures
BACKEND = {"opencl": "opencl-src", "vulkan": "vulkan-spirv"}[RUNTIME]
OPENCL = RUNTIME == "opencl"

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
d = lambda *p: os.path.join(WORK, *p)


def parity(directory, ops, report, extra=()):
    r = run(["run", "--backend", f"{BACKEND}:{directory}:0", "--op", ops, "--report-dir", d(report), "--no-progress",
             *extra])
    checks = []
    if os.path.exists(d(report, "parity.json")):
        with open(d(report, "parity.json")) as f:
            checks = [c for c in json.load(f)["checks"] if c["backend"].startswith(BACKEND + ":")]
    return r, checks


def copy_examples(name):
    shutil.copytree(EXAMPLES, d(name))
    return d(name)


def replace_in(path, old, new):
    with open(path) as f:
        text = f.read()
    assert old in text, f"{old!r} not in {path}"
    with open(path, "w") as f:
        f.write(text.replace(old, new))


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
softmax = os.path.join(planted, "softmax.cl" if OPENCL else "softmax_backward_f32.comp")
with open(softmax) as f:
    text = f.read()
correct = "for (uint j = 0; j < n; ++j) dot +="
check(text.count(correct) == 1, "walk-through: the softmax backward has the loop the planted bug changes")
with open(softmax, "w") as f:
    f.write(text.replace(correct, "for (uint j = 0; j + 1 < n; ++j) dot +="))
r, checks = parity(planted, "softmax", "planted", ["--dtype", "f32"])
failed = {(c["op"], c["direction"]) for c in checks if c["verdict"] == "FAIL"}
check(r.returncode == 1, f"planted bug: exit {r.returncode}")
check(("softmax", "backward") in failed and failed <= {("softmax", "backward"), ("softmax", "numerical_backend")},
      f"planted bug: FAILs in {sorted(failed)}")
check("FAIL softmax(" in r.stdout and "backward input 0" in r.stdout, "planted bug: a FAIL line names op and direction")

# Attributes through the parameter block, in f32 and f64.
os.makedirs(d("attrs"))
if OPENCL:
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
else:
    for t, suffix, alpha in (("float", "f32", "p.reals[GP_ALPHA]"), ("double", "f64", "GP_REAL64(p, GP_ALPHA)")):
        head = "#version 450\n" + ("#extension GL_ARB_gpu_shader_fp64 : require\n" if t == "double" else "")
        head += "layout(local_size_x = 64) in;\n"
        with open(d("attrs", f"leaky_relu_forward_{suffix}.comp"), "w") as f:
            f.write(head + f"""layout(std430, binding = 0) readonly buffer In0 {{ {t} in0[]; }};
layout(std430, binding = 1) writeonly buffer Out {{ {t} out_[]; }};
void main() {{
  const uint i = GP_INDEX;
  if (i < p.count) out_[i] = in0[i] > 0 ? in0[i] : {t}({alpha}) * in0[i];
}}
""")
        with open(d("attrs", f"leaky_relu_backward_{suffix}.comp"), "w") as f:
            f.write(head + f"""layout(std430, binding = 0) readonly buffer In0 {{ {t} in0[]; }};
layout(std430, binding = 2) readonly buffer Dout {{ {t} dout[]; }};
layout(std430, binding = 3) writeonly buffer Grad0 {{ {t} grad0[]; }};
void main() {{
  const uint i = GP_INDEX;
  if (i < p.count) grad0[i] = in0[i] > 0 ? dout[i] : {t}({alpha}) * dout[i];
}}
""")
r, checks = parity(d("attrs"), "leaky_relu", "attrs", ["--dtype", "f32,f64"])
ran = [c for c in checks if c["verdict"] != "SKIP" and c["direction"] in ("forward", "backward")]
check(r.returncode == 0 and ran and {c["dtype"] for c in ran} == {"f32", "f64"} and
      all(c["verdict"] == "PASS" for c in ran),
      f"attributes: exit {r.returncode}, {len(ran)} checks ran, dtypes {sorted({c['dtype'] for c in ran})}")

# 16-bit storage and an index input: exp in f16 (and bf16 on OpenCL), cross_entropy in f32 (its
# targets an i32 buffer without a gradient: grad0 follows dout).
os.makedirs(d("storage"))
CE_FORWARD = """
  const uint rows = GP_DIM(P, 0, 2), classes = GP_DIM(P, 0, 3);
  float total = 0.0f;
  for (uint r = 0; r < rows; ++r) {
    float top = X(r * classes);
    for (uint j = 1; j < classes; ++j) top = max(top, X(r * classes + j));
    float sum = 0.0f;
    for (uint j = 0; j < classes; ++j) sum += exp(X(r * classes + j) - top);
    total += log(sum) + top - X(r * classes + U(T(r)));
  }
  OUT(total / F(rows));
"""
CE_BACKWARD = """
  const uint classes = GP_DIM(P, 0, 3), r = i / classes, j = i % classes;
  float top = X(r * classes);
  for (uint k = 1; k < classes; ++k) top = max(top, X(r * classes + k));
  float sum = 0.0f;
  for (uint k = 0; k < classes; ++k) sum += exp(X(r * classes + k) - top);
  // p - 1 at the target as minus the other classes' share: 1 - p cancels where p is near 1 (the
  // overflowing cases), and the bound is a stable formulation's.
  float others = 0.0f;
  for (uint k = 0; k < classes; ++k) others += k == U(T(r)) ? 0.0f : exp(X(r * classes + k) - top);
  const float share = j == U(T(r)) ? -others / sum : exp(X(i) - top) / sum;
  GRAD(share * DOUT / F(GP_DIM(P, 0, 2)));
"""
if OPENCL:
    with open(d("storage", "kernels.cl"), "w") as f:
        f.write("""
float bf16_load(__global const ushort* a, uint i) { return as_float((uint)a[i] << 16); }
ushort bf16_round(float v) { const uint u = as_uint(v); return (ushort)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16); }
__kernel void exp_forward_f16(__global const half* in0, __global half* out, __global const gp_params* p) {
  const uint i = get_global_id(0);
  if (i < p->count) vstore_half_rte(exp(vload_half(i, in0)), i, out);
}
__kernel void exp_backward_f16(__global const half* in0, __global const half* out, __global const half* dout,
                               __global half* grad0, __global const gp_params* p) {
  const uint i = get_global_id(0);
  if (i < p->count) vstore_half_rte(vload_half(i, dout) * exp(vload_half(i, in0)), i, grad0);
}
__kernel void exp_forward_bf16(__global const ushort* in0, __global ushort* out, __global const gp_params* p) {
  const uint i = get_global_id(0);
  if (i < p->count) out[i] = bf16_round(exp(bf16_load(in0, i)));
}
__kernel void exp_backward_bf16(__global const ushort* in0, __global const ushort* out, __global const ushort* dout,
                                __global ushort* grad0, __global const gp_params* p) {
  const uint i = get_global_id(0);
  if (i < p->count) grad0[i] = bf16_round(bf16_load(dout, i) * exp(bf16_load(in0, i)));
}
#define P p
#define X(k) in0[k]
#define T(r) in1[r]
#define U(v) ((uint)(v))
#define F(v) ((float)(v))
__kernel void cross_entropy_forward_f32(__global const float* in0, __global const int* in1, __global float* out,
                                        __global const gp_params* p) {
#define OUT(v) out[0] = (v)
  if (get_global_id(0) != 0) return;
""" + CE_FORWARD + """
#undef OUT
}
__kernel void cross_entropy_backward_f32(__global const float* in0, __global const int* in1,
                                         __global const float* out, __global const float* dout,
                                         __global float* grad0, __global const gp_params* p) {
#define DOUT dout[0]
#define GRAD(v) grad0[i] = (v)
  const uint i = get_global_id(0);
  if (i >= p->count) return;
""" + CE_BACKWARD + """
}
""")
else:
    head16 = "#version 450\n#extension GL_EXT_shader_16bit_storage : require\n" \
             "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\nlayout(local_size_x = 64) in;\n"
    with open(d("storage", "exp_forward_f16.comp"), "w") as f:
        f.write(head16 + """layout(std430, binding = 0) readonly buffer In0 { float16_t in0[]; };
layout(std430, binding = 1) writeonly buffer Out { float16_t out_[]; };
void main() {
  const uint i = GP_INDEX;
  if (i < p.count) out_[i] = float16_t(exp(float(in0[i])));
}
""")
    with open(d("storage", "exp_backward_f16.comp"), "w") as f:
        f.write(head16 + """layout(std430, binding = 0) readonly buffer In0 { float16_t in0[]; };
layout(std430, binding = 2) readonly buffer Dout { float16_t dout[]; };
layout(std430, binding = 3) writeonly buffer Grad0 { float16_t grad0[]; };
void main() {
  const uint i = GP_INDEX;
  if (i < p.count) grad0[i] = float16_t(float(dout[i]) * exp(float(in0[i])));
}
""")
    ce_head = """#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { float in0[]; };
layout(std430, binding = 1) readonly buffer In1 { int in1[]; };
#define P p
#define X(k) in0[k]
#define T(r) in1[r]
#define U(v) uint(v)
#define F(v) float(v)
"""
    with open(d("storage", "cross_entropy_forward_f32.comp"), "w") as f:
        f.write(ce_head + """layout(std430, binding = 2) writeonly buffer Out { float out_[]; };
#define OUT(v) out_[0] = (v)
void main() {
  if (GP_INDEX != 0) return;
""" + CE_FORWARD + "}\n")
    with open(d("storage", "cross_entropy_backward_f32.comp"), "w") as f:
        f.write(ce_head + """layout(std430, binding = 3) readonly buffer Dout { float dout[]; };
layout(std430, binding = 4) writeonly buffer Grad0 { float grad0[]; };
#define DOUT dout[0]
#define GRAD(v) grad0[i] = (v)
void main() {
  const uint i = GP_INDEX;
  if (i >= p.count) return;
""" + CE_BACKWARD + "}\n")
dtypes = "f16,bf16,f32" if OPENCL else "f16,f32"
r, checks = parity(d("storage"), "exp,cross_entropy", "storage", ["--dtype", dtypes])
ran = [c for c in checks if c["verdict"] != "SKIP" and c["direction"] in ("forward", "backward")]
want = {("exp", t) for t in dtypes.split(",") if t != "f32"} | {("cross_entropy", "f32")}
check(r.returncode == 0 and ran and {(c["op"], c["dtype"]) for c in ran} == want and
      all(c["verdict"] == "PASS" for c in ran),
      f"16-bit storage and an index input: exit {r.returncode}, ran {sorted({(c['op'], c['dtype']) for c in ran})}, "
      f"verdicts {sorted({c['verdict'] for c in ran})}")

# A SPIR-V binary built elsewhere, declaring only the first field of the block.
if not OPENCL:
    os.makedirs(d("spv"))
    shutil.copy(os.path.join(EXAMPLES, "exp_backward_f32.comp"), d("spv"))
    with open(d("exp.comp"), "w") as f:
        f.write("""#version 450
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer In0 { float in0[]; };
layout(std430, binding = 1) writeonly buffer Out { float out_[]; };
layout(std430, binding = 2) readonly buffer Params { uint count; } p;
void main() {
  const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i < p.count) out_[i] = exp(in0[i]);
}
""")
    subprocess.run(["glslc", "-fshader-stage=compute", "-o", d("spv", "exp_forward_f32.spv"), d("exp.comp")], check=True)
    r, checks = parity(d("spv"), "exp", "spv", ["--dtype", "f32"])
    ran = [c for c in checks if c["direction"] == "forward"]
    check(r.returncode == 0 and ran and all(c["verdict"] == "PASS" for c in ran),
          f"a .spv built elsewhere: exit {r.returncode}, {len(ran)} forward checks")


# Malformed directories: one line, exit 2.
def malformed(name, edit, needle, what):
    path = copy_examples(name)
    edit(path)
    expect_usage_error(["run", "--backend", f"{BACKEND}:{path}", "--op", "exp", "--report-dir", d(name + "-report")],
                       needle, what)
    check(not os.path.exists(d(name + "-report")), f"{what}: no report written")


if OPENCL:
    exp_fwd = exp_bwd = "exp.cl"
    extra_buffer = ("__global float* grad0,", "__global float* grad0, __global float* extra,",
                    "exp_backward_f32 takes 6 arguments, the convention 5")
else:
    exp_fwd, exp_bwd = "exp_forward_f32.comp", "exp_backward_f32.comp"
    extra_buffer = ("writeonly buffer Grad0 { float grad0[]; };",
                    "writeonly buffer Grad0 { float grad0[]; };\nlayout(std430, binding = 5) buffer X { float x[]; };",
                    "bindings up to 5, the convention's 5 are 0 to 4")
statement = "exp(in0[i]);"
malformed("no-compile", lambda p: replace_in(os.path.join(p, exp_fwd), statement, statement[:-1]), "does not compile",
          "a file that does not compile")
malformed("buffers", lambda p: replace_in(os.path.join(p, exp_bwd), *extra_buffer[:2]), extra_buffer[2],
          "a kernel with one buffer too many")


def rename_kernel(p, old, new):
    if OPENCL:
        replace_in(os.path.join(p, "exp.cl"), old, new)
    else:
        os.rename(os.path.join(p, old + ".comp"), os.path.join(p, new + ".comp"))


malformed("unknown-op", lambda p: rename_kernel(p, "exp_forward_f32", "expo_forward_f32"),
          "names op 'expo', not in the catalog", "a kernel named after no op")
malformed("forward-only", lambda p: rename_kernel(p, "exp_backward_f32", "sgd_step_backward_f32"),
          "sgd_step has no backward", "a backward kernel of an op whose inputs get no gradient")
if OPENCL:
    malformed("twice", lambda p: shutil.copy(os.path.join(p, "exp.cl"), os.path.join(p, "exp2.cl")), "is defined in",
              "a kernel defined twice")
else:
    malformed("twice", lambda p: shutil.copy(os.path.join(d("spv"), "exp_forward_f32.spv"), p), "is given by",
              "a kernel given twice (.comp and .spv)")
    malformed("2-d", lambda p: replace_in(os.path.join(p, exp_fwd), "local_size_x = 64", "local_size_x = 8, local_size_y = 8"),
              "the launch is 1-D", "a 2-D local size")
os.makedirs(d("empty"))
expect_usage_error(["run", "--backend", f"{BACKEND}:{d('empty')}", "--op", "exp"], "holds no ",
                   "a directory without kernels")
expect_usage_error(["run", "--backend", f"{BACKEND}:{d('missing')}", "--op", "exp"], "no directory",
                   "a directory that is not there")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print(f"all {BACKEND} checks passed")
