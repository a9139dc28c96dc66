#!/usr/bin/env python3
"""clang-tidy over the style gate's translation units, a group of them at a time (ci/lint.sh).

Each translation unit of the gated folders includes the same standard, fmt and json headers, and
clang-tidy 14 parses them and runs every matcher over them once per unit: three quarters of its
time on a unit of the project (1.2 s of parsing and 2.1 s of matching for harness/check/checker.cpp,
against the unit's own few hundred lines). Here the units that compile with the same flags are
checked in groups: a generated file that includes GROUP_SIZE of them, so those headers are parsed
and matched once per group. A finding in an included unit is reported at its own file and line
(the gated folders are in .clang-tidy's HeaderFilterRegex). Units of one group share a
translation unit, so two of them may define the same name in an anonymous namespace: a group
that does not compile is checked again in halves, down to single units where need be (13 units
one at a time took a fifth of the gate's time where one such pair sat in a group). Groups of up
to 40 units: the gate's 121 units on 2 cores took 82 s in groups of 14 and 53 s in groups of 40
(5 groups; 620 MB at the peak); groups of 64 met such a pair in harness/.

Usage: tidy_groups.py COMPILE_DB_DIR SOURCE_ROOT FOLDER... [--jobs N] [--group-size N]
Prints every finding (deduplicated, sorted) and exits 1 if there is one, 2 on a usage error.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

# A diagnostic line of clang-tidy: path:line:col: severity: text [names].
DIAGNOSTIC = re.compile(r"^(?P<path>[^:\s][^:]*):\d+:\d+: (?P<severity>error|warning): .*$")
# What the compiler, not a check, reports: the group does not compile as one unit.
COMPILE_ERROR = "[clang-diagnostic-error]"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("db_dir", help="the build folder whose compile_commands.json says how each unit compiles")
    p.add_argument("root", help="the source tree's root")
    p.add_argument("folders", nargs="+", help="gated folders, relative to the root")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--group-size", type=int, default=40)
    return p.parse_args()


def flags_of(entry):
    """The compile command's flags without the compiler, the output, the input and the build's
    precompiled header, which is GCC's and which clang cannot read (clang-tidy parses the headers
    themselves, as a build without it would)."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out, skip = [], 0
    for i, a in enumerate(args[1:], 1):
        if skip:
            skip -= 1
        elif a in ("-o", "-c"):
            skip = 1
        elif a == "-include" and i + 1 < len(args) and args[i + 1].endswith("cmake_pch.hxx"):
            skip = 1
        elif a != entry["file"] and a != "-Winvalid-pch":
            out.append(a)
    return out


# A unity build's generated unit (CMake's UNITY_BUILD, the ci preset): the compile database names it
# instead of the sources it includes, which compile with its flags.
UNITY_UNIT = re.compile(r"/Unity/unity_[0-9]+_cxx\.cxx$")
UNITY_INCLUDE = re.compile(r'^#include "(?P<path>[^"]+)"$')


def sources_of(path):
    """The project sources a compile database entry compiles: the entry's file, or the sources a
    unity unit includes."""
    if not UNITY_UNIT.search(path):
        return [path]
    with open(path) as f:
        return [os.path.realpath(m.group("path")) for m in map(UNITY_INCLUDE.match, f) if m]


def run_tidy(argv, unit, cwd):
    """clang-tidy's diagnostic lines, and whether the unit did not compile. A run that fails
    without a diagnostic (clang-tidy itself failing) is a finding too: the gate never passes
    what it did not check."""
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd)
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", l) for l in (proc.stdout + proc.stderr).splitlines()]
    found = [l for l in lines if DIAGNOSTIC.match(l)]
    if proc.returncode != 0 and not found:
        tail = " | ".join(lines[-3:])
        found = [f"{unit}: error: clang-tidy exited with {proc.returncode} and no finding: {tail}"]
    return found, any(COMPILE_ERROR in l for l in found)


def main():
    args = parse_args()
    if args.group_size < 1 or args.jobs < 1:
        print("tidy_groups: --group-size and --jobs must be at least 1", file=sys.stderr)
        return 2
    root = os.path.realpath(args.root)
    config = os.path.join(root, ".clang-tidy")
    db_path = os.path.join(args.db_dir, "compile_commands.json")
    try:
        with open(db_path) as f:
            db = json.load(f)
    except (OSError, ValueError) as e:
        print(f"tidy_groups: cannot read {db_path}: {e}", file=sys.stderr)
        return 2
    gated = re.compile("^" + re.escape(root) + "/(" + "|".join(map(re.escape, args.folders)) + r")/.*\.cpp$")
    by_flags = {}
    for entry in db:
        unit = os.path.realpath(os.path.join(entry.get("directory", ""), entry["file"]))
        for path in sources_of(unit):
            if gated.match(path):
                key = (entry.get("directory", "."), tuple(flags_of(entry)))
                by_flags.setdefault(key, []).append(path)
    checked = [p for files in by_flags.values() for p in files]
    empty = [d for d in args.folders if not any(p.startswith(os.path.join(root, d) + "/") for p in checked)]
    if empty:  # a misspelt folder would otherwise pass unchecked
        print(f"tidy_groups: no translation unit of {', '.join(empty)} in {db_path}", file=sys.stderr)
        return 2
    groups = []
    for key, files in by_flags.items():
        files.sort()
        count = -(-len(files) // args.group_size)  # groups of nearly equal size, none larger
        for k in range(count):
            groups.append((key, files[k * len(files) // count:(k + 1) * len(files) // count]))

    # GCC's warning options that clang does not know (-Wno-subobject-linkage) are not findings.
    tidy = ["clang-tidy", "-quiet", f"--config-file={config}", "--extra-arg=-Wno-unknown-warning-option"]
    with tempfile.TemporaryDirectory(prefix="tidy-groups-") as scratch:

        def check_units(files, name, directory, flags):
            """Findings of FILES checked as one unit, and how many were checked in smaller groups:
            where they do not compile as one, each half is checked again, down to single units
            as they are built (whose compile errors are findings)."""
            unit = os.path.join(scratch, f"{name}.cpp")
            with open(unit, "w") as f:
                for path in files:
                    f.write(f'#include "{path}"  // NOLINT(bugprone-suspicious-include)\n')
            found, broken = run_tidy(tidy + [unit, "--"] + list(flags), " ".join(files), directory)
            if not broken:
                return found, 0
            if len(files) == 1:
                return run_tidy(tidy + [files[0], "--"] + list(flags), files[0], directory)[0], 1
            half = len(files) // 2
            found, apart = [], 0
            for k, part in enumerate((files[:half], files[half:])):
                part_found, part_apart = check_units(part, f"{name}.{k}", directory, flags)
                found += part_found
                apart += part_apart or len(part)
            return found, apart

        def check_group(index_and_group):
            index, ((directory, flags), files) = index_and_group
            found, apart = check_units(files, f"group{index}", directory, flags)
            return found, len(files), apart

        findings, units, alone = set(), 0, 0
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            # The largest groups first, so that the last one to finish is a small one.
            order = sorted(enumerate(groups), key=lambda g: -len(g[1][1]))
            for found, n, n_alone in pool.map(check_group, order):
                findings.update(found)
                units += n
                alone += n_alone
    for line in sorted(findings):
        print(line)
    note = f", {alone} of them in smaller groups (theirs did not compile as one unit)" if alone else ""
    print(f"tidy_groups: {units} translation units in {len(groups)} groups{note}: {len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
