"""Starts the real chat-server binary for the Python suites, and speaks API.md to it."""

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import uuid

import httpx
from websockets.sync.client import connect

from tls_socket import connect_wss

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def binary():
    path = os.environ.get("CHAT_SERVER_BINARY") or os.path.join(ROOT, ".build", "debug", "chat-server")
    if not os.path.exists(path):
        sys.exit(f"chat-server not found at {path}: run `swift build --product chat-server` first")
    return path


class Certificates:
    """The test certificates of scripts/make-test-certificates, made in a new temporary folder:
    `path("ca.pem")`, `arguments()` for the binary, `context()` for a client."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="chat-tls-")
        subprocess.run([os.path.join(ROOT, "scripts", "make-test-certificates"), self.folder], check=True)

    def path(self, name):
        return os.path.join(self.folder, name)

    def arguments(self, name="server"):
        """`--tls-cert NAME.pem --tls-key NAME.key`."""
        return ["--tls-cert", self.path(f"{name}.pem"), "--tls-key", self.path(f"{name}.key")]

    def context(self):
        """A client context that trusts the test root CA and nothing else (hostname checked)."""
        return ssl.create_default_context(cafile=self.path("ca.pem"))

    def remove(self):
        shutil.rmtree(self.folder, ignore_errors=True)


# The certificates every Server serves when a suite runs over TLS (contract.py --tls); None: plain.
suite_tls = None


# The PostgreSQL cluster every Server keeps its data in when a suite runs on PostgreSQL
# (contract.py --postgres DIR): its URL; None: SQLite in the data folder.
suite_postgres = None
# Its folder (scripts/postgres-local), for the cases that stop and start it.
suite_postgres_dir = None


def serve_postgres(folder):
    """From now on every Server started keeps its data in a database of its own in the cluster
    scripts/postgres-local started in `folder` (one database per data folder: a server started
    again on the same folder finds its data)."""
    global suite_postgres, suite_postgres_dir
    suite_postgres_dir = folder
    with open(os.path.join(folder, "url")) as handle:
        suite_postgres = handle.read().strip()


# The NATS cluster the nodes of a PostgreSQL suite relay their live events through
# (contract.py --relay DIR, a folder scripts/nats-local started): its URLs; None: NOTIFY.
suite_relay = None


def serve_relay(folder):
    """From now on every Server on PostgreSQL hands its live events to the other nodes through
    the NATS cluster scripts/nats-local started in `folder`."""
    global suite_relay
    with open(os.path.join(folder, "urls")) as handle:
        suite_relay = handle.read().strip()


def postgres_local(*arguments):
    """scripts/postgres-local on the suite's cluster: pause, resume, restart."""
    subprocess.run([os.path.join(ROOT, "scripts", "postgres-local"), arguments[0], suite_postgres_dir,
                    *arguments[1:]], check=True)


def postgres_database(cluster_url, data_folder):
    """The URL of the database that stands for `data_folder` in the cluster, created if new."""
    name = "chat_" + hashlib.sha1(data_folder.encode()).hexdigest()[:16]
    base = cluster_url.rsplit("/", 1)[0]
    exists = subprocess.run(
        ["psql", "-X", "-q", "-t", "-A", f"{base}/postgres", "-c",
         f"SELECT 1 FROM pg_database WHERE datname = '{name}'"],
        check=True, capture_output=True, text=True).stdout.strip()
    if exists != "1":
        subprocess.run(["psql", "-X", "-q", f"{base}/postgres", "-c", f"CREATE DATABASE {name}"],
                       check=True, capture_output=True)
    return f"{base}/{name}"


def psql(url, sql, *values):
    """The first column of the first row of `sql` (with psql variables :'v1', :'v2', ...)."""
    variables = [option for index, value in enumerate(values, 1) for option in ("-v", f"v{index}={value}")]
    result = subprocess.run(["psql", "-X", "-q", "-t", "-A", *variables, url],
                            input=sql, check=True, capture_output=True, text=True)
    return result.stdout.strip()


