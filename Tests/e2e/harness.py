"""Shared helpers for the end-to-end tests: find the binaries, wait for conditions with a
deadline (never a bare sleep), count results."""

import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def bin_path():
    out = subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def wait_for(what, condition, timeout=20.0, interval=0.05):
    """Polls `condition` until it returns a truthy value or `timeout` passes; fails loudly."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = condition()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}; last: {last!r}")


class Results:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0

    def check(self, label, function):
        try:
            function()
            self.passed += 1
            print(f"  ok    {label}", flush=True)
        except Exception as error:  # noqa: BLE001 - a failed check is reported, not raised
            self.failed += 1
            print(f"  FAIL  {label}: {error}", flush=True)

    def finish(self):
        print(f"{self.name}: {self.passed} passed, {self.failed} failed", flush=True)
        sys.exit(1 if self.failed else 0)
