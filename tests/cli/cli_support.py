"""What the end-to-end scripts of tests/cli share: running the built gradparity, recording each
check's outcome, and a usage error's contract (exit 2, one line naming the bad value)."""
import os
import shutil
import subprocess


class Checks:
    def __init__(self, exe):
        self.exe = exe
        self.failures = []

    def run(self, args, env=None, **kw):
        return subprocess.run([self.exe, *args], capture_output=True, text=True, env=env, **kw)

    def check(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            self.failures.append(what)

    def expect_usage_error(self, args, needle, what):
        r = self.run(args)
        lines = r.stderr.strip().splitlines()
        self.check(r.returncode == 2 and len(lines) == 1 and needle in r.stderr,
                   f"{what}: exit {r.returncode}, stderr {r.stderr.strip()!r}")


def fresh_work_dir(path):
    """An empty folder at path, and a joiner of paths inside it."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return lambda *p: os.path.join(path, *p)


def exp_wrong_in_band(examples, dest):
    """A copy of the OpenCL example kernels (examples/kernels-opencl) whose f32 exp is wrong, by
    1e-4 of its value, only for x in [88.0, 88.5]: far from every catalog sample of exp."""
    shutil.copytree(examples, dest)
    path = os.path.join(dest, "exp.cl")
    with open(path) as f:
        text = f.read()
    correct = "out[i] = exp(in0[i]);"
    assert correct in text, f"{correct!r} not in {path}"
    with open(path, "w") as f:
        f.write(text.replace(correct, "out[i] = exp(in0[i]) * (in0[i] >= 88.0f && in0[i] <= 88.5f ? 1.0001f : 1.0f);"))
    return dest