def serve_tls(certificates):
    """From now on every Server started serves TLS with these certificates, and its clients
    (`client`, `request`, `connect_live`, `open_socket`) trust only their root CA."""
    global suite_tls
    suite_tls = certificates


class Server:
    """The real binary on a free loopback port with a temporary data folder (or a given one).

    `with Server("--dev") as server:` ... `server.url`, `server.log_path`. After `serve_tls`, it
    serves TLS and its client helpers speak it; use them for every connection to it.
    """

    def __init__(self, *arguments, data=None, keep_data=False, preexec=None):
        self.certificates = suite_tls
        self.ssl_context = self.certificates.context() if self.certificates else None
        arguments = [*arguments, *self.certificates.arguments()] if self.certificates else arguments
        self.arguments = list(arguments)
        self.preexec = preexec
        self.owns_folder = data is None
        self.folder = tempfile.mkdtemp(prefix="chat-contract-") if data is None else None
        self.data = data or os.path.join(self.folder, "data")
        self.log_path = os.path.join(self.folder or os.path.dirname(self.data), f"server-{uuid.uuid4().hex[:8]}.log")
        self.keep_data = keep_data
        # The PostgreSQL database it keeps its data in; None: SQLite in the data folder.
        self.database_url = None
        if suite_postgres and "--database" not in self.arguments:
            self.database_url = postgres_database(suite_postgres, self.data)
            self.arguments += ["--database", self.database_url]
        if suite_relay and "--database" in self.arguments and "--relay" not in self.arguments:
            self.arguments += ["--relay", suite_relay]
        self.process = None
        self.port = None
        self.lines = []

    def start(self, port=0):
        """Starts the process; `port` 0 takes a free one (a restart may ask for its old one)."""
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [binary(), "--port", str(port), "--data", self.data, *self.arguments],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.log, preexec_fn=self.preexec)
        line = self.process.stdout.readline().decode().strip()
        match = re.match(r"chat-server listening on (https?)://127\.0\.0\.1:(\d+)$", line)
        if not match:
            self.process.kill()
            raise RuntimeError(f"chat-server did not start: {line!r}; log: {self.read_log()[-2000:]}")
        self.scheme = match.group(1)
        self.port = int(match.group(2))
        if self.certificates and self.scheme != "https":
            self.process.kill()
            raise RuntimeError(f"chat-server was given certificates but serves {self.scheme}: {line!r}")
        self.lines.append(line)
        return self

    @property
    def url(self):
        return f"{self.scheme}://127.0.0.1:{self.port}"

    @property
    def ws_url(self):
        return f"{'wss' if self.scheme == 'https' else 'ws'}://127.0.0.1:{self.port}/v1/live"

    @property
    def verify(self):
        """httpx's `verify`: the test CA over TLS, httpx's default otherwise."""
        return self.ssl_context if self.ssl_context else True

    def client(self, timeout=30):
        """A keep-alive httpx client for this server."""
        return httpx.Client(base_url=self.url, timeout=timeout, verify=self.verify)

    def request(self, method, path, **options):
        """One request on a connection of its own (httpx.request)."""
        return httpx.request(method, self.url + path, verify=self.verify, **options)

    def connect_live(self, headers, **options):
        """A websockets client on /v1/live (wss with the test CA over TLS, on a socket its two
        threads can share: see tls_socket)."""
        if self.ssl_context:
            return connect_wss(self.port, "/v1/live", self.ssl_context,
                               additional_headers=headers, **options)
        return connect(self.ws_url, additional_headers=headers, **options)

    def open_socket(self, timeout, receive_buffer=None):
        """A raw connection to the server: TCP, or over TLS the handshake done (the test CA,
        127.0.0.1 as the name checked) and the socket an ssl.SSLSocket."""
        return open_socket(self.port, timeout, self.ssl_context, receive_buffer)

    def read_log(self):
        with open(self.log_path, "rb") as handle:
            return handle.read().decode(errors="replace")

    def stdout_rest(self, timeout=15):
        """Waits for the process to end and returns what it printed after the first line."""
        out, _ = self.process.communicate(timeout=timeout)
        return out.decode()

    def terminate(self, timeout=15):
        """SIGTERM and wait: a graceful stop. Returns the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.process.returncode

    def kill(self):
        """SIGKILL: the crash."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def cleanup(self):
        if self.process and self.process.poll() is None:
            self.terminate()
        if self.process and self.process.stdout:
            self.process.stdout.close()
        if hasattr(self, "log"):
            self.log.close()
        if self.owns_folder and not self.keep_data:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()


