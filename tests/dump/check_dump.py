#!/usr/bin/env python3
"""`gradparity dump` writes files that NumPy itself loads.

Usage: check_dump.py GRADPARITY WORK_DIR

For every op of the catalog, the first case of each dtype is dumped on the cpu backend, and
every .npy file of every dump is loaded with numpy.load. Shapes must agree (a gradient has its
input's shape; the backend's output the reference's), and an input without a gradient (the
targets of cross_entropy, the noise of gumbel_softmax) has no gradient file at all.
The first composite of each model is dumped too: every tensor of its graph, reference and
backend, each backend array shaped like the reference's, each gradient like its tensor.
"""
import os
import re
import shutil
import subprocess
import sys

import numpy as np


def first_case_per_op_and_dtype(gradparity):
    listing = subprocess.run([gradparity, "list", "cases"], check=True, capture_output=True, text=True).stdout
    chosen = {}
    for line in listing.splitlines()[1:]:
        if line.startswith("models"):
            break
        case = line.split("  [", 1)[0].strip()
        op = case.split("(", 1)[0]
        dtype = re.search(r"dtype=(\w+)\)$", case).group(1)
        chosen.setdefault((op, dtype), case)
    return chosen


def first_composite_per_model(gradparity):
    listing = subprocess.run([gradparity, "list", "cases"], check=True, capture_output=True, text=True).stdout
    models = listing.split("\nmodels", 1)[1].split("\nlarge cases", 1)[0].splitlines()[1:]
    chosen = {}
    for line in models:
        model_id = line.split("  [", 1)[0].strip()
        chosen.setdefault(model_id.split("(", 1)[0], model_id)
    return chosen


def check_composite(gradparity, model_id, out):
    run = subprocess.run([gradparity, "dump", model_id, "--backend", "cpu", "--out", out], capture_output=True,
                         text=True)
    if run.returncode != 0:
        return [f"{model_id}: dump exited {run.returncode}: {run.stderr.strip()}"]
    arrays = {n: np.load(os.path.join(out, n)) for n in sorted(os.listdir(out)) if n.endswith(".npy")}
    problems = []
    reference = {n[len("reference_"):]: a for n, a in arrays.items() if n.startswith("reference_")}
    device = {n[len("cpu_"):]: a for n, a in arrays.items() if n.startswith("cpu_")}
    if not reference or set(reference) != set(device):
        problems.append(f"{model_id}: reference and cpu tensors differ: {sorted(set(reference) ^ set(device))}")
    for name, a in device.items():
        if name in reference and reference[name].shape != a.shape:
            problems.append(f"{model_id}: {name} has shape {a.shape}, the reference's {reference[name].shape}")
        if name.startswith("grad_") and name[len("grad_"):] in reference:
            if reference[name[len("grad_"):]].shape != a.shape:
                problems.append(f"{model_id}: {name} is not shaped like its tensor")
    return problems


def check_one(gradparity, case, out):
    run = subprocess.run([gradparity, "dump", case, "--backend", "cpu", "--out", out], capture_output=True, text=True)
    if run.returncode != 0:
        return [f"{case}: dump exited {run.returncode}: {run.stderr.strip()}"]
    problems = []
    arrays = {}
    for name in sorted(os.listdir(out)):
        if name.endswith(".npy"):
            try:
                arrays[name] = np.load(os.path.join(out, name))
            except Exception as e:  # numpy says what is wrong with the file
                problems.append(f"{case}: numpy.load({name}) failed: {e}")
    inputs = sorted(n for n in arrays if re.fullmatch(r"input\d+\.npy", n))
    if not inputs or "reference_output.npy" not in arrays:
        problems.append(f"{case}: missing inputs or the reference output among {sorted(arrays)}")
        return problems
    if "cpu_output.npy" not in arrays:  # the backend skips the case: then it wrote nothing
        if any(n.startswith("cpu_") for n in arrays):
            problems.append(f"{case}: backend files without the backend's output: {sorted(arrays)}")
        return problems
    if arrays["cpu_output.npy"].shape != arrays["reference_output.npy"].shape:
        problems.append(f"{case}: output shapes differ")
    for name in inputs:
        k = name[len("input"):-len(".npy")]
        has_ref, has_cpu = f"reference_grad{k}.npy" in arrays, f"cpu_grad{k}.npy" in arrays
        if has_ref != has_cpu:
            problems.append(f"{case}: gradient {k} written for one side only")
        for g in (f"reference_grad{k}.npy", f"cpu_grad{k}.npy"):
            if g in arrays and arrays[g].shape != arrays[name].shape:
                problems.append(f"{case}: {g} has shape {arrays[g].shape}, its input {arrays[name].shape}")
        if arrays[name].dtype == np.int32 and (has_ref or has_cpu):
            problems.append(f"{case}: integer input {k} has a gradient file")
    return problems


def main():
    gradparity, work = sys.argv[1:3]
    shutil.rmtree(work, ignore_errors=True)  # files of an earlier run must not count
    cases = first_case_per_op_and_dtype(gradparity)
    problems, files = [], 0
    for i, case in enumerate(sorted(cases.values())):
        out = os.path.join(work, f"dump{i}")
        problems += check_one(gradparity, case, out)
        files += sum(n.endswith(".npy") for n in os.listdir(out)) if os.path.isdir(out) else 0
    composites = first_composite_per_model(gradparity)
    for i, model_id in enumerate(sorted(composites.values())):
        out = os.path.join(work, f"model{i}")
        problems += check_composite(gradparity, model_id, out)
        files += sum(n.endswith(".npy") for n in os.listdir(out)) if os.path.isdir(out) else 0
    for p in problems:
        print(p)
    print(f"{len(cases)} dumps and {len(composites)} of composite models, {files} .npy files loaded with NumPy {np.__version__}, {len(problems)} problem(s)")
    return 1 if problems or not cases or not composites else 0


if __name__ == "__main__":
    sys.exit(main())
