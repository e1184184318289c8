"""Shared helpers for the end-to-end tests: find the binaries, wait for conditions with a
deadline (never a bare sleep), count results.

With CHAT_E2E_TLS=1 in the environment, every `Server` serves HTTPS and WSS with certificates
made for the run by scripts/make-test-certificates, and every `Device` reaches it at
https://localhost:PORT trusting only that run's CA (`chat --ca-file`)."""

import functools
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@functools.cache
def bin_path():
    """Where `chat` and `chat-server` are: CHAT_E2E_BIN when set (release binaries, say, for a
    long run: CHAT_E2E_BIN=.build/release), else the debug build's folder."""
    if os.environ.get("CHAT_E2E_BIN"):
        return os.path.abspath(os.environ["CHAT_E2E_BIN"])
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



def tls_requested():
    return os.environ.get("CHAT_E2E_TLS") == "1"


@functools.cache
def certificates():
    """The folder of this run's test certificates (made once, removed at exit by the caller's
    temporary folder clean-up of the system)."""
    folder = tempfile.mkdtemp(prefix="chat-e2e-certs-")
    subprocess.run([os.path.join(ROOT, "scripts", "make-test-certificates"), folder], check=True,
                   capture_output=True)
    return folder


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """The real `chat-server` binary on a free loopback port, data in `folder`."""

    def __init__(self, folder, port=None, extra=(), tls=None):
        self.folder = folder
        self.port = port or free_port()
        self.extra = list(extra)
        self.tls = tls_requested() if tls is None else tls
        self.process = None

    @property
    def url(self):
        return f"https://localhost:{self.port}" if self.tls else f"http://127.0.0.1:{self.port}"

    @property
    def ca_file(self):
        """The CA a client must trust to reach this server, or None over plain HTTP."""
        return os.path.join(certificates(), "ca.pem") if self.tls else None

    def start(self):
        tls = []
        if self.tls:
            tls = ["--tls-cert", os.path.join(certificates(), "server.pem"),
                   "--tls-key", os.path.join(certificates(), "server.key")]
        self.process = subprocess.Popen(
            [f"{bin_path()}/chat-server", "--dev", "--port", str(self.port), "--data", self.folder,
             *tls, *self.extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for("the server to answer", self.healthy, timeout=30)
        return self

    def healthy(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as connection:
                if self.tls:
                    context = ssl.create_default_context(cafile=self.ca_file)
                    connection = context.wrap_socket(connection, server_hostname="localhost")
                connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                return b"200" in connection.recv(64)
        except OSError:
            return False

    def metric(self, name):
        """The value of `name` in the server's /metrics (None when absent)."""
        import re
        import urllib.request

        context = ssl.create_default_context(cafile=self.ca_file) if self.tls else None
        with urllib.request.urlopen(f"{self.url}/metrics", context=context, timeout=10) as reply:
            page = reply.read().decode()
        found = re.search(rf"^{name} (\d+)$", page, re.MULTILINE)
        return int(found.group(1)) if found else None

    def wait_for_erasure(self):
        """Waits until no stored delete or edit waits for its erasure pass (the search indexes
        merged, the log emptied): before reading the server's files for erased text."""
        wait_for("the server's erasure pass", lambda: self.metric("chat_store_erasure_owed") == 0)

    def stop(self, sig=signal.SIGTERM):
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)


class Device:
    """One `chat` client with a database of its own."""

    def __init__(self, server, user, device, root, trusts_server=True):
        self.server = server
        self.user = user
        self.device = device
        self.data = os.path.join(root, f"{user}-{device}")
        # The CA file it trusts: the server's (over TLS), or none (the system's store).
        self.ca_file = getattr(server, "ca_file", None) if trusts_server else None

    def args(self, *command):
        return [
            f"{bin_path()}/chat",
            "--server",
            self.server.url,
            "--user",
            self.user,
            "--device",
            self.device,
            "--data",
            self.data,
            *(["--ca-file", self.ca_file] if self.ca_file else []),
            *command,
        ]

    def run(self, *command, check=True):
        result = subprocess.run(self.args(*command), capture_output=True, text=True, timeout=60)
        if check and result.returncode != 0:
            raise AssertionError(
                f"{self.user}/{self.device} {' '.join(command)} exited {result.returncode}: "
                f"{result.stderr.strip()}"
            )
        return result

    def json(self, *command):
        return json.loads(self.run(*command, "--json").stdout)

    def messages(self, conversation):
        return self.json("messages", conversation, "--limit", "100000")

    def database(self):
        return os.path.join(self.data, "chat.sqlite")


def sign_in_and_create(devices, creator, title, members):
    """Every device signs in, `creator` creates a conversation with `members` (user ids,
    comma-separated), every device syncs; returns the conversation's id."""
    for device in devices:
        device.run("login")
    chat = creator.json("create", "--title", title, "--members", members)["id"]
    for device in devices:
        device.run("sync")
    return chat


def same_order_everywhere(devices, chat):
    """After a sync on each, every device holds the same messages in the same order, sequences
    1…N, no message twice; returns the devices' views."""
    for device in devices:
        device.run("sync")
    views = [device.messages(chat) for device in devices]
    keys = [[(m["sequence"], m["clientMessageId"]) for m in view] for view in views]
    assert all(key == keys[0] for key in keys), "the devices disagree on the order"
    sequences = [m["sequence"] for m in views[0]]
    assert sequences == list(range(1, len(sequences) + 1)), sequences
    ids = [m["clientMessageId"] for m in views[0]]
    assert len(ids) == len(set(ids)), f"{len(ids)} messages, {len(set(ids))} distinct"
    return views


def postgres_local(*arguments):
    """Runs scripts/postgres-local (a throwaway PostgreSQL cluster); returns what it printed."""
    return subprocess.run([os.path.join(ROOT, "scripts", "postgres-local"), *arguments],
                          stdout=subprocess.PIPE, text=True, check=True).stdout


def temporary_folder(prefix):
    return tempfile.mkdtemp(prefix=prefix)


def remove(folder):
    shutil.rmtree(folder, ignore_errors=True)


class Listener:
    """A `chat listen` process and the JSON lines it printed."""

    def __init__(self, device, *options):
        self.device = device
        self.lines = []
        self.lock = threading.Lock()
        self.process = subprocess.Popen(device.args("listen", *options), stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            with self.lock:
                self.lines.append(json.loads(line))

    def printed(self):
        with self.lock:
            return list(self.lines)

    def states(self):
        return [line["state"] for line in self.printed() if line["type"] == "connection"]

    def messages(self, chat):
        """Each message heard, by clientMessageId: every (sequence, text) it was printed with."""
        heard = {}
        for line in self.printed():
            if line["type"] == "message" and line["message"]["conversationId"] == chat:
                message = line["message"]
                if message["sequence"] is not None:
                    heard.setdefault(message["clientMessageId"], set()).add(
                        (message["sequence"], message["text"]))
        return heard

    def receipt_states(self, message_id):
        """Every receipt state this message was printed with (any, once heard)."""
        return [line["message"]["receipt"] for line in self.printed()
                if line["type"] == "message" and line["message"]["clientMessageId"] == message_id]

    def stop(self):
        self.process.terminate()
        return self.process.wait(timeout=30)