class Cluster:
    """Several chat-server nodes on one PostgreSQL database of the suite's cluster (after
    `serve_postgres`): each connection asked of it (`client`, `request`, `connect_live`,
    `open_socket`) goes to the next node in turn, so a suite's devices are spread over the
    nodes. `read_log` is every node's; anything else (`url`, `port`, `process`, …) is the
    first node's."""

    def __init__(self, *arguments, nodes=2):
        assert suite_postgres, "a Cluster needs serve_postgres first"
        self.folder = tempfile.mkdtemp(prefix="chat-cluster-")
        self.database_url = postgres_database(suite_postgres, self.folder)
        self.nodes = [Server(*arguments, "--database", self.database_url,
                             data=os.path.join(self.folder, f"node{index}"))
                      for index in range(nodes)]
        for node in self.nodes:
            node.database_url = self.database_url
        self.turn = 0

    def start(self):
        for node in self.nodes:
            node.start()
        return self

    def next_node(self):
        node = self.nodes[self.turn % len(self.nodes)]
        self.turn += 1
        return node

    def __getattr__(self, name):
        if name == "nodes":  # not set yet: no node to ask
            raise AttributeError(name)
        return getattr(self.nodes[0], name)

    def client(self, timeout=30):
        return self.next_node().client(timeout)

    def request(self, method, path, **options):
        return self.next_node().request(method, path, **options)

    def connect_live(self, headers, **options):
        return self.next_node().connect_live(headers, **options)

    def open_socket(self, timeout, receive_buffer=None):
        return self.next_node().open_socket(timeout, receive_buffer)

    def read_log(self):
        return "".join(node.read_log() for node in self.nodes)

    def cleanup(self):
        for node in self.nodes:
            node.cleanup()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()


def open_socket(port, timeout, ssl_context=None, receive_buffer=None):
    """A TCP connection to 127.0.0.1:port, wrapped in TLS when given a context; with
    `receive_buffer`, its SO_RCVBUF in bytes (set before connecting, so the window is small)."""
    if receive_buffer is None:
        conn = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    else:
        conn = socket.socket()
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        conn.settimeout(timeout)
        conn.connect(("127.0.0.1", port))
    if ssl_context is None:
        return conn
    try:
        return ssl_context.wrap_socket(conn, server_hostname="127.0.0.1")
    except BaseException:
        conn.close()
        raise


