"""What the end-to-end scripts of tests/cli share: running the built gradparity, recording each
check's outcome, and a usage error's contract (exit 2, one line naming the bad value)."""
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
