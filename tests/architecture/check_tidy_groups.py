#!/usr/bin/env python3
"""ci/tidy_groups.py on a small tree of its own: a finding in a grouped unit is reported at its
own file; two units that define the same name in an anonymous namespace (their group does not
compile as one unit) are checked one by one and pass; a clean tree passes.
Usage: check_tidy_groups.py TIDY_GROUPS_PY WORK_DIR"""
import json
import os
import shutil
import subprocess
import sys

CONFIG = """Checks: '-*,readability-identifier-naming'
WarningsAsErrors: '*'
HeaderFilterRegex: '.*/gated/.*'
CheckOptions:
  - { key: readability-identifier-naming.FunctionCase, value: lower_case }
"""
SHARED_NAME = "namespace {\nconstexpr int kShared = %d;\n}\nint %s() { return kShared; }\n"
SOURCES = {
    "a.cpp": SHARED_NAME % (1, "value_a"),
    "b.cpp": SHARED_NAME % (2, "value_b"),
    "c.cpp": "int BadName() { return 3; }\n",
    "d.cpp": "int value_d() { return 4; }\n",
}


def run(script, root, build):
    proc = subprocess.run([sys.executable, script, build, root, "gated", "--group-size", "2", "--jobs", "2"],
                          capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def main():
    script, work = sys.argv[1], os.path.realpath(sys.argv[2])
    root = os.path.join(work, "tidy-groups-tree")
    shutil.rmtree(root, ignore_errors=True)
    build = os.path.join(root, "build")
    os.makedirs(os.path.join(root, "gated"))
    os.makedirs(build)
    with open(os.path.join(root, ".clang-tidy"), "w") as f:
        f.write(CONFIG)
    db = []
    for name, text in SOURCES.items():
        path = os.path.join(root, "gated", name)
        with open(path, "w") as f:
            f.write(text)
        db.append({"directory": build, "file": path, "command": f"/usr/bin/c++ -std=c++20 -o {name}.o -c {path}"})
    with open(os.path.join(build, "compile_commands.json"), "w") as f:
        json.dump(db, f)

    failures = []
    code, out = run(script, root, build)
    bad = os.path.join(root, "gated", "c.cpp")
    if code != 1 or f"{bad}:1:5: error: invalid case style for function 'BadName'" not in out:
        failures.append(f"the finding in c.cpp, grouped with d.cpp, was not reported at c.cpp (exit {code})")
    if "clang-diagnostic-error" in out or "2 of them one by one" not in out:
        failures.append("a.cpp and b.cpp, which share a name, were not checked one by one")

    with open(bad, "w") as f:
        f.write("int good_name() { return 3; }\n")
    code, clean_out = run(script, root, build)
    if code != 0:
        failures.append(f"the clean tree did not pass (exit {code})")

    for f in failures:
        print("FAIL:", f)
    if failures:
        print("--- output with the finding ---\n" + out + "--- output of the clean tree ---\n" + clean_out)
        return 1
    print("tidy_groups: grouped findings, one-by-one fallback and a clean tree as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
