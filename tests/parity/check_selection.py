#!/usr/bin/env python3
"""Checks that every registered parity ctest entry runs exactly the subjects its name says, and that
the entries together run the parity program's whole table once.

Usage: check_selection.py CTEST BUILD_DIR GP_PARITY_TESTS

Reads the commands of every ctest entry labelled `parity` (ctest --show-only=json-v1), writes
them one entry a line (name, then the arguments, tab-separated), and has the parity program
replay them through its own argument parsing and selection (--gp-check-selection). An entry that
would select other than its op's cases or its one subject, or leave arguments to gtest's filter,
fails it, and so does an entry of the table that is not registered exactly once.
"""
import json
import subprocess
import sys
import tempfile


def main():
    ctest, build_dir, parity = sys.argv[1:4]
    listing = subprocess.run([ctest, "--test-dir", build_dir, "--show-only=json-v1", "-L", "^parity$"],
                             check=True, capture_output=True, text=True).stdout
    entries = []
    for test in json.loads(listing)["tests"]:
        command = test.get("command") or []
        if "/" not in test["name"] or not command or not command[0].endswith("gp_parity_tests"):
            continue
        entries.append("\t".join([test["name"]] + command[1:]))
    if not entries:
        print("no parity entries registered: nothing would run")
        return 1
    with tempfile.NamedTemporaryFile("w", suffix=".tsv") as f:
        f.write("\n".join(entries) + "\n")
        f.flush()
        return subprocess.run([parity, "--gp-check-selection=" + f.name]).returncode


if __name__ == "__main__":
    sys.exit(main())