class Device:
    """A signed-in user on one device: tokens and an httpx client (keep-alive)."""

    def __init__(self, server, user, device="phone", client=None):
        self.server = server
        self.user = user
        self.device = device
        self.http = client or server.client()
        response = self.http.post("/v1/auth/dev-login", json={"userId": user, "deviceId": device})
        if response.status_code != 200:
            raise RuntimeError(f"dev-login {user}: {response.status_code} {response.text}")
        self.tokens = response.json()
        self.token = self.tokens["accessToken"]

    @property
    def auth(self):
        return {"Authorization": f"Bearer {self.token}"}

    def request(self, method, path, body=None, headers=None, params=None, content=None):
        merged = dict(self.auth)
        merged.update(headers or {})
        return self.http.request(method, path, json=body, headers=merged, params=params,
                                 content=content)

    def create(self, members, title="Chat"):
        response = self.request("POST", "/v1/conversations", {"title": title, "memberIds": members})
        if response.status_code != 201:
            raise RuntimeError(f"create: {response.status_code} {response.text}")
        return response.json()

    def send(self, conversation, text, client_message_id=None):
        return self.request("POST", f"/v1/conversations/{conversation}/messages",
                            {"clientMessageId": client_message_id or str(uuid.uuid4()), "text": text})

    def messages(self, conversation, **params):
        return self.request("GET", f"/v1/conversations/{conversation}/messages", params=params)

    def all_messages(self, conversation):
        return all_messages(self.http, conversation, self.auth)

    def receipts(self, conversation):
        return self.request("GET", f"/v1/conversations/{conversation}/receipts")

    def mark(self, kind, conversation, up_to):
        return self.request("POST", f"/v1/conversations/{conversation}/{kind}", {"upToSequence": up_to})

    def close(self):
        self.http.close()


def all_messages(http, conversation, headers=None):
    """Every item of a conversation, oldest first, paging with `?after=` (httpx client `http`)."""
    items, after = [], 0
    while True:
        page = http.get(f"/v1/conversations/{conversation}/messages",
                        params={"after": after, "limit": 200}, headers=headers).json()
        items += page["items"]
        if not page["hasMore"]:
            return items
        after = page["items"][-1]["sequence"]


def wait_for(read, done, timeout=10):
    """Calls `read` until `done(value)` holds or `timeout` seconds passed; returns the last
    value (a condition with a deadline, never a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value) or time.monotonic() >= deadline:
            return value
        time.sleep(0.05)


def error_code(response):
    try:
        return response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


def has_error_shape(response):
    """API.md: `{ "error": { "code": "<snake_case>", "message": "<human text>" } }`, JSON."""
    if not response.headers.get("content-type", "").startswith("application/json"):
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    error = body.get("error") if isinstance(body, dict) else None
    return (isinstance(body, dict) and list(body) == ["error"] and isinstance(error, dict)
            and set(error) == {"code", "message"} and isinstance(error["code"], str)
            and re.fullmatch(r"[a-z]+(_[a-z]+)*", error["code"]) is not None
            and isinstance(error["message"], str) and error["message"] != "")


class Report:
    """Counts results per group and prints the closing line the CI reads ('N passed, N failed')."""

    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0
        self.groups = {}
        self.group = "setup"

    def start_group(self, name):
        self.group = name
        self.groups.setdefault(name, [0, 0])

    def check(self, label, ok, detail=""):
        """Counts a result; a failure is printed, a pass too with CONTRACT_VERBOSE=1 (a case's
        label carries its figures, e.g. how many receipts frames a burst became)."""
        counts = self.groups.setdefault(self.group, [0, 0])
        if ok:
            self.passed += 1
            counts[0] += 1
            if os.environ.get("CONTRACT_VERBOSE") == "1":
                print(f"ok [{self.group}] {label}", flush=True)
        else:
            self.failed += 1
            counts[1] += 1
            print(f"FAIL [{self.group}] {label}: {detail}", flush=True)
        return ok

    def expect_error(self, label, response, status, code):
        """The status, the code, and the error shape."""
        return self.check(
            label,
            response.status_code == status and error_code(response) == code and has_error_shape(response),
            f"got {response.status_code} {response.text[:200]!r}, wanted {status} {code}")

    def finish(self):
        for name, (passed, failed) in self.groups.items():
            print(f"  {name}: {passed} passed, {failed} failed", flush=True)
        print(f"{self.name}: {self.passed} passed, {self.failed} failed", flush=True)
        return 0 if self.failed == 0 else 1


def dumps(value):
    return json.dumps(value, ensure_ascii=False)
