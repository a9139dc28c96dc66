#!/usr/bin/env python3
"""ctest plugin/clblast: plugins/clblast built against gradparity installed into a temporary
prefix, run on the first OpenCL device (PoCL in CI).

matmul and linear PASS forward and backward in f32 and f64 on every catalog case (the hard
regimes' long dot products included); their f16/bf16 cases SKIP because the device has neither
dtype, the other op named (exp) SKIPs "not implemented by plugin clblast", nothing fails; the
plugin declares the serialised contract and the opencl math profile.
"""
import argparse
import os

from installed import build_project, check, check_verdicts, install, list_backends, run_plugin


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--generator", required=True)
    a = ap.parse_args()
    prefix = install(a.build_dir, a.source_dir, a.work)
    build = os.path.join(a.work, "clblast")
    build_project(os.path.join(a.source_dir, "plugins", "clblast"), build, prefix, a.generator)
    plugin = os.path.join(build, "libgp_clblast.so")

    gradparity = os.path.join(prefix, "bin", "gradparity")
    listing = list_backends(gradparity, plugin)
    check("thread-safety contract: serialised" in listing and "math profile: opencl" in listing, listing)
    rc, checks = run_plugin(gradparity, plugin, ["matmul", "linear", "exp"], os.path.join(a.work, "report"))
    passes = check_verdicts(checks, "clblast", ("matmul", "linear"), ("f32", "f64"))
    for c in checks:
        if c["op"] in ("matmul", "linear") and c["dtype"] in ("f16", "bf16"):
            check(c["reason"] == f"not implemented by plugin clblast: its device has no {c['dtype']}", str(c))
    long_dots = {c["case_id"] for c in checks if c["verdict"] == "PASS" and "long" in c["case_id"]}
    check(len(long_dots) == 6, f"the hard regimes' long dot products passed in {sorted(long_dots)}")
    check(rc == 0, f"gradparity run exited with {rc}")
    print(f"clblast: {sum(passes.values())} checks PASS, {len(checks) - sum(passes.values())} SKIP")


if __name__ == "__main__":
    main()
