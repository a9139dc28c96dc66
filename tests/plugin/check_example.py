#!/usr/bin/env python3
"""ctest plugin/example: gradparity installed into a temporary prefix, used from outside the tree.

1. `cmake --install` into WORK/staging, moved to WORK/prefix; no installed file may name the
   source, build or staging folder.
2. examples/plugin-minimal configured and built against the prefix (find_package(gradparity
   CONFIG), gradparity::plugin), and a C++ program against gradparity::backend_api.
3. The installed gradparity runs the plugin: its ops (exp, add, matmul in f32 and f64) PASS,
   every other selected check SKIPs "not implemented by plugin minimal", nothing fails.
"""
import os

from installed import build_project, check, check_verdicts, installed_plugin, list_backends, run, run_plugin


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
    a, prefix, plugin = installed_plugin(os.path.join("examples", "plugin-minimal"), "libgp_minimal_plugin.so")

    consumer = os.path.join(a.work, "consumer")
    os.makedirs(consumer)
    open(os.path.join(consumer, "CMakeLists.txt"), "w").write(CXX_CONSUMER)
    open(os.path.join(consumer, "main.cpp"), "w").write(CXX_MAIN)
    build_project(consumer, os.path.join(consumer, "build"), prefix, a.generator)
    out = run([os.path.join(consumer, "build", "consumer")], capture_output=True, text=True).stdout
    check(out.strip() == "matmul 16x9", f"the backend_api consumer printed {out!r}")

    gradparity = os.path.join(prefix, "bin", "gradparity")
    listing = list_backends(gradparity, plugin)
    check("thread-safety contract: full" in listing and "math profile: cpu" in listing, listing)
    rc, checks = run_plugin(gradparity, plugin, ["exp", "add", "matmul", "sub", "tanh"],
                            os.path.join(a.work, "report"))
    passes = check_verdicts(checks, "minimal", ("exp", "add", "matmul"), ("f32", "f64"))
    check(rc == 0, f"gradparity run exited with {rc}")
    print(f"plugin-minimal: {sum(passes.values())} checks PASS, {len(checks) - sum(passes.values())} SKIP")


if __name__ == "__main__":
    main()
