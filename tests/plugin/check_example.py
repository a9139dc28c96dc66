#!/usr/bin/env python3
"""ctest plugin/example: gradparity installed into a temporary prefix, used from outside the tree.

1. `cmake --install` into WORK/staging, moved to WORK/prefix; no installed file may name the
   source, build or staging folder.
2. examples/plugin-minimal configured and built against the prefix (find_package(gradparity
   CONFIG), gradparity::plugin), and a C++ program against gradparity::backend_api.
3. The installed gradparity runs the plugin: its ops (exp, add, matmul in f32 and f64) PASS,
   every other selected check SKIPs "not implemented by plugin minimal", nothing fails.
"""
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


def install_moved(build_dir, source_dir, work):
    """A fresh WORK with gradparity installed into one folder and moved to WORK/prefix (returned):
    the package must be relocatable."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    staging, prefix = os.path.join(work, "staging"), os.path.join(work, "prefix")
    run(["cmake", "--install", build_dir, "--prefix", staging], stdout=subprocess.DEVNULL)
    os.rename(staging, prefix)
    installed_paths_are_relative(prefix, [os.path.realpath(source_dir), os.path.realpath(build_dir), staging])
    return prefix


def plugin_checks(report):
    """The checks of a report that ran on a plugin backend."""
    return [c for c in json.load(open(os.path.join(report, "parity.json")))["checks"]
            if c["backend"].startswith("plugin:")]


CXX_CONSUMER = """
cmake_minimum_required(VERSION 3.25)
project(consumer LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(gradparity CONFIG REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE gradparity::backend_api)
"""
CXX_MAIN = """
#include <cstdio>
#include "backends/backend.hpp"
int main() {
  const gp::OpCall c = gp::make_call(gp::OpKind::matmul, {}, gp::DType::f64, {gp::Shape{16, 7}, gp::Shape{7, 9}});
  std::printf("%s %s\\n", std::string(gp::op_name(c.kind)).c_str(), c.output_shape.to_string().c_str());
}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--generator", required=True)
    a = ap.parse_args()
    prefix = install_moved(a.build_dir, a.source_dir, a.work)

    example = os.path.join(a.work, "example")
    configure = ["-G", a.generator, f"-DCMAKE_PREFIX_PATH={prefix}"]
    run(["cmake", "-S", os.path.join(a.source_dir, "examples", "plugin-minimal"), "-B", example] + configure,
        cwd=a.work)
    run(["cmake", "--build", example], cwd=a.work)
    plugin = os.path.join(example, "libgp_minimal_plugin.so")

    consumer = os.path.join(a.work, "consumer")
    os.makedirs(consumer)
    open(os.path.join(consumer, "CMakeLists.txt"), "w").write(CXX_CONSUMER)
    open(os.path.join(consumer, "main.cpp"), "w").write(CXX_MAIN)
    run(["cmake", "-S", consumer, "-B", os.path.join(consumer, "build")] + configure, cwd=a.work)
    run(["cmake", "--build", os.path.join(consumer, "build")], cwd=a.work)
    out = run([os.path.join(consumer, "build", "consumer")], capture_output=True, text=True).stdout
    check(out.strip() == "matmul 16x9", f"the backend_api consumer printed {out!r}")

    gradparity = os.path.join(prefix, "bin", "gradparity")
    listing = run([gradparity, "list", "backends", "--backend", "plugin:" + plugin], capture_output=True,
                  text=True).stdout
    check("thread-safety contract: full" in listing and "math profile: cpu" in listing, listing)
    report = os.path.join(a.work, "report")
    # Not check=True: a failing check is named from parity.json below.
    rc = subprocess.run([gradparity, "run", "--backend", "plugin:" + plugin, "--op", "exp,add,matmul,sub,tanh",
                         "--jobs", "2", "--no-progress", "--report-dir", report], stdout=subprocess.DEVNULL).returncode
    checks = plugin_checks(report)
    passes = collections.Counter()
    for c in checks:
        key = f"{c['case_id']} {c['direction']}: {c['verdict']} {c['reason']}"
        check(c["verdict"] in ("PASS", "SKIP"), key)
        implemented = c["op"] in ("exp", "add", "matmul") and c["dtype"] in ("f32", "f64")
        if c["verdict"] == "PASS":
            check(implemented, key)
            passes[(c["op"], c["dtype"], c["direction"])] += 1
        elif not implemented:
            check(c["reason"].startswith("not implemented by plugin minimal"), key)
    for op in ("exp", "add", "matmul"):
        for dtype in ("f32", "f64"):
            for direction in ("forward", "backward"):
                check(passes[(op, dtype, direction)] > 0, f"no {op} {dtype} {direction} check passed")
    check(rc == 0, f"gradparity run exited with {rc}")
    print(f"plugin-minimal: {sum(passes.values())} checks PASS, {len(checks) - sum(passes.values())} SKIP")


if __name__ == "__main__":
    main()
