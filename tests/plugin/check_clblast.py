#!/usr/bin/env python3
"""ctest plugin/clblast: plugins/clblast built against gradparity installed into a temporary
prefix, run on the first OpenCL device (PoCL in CI).

matmul and linear PASS forward and backward in f32 on every catalog case (the hard regimes'
long dot products of inner size 1024 and 4096 included), reshape (a buffer copy) too, the other
op named (exp) SKIPs "not
implemented by plugin clblast", nothing fails; the plugin declares the serialised contract and
the opencl math profile; `bench` reads its arithmetic probe (an OpenCL `fma` chain kernel on the
plugin's own queue) and gives its GEMM rows a roofline fraction. f32 only: PoCL compiles each
CLBlast program on first use (about 40 s for the f32 ones on the 2-core CI machine, then cached
in POCL_CACHE_DIR), and f64 runs the same template code; docs/plugins-clblast.md has the run of
both dtypes.
"""
import os

from installed import check, check_bench_probes, check_verdicts, installed_plugin, list_backends, run_plugin


def main():
    a, prefix, plugin = installed_plugin(os.path.join("plugins", "clblast"), "libgp_clblast.so")

    gradparity = os.path.join(prefix, "bin", "gradparity")
    listing = list_backends(gradparity, plugin)
    check("thread-safety contract: serialised" in listing and "math profile: opencl" in listing, listing)
    check("arithmetic probe" in listing, f"the listing names no arithmetic probe: {listing}")
    rc, checks = run_plugin(gradparity, plugin, ["matmul", "linear", "reshape", "exp"], os.path.join(a.work, "report"),
                            ["--dtype", "f32"])
    passes = check_verdicts(checks, "clblast", ("matmul", "linear", "reshape"), ("f32",))
    long_dots = {c["case_id"] for c in checks if c["verdict"] == "PASS" and "long" in c["case_id"]}
    check(len(long_dots) == 3, f"the hard regimes' long dot products passed in {sorted(long_dots)}")
    check(rc == 0, f"gradparity run exited with {rc}")
    # bench reads the plugin's probes: a copy bandwidth, an arithmetic rate, a roofline fraction.
    rate = check_bench_probes(gradparity, plugin, a.work)
    print(f"clblast: {sum(passes.values())} checks PASS, {len(checks) - sum(passes.values())} SKIP; "
          f"arithmetic probe {rate:.1f} GFLOP/s")

if __name__ == "__main__":
    main()
