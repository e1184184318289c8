"""Starts the wire-peer fixture (our server or client) for the Python suites."""

import os
import resource
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def binary():
    path = os.environ.get("WIRE_PEER") or os.path.join(ROOT, ".build", "debug", "wire-peer")
    if not os.path.exists(path):
        sys.exit(f"wire-peer not found at {path}: run `swift build --product wire-peer` first")
    return path


def raise_file_limit(wanted=4096):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


class Server:
    """Our server with the test routes; `with Server() as port:`."""

    def __init__(self, *arguments):
        self.arguments = list(arguments)
        self.process = None
        self.port = None

    def __enter__(self):
        raise_file_limit()
        self.process = subprocess.Popen(
            [binary(), "server", *self.arguments], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, bufsize=1)
        line = self.process.stdout.readline().strip()
        if not line.startswith("port "):
            raise RuntimeError(f"wire-peer server did not start: {line!r}")
        self.port = int(line.split()[1])
        return self

    def shutdown(self, timeout=15):
        """Asks for a graceful shutdown; returns the lines printed until it stopped."""
        lines = []
        if self.process.poll() is None:
            try:
                out, _ = self.process.communicate(input="shutdown\n", timeout=timeout)
                lines = out.splitlines()
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.communicate()
                lines.append("timeout")
        return lines

    def __exit__(self, *exc):
        if self.process and self.process.poll() is None:
            self.shutdown()


def run_client(*arguments, timeout=30):
    """Runs our client once and returns its output lines."""
    result = subprocess.run([binary(), "client", *arguments], capture_output=True, text=True,
                            timeout=timeout)
    return result.stdout.splitlines()


class Report:
    """Counts results and prints the closing line the CI reads ('N passed, N failed')."""

    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0
        self.failures = []

    def check(self, label, ok, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(f"{label}: {detail}")
            print(f"FAIL {label}: {detail}", flush=True)
        return ok

    def finish(self):
        print(f"{self.name}: {self.passed} passed, {self.failed} failed", flush=True)
        return 0 if self.failed == 0 else 1
