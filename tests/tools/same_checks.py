#!/usr/bin/env python3
"""Compares two parity.json files check by check, for a change that must not alter behaviour
(a refactoring): the same checks (case, backend, dtype, direction, input, part), the same
verdicts, and identical metrics, bounds and worst elements. Times, the reason's wording and the
fields a newer schema adds are not compared. Exit 0 when identical, 1 otherwise (the first
differences listed).

  tests/tools/same_checks.py OLD/parity.json NEW/parity.json
"""
import json
import math
import sys

METRICS = ["max_abs", "max_rel", "max_ulp", "nmse", "bound", "margin", "elements", "nonfinite",
           "sensitivity_ulp", "budget_ulp"]


def key(c):
    return (c["case_id"], c["backend"], c["dtype"], c["direction"], c.get("input"), c.get("part", ""))


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    checks = {}
    for c in doc["checks"]:
        k = key(c)
        if k in checks:
            raise SystemExit(f"{path}: two checks with the key {k}")
        checks[k] = c
    return checks


def differences(old, new):
    for k in sorted(set(old) | set(new), key=str):
        if k not in new:
            yield f"{k}: only in the first"
            continue
        if k not in old:
            yield f"{k}: only in the second"
            continue
        a, b = old[k], new[k]
        for field in ["verdict", "tolerance"] + METRICS + ["worst"]:
            if not same(a.get(field), b.get(field)):
                yield f"{k}: {field} {a.get(field)!r} -> {b.get(field)!r}"


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    old, new = load(sys.argv[1]), load(sys.argv[2])
    diff = list(differences(old, new))
    for line in diff[:40]:
        print(line)
    print(f"{len(old)} and {len(new)} checks; {len(diff)} differences")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
