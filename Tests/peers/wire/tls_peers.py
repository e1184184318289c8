"""TLS against independent peers, both ways, with certificates made for this run by
scripts/make-test-certificates (a root CA, an intermediate, localhost/127.0.0.1/::1 leaves, an
expired one, one for the wrong host, a self-signed one).

Our server (wire-peer server --tls-cert/--tls-key) against Python `ssl` + `websockets`, `httpx`,
raw `ssl` sockets and `openssl s_client`; our client (wire-peer client, wss://) against a
`websockets` server over Python `ssl`, raw `ssl` servers and `openssl s_server`. Every hostile
case must fail with its own error, on both sides where both can tell, and the server must keep
serving others. Ends with 'N passed, N failed'."""

import asyncio
import http.server
import os
import queue
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

import httpx
import websockets
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve

import wirepeer

report = wirepeer.Report("tls peers")
CERTS = tempfile.mkdtemp(prefix="wire-tls-peers-")


def cert(name):
    return os.path.join(CERTS, name)


def client_context(cafile="ca.pem"):
    context = ssl.create_default_context(cafile=cert(cafile) if cafile else None)
    return context


def server_context(name="server"):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert(f"{name}.pem"), cert(f"{name}.key"))
    return context


class TLSServer:
    """Our server over TLS; its stdout lines (tls-failure …) are read by a thread into a queue."""

    def __init__(self, *arguments, name="server"):
        self.arguments = ["--tls-cert", cert(f"{name}.pem"), "--tls-key", cert(f"{name}.key"),
                          *arguments]
        self.lines = queue.Queue()

    def __enter__(self):
        wirepeer.raise_file_limit()
        self.process = subprocess.Popen(
            [wirepeer.binary(), "server", *self.arguments], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, bufsize=1)
        line = self.process.stdout.readline().strip()
        if not line.startswith("port "):
            raise RuntimeError(f"wire-peer server did not start: {line!r}")
        self.port = int(line.split()[1])
        threading.Thread(target=self._read, daemon=True).start()
        return self

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.strip())

    def next_failure(self, timeout=5):
        """The next 'tls-failure CASE ADDRESS' line's case, or None."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if line.startswith("tls-failure "):
                return line.split()[1]
        return None

    def failures_so_far(self):
        found = []
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return found
            if line.startswith("tls-failure "):
                found.append(line.split()[1])

    def __exit__(self, *exc):
        if self.process.poll() is None:
            try:
                self.process.stdin.write("shutdown\n")
                self.process.stdin.close()
                self.process.wait(timeout=15)
            except (subprocess.TimeoutExpired, BrokenPipeError):
                self.process.kill()
                self.process.wait()


def serves_others(port):
    """One TLS request from a well-behaved client: the server is still up and serving."""
    try:
        response = httpx.get(f"https://localhost:{port}/healthz", verify=client_context(), timeout=5)
        return response.status_code == 200 and response.text == "ok"
    except httpx.HTTPError:
        return False


# Our server against independent clients.

async def websockets_over_tls(port):
    for host in ("localhost", "127.0.0.1"):
        async with connect(f"wss://{host}:{port}/ws", ssl=client_context(), max_size=2 ** 21) as ws:
            texts = [f"message {i} ✓" for i in range(100)]
            for text in texts:
                await ws.send(text)
            echoed = [await ws.recv() for _ in texts]
            report.check(f"websockets over ssl ({host}): 100 messages echoed in order", echoed == texts)
            await ws.send(b"\x00\x01\xfe\xff")
            report.check(f"websockets over ssl ({host}): binary echoed",
                         await ws.recv() == b"\x00\x01\xfe\xff")
            big = "é" * 500_000
            await ws.send(big)
            report.check(f"websockets over ssl ({host}): 1 MB message echoed (many records)",
                         await ws.recv() == big)
            await ws.close(4000, "done")
            report.check(f"websockets over ssl ({host}): close code echoed", ws.close_code == 4000,
                         f"{ws.close_code}")


def httpx_over_tls(port):
    with httpx.Client(verify=client_context(), timeout=5) as client:
        responses = [client.get(f"https://localhost:{port}/healthz") for _ in range(5)]
        report.check("httpx over TLS: 5 GETs on a kept-alive connection",
                     all(r.status_code == 200 and r.text == "ok" for r in responses)
                     and all(r.http_version == "HTTP/1.1" for r in responses))
        body = os.urandom(60_000)
        response = client.post(f"https://localhost:{port}/echo", content=body,
                               headers={"Content-Type": "application/octet-stream"})
        report.check("httpx over TLS: a 60 KB body echoed", response.content == body,
                     f"{response.status_code}")
        response = client.get(f"https://localhost:{port}/big?bytes=3000000")
        report.check("httpx over TLS: a 3 MB response arrives whole",
                     response.content == b"a" * 3_000_000, f"{len(response.content)}")


def raw_ssl_socket(port):
    context = client_context()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        # Without suppress_ragged_eofs=False, Python reads a TCP close with no close_notify as
        # a clean end (b""); with it, as an SSLEOFError.
        with context.wrap_socket(raw, server_hostname="localhost",
                                 suppress_ragged_eofs=False) as tls:
            report.check("ssl: TLS 1.2 or later is negotiated (1.3 by default)",
                         tls.version() == "TLSv1.3", tls.version())
            tls.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = b""
            clean = True
            try:
                while True:
                    chunk = tls.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except ssl.SSLEOFError:
                clean = False
            report.check("ssl: Connection: close is answered", data.startswith(b"HTTP/1.1 200"))
            report.check("ssl: the server ends with close_notify (no truncation)", clean)
    context = client_context()
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            report.check("ssl: a TLS 1.2 client is served", tls.version() == "TLSv1.2", tls.version())


def s_client(port, *arguments):
    result = subprocess.run(
        ["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-servername", "localhost",
         *arguments], input="", capture_output=True, text=True, timeout=10)
    return result.returncode, result.stdout + result.stderr


def openssl_s_client(server):
    port = server.port
    status, output = s_client(port, "-CAfile", cert("ca.pem"), "-verify_return_error",
                              "-verify_hostname", "localhost", "-brief")
    report.check("s_client: TLSv1.3 and the chain verifies", status == 0
                 and "Protocol version: TLSv1.3" in output and "Verification: OK" in output, output)
    status, output = s_client(port, "-CAfile", cert("ca.pem"), "-showcerts")
    chain = re.findall(r"^ (\d) s:(.*)$", output, re.M)
    report.check("s_client: the server sends its chain (leaf, then the intermediate)",
                 [(depth, subject.strip()) for depth, subject in chain]
                 == [("0", "CN = localhost"), ("1", "CN = Chat Test Intermediate CA")], f"{chain}")
    status, output = s_client(port, "-CAfile", cert("ca.pem"), "-verify_return_error", "-tls1_2",
                              "-brief")
    report.check("s_client -tls1_2: TLSv1.2 is accepted", status == 0
                 and "Protocol version: TLSv1.2" in output, output)
    status, output = s_client(port, "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0", "-brief")
    failure = server.next_failure()
    report.check("s_client -tls1_1: refused, the server says unsupportedProtocolVersion",
                 status != 0 and failure == "tls.unsupported_protocol_version", f"{failure} {output}")


def hostile_clients(server):
    port = server.port
    # A client with only the system's trust store does not know our test CA.
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with client_context(None).wrap_socket(raw, server_hostname="localhost"):
                ok = False
    except ssl.SSLCertVerificationError as error:
        ok = error.verify_code == 20
    failure = server.next_failure()
    report.check("a client without the CA refuses us; the server hears its alert (unknown CA)",
                 ok and failure == "tls.rejected_by_peer", f"{failure}")
    report.check("… and the server serves others afterwards", serves_others(port))

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with client_context().wrap_socket(raw, server_hostname="wrong.example"):
                ok = False
    except ssl.SSLCertVerificationError as error:
        ok = error.verify_code == 62  # X509_V_ERR_HOSTNAME_MISMATCH
    failure = server.next_failure()
    report.check("a client that expects another host name refuses us; the server hears it",
                 ok and failure == "tls.rejected_by_peer", f"{failure}")

    response = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5)
    failure = server.next_failure()
    report.check("plaintext HTTP to the TLS port: 400 tls_required, in plaintext",
                 response.status_code == 400
                 and response.json()["error"]["code"] == "tls_required", response.text)
    report.check("… reported as plaintextPeer", failure == "tls.plaintext_peer", f"{failure}")

    async def plaintext_websocket():
        try:
            async with connect(f"ws://127.0.0.1:{port}/ws"):
                return "opened"
        except websockets.InvalidStatus as error:
            return error.response.status_code
    status = asyncio.run(plaintext_websocket())
    report.check("a ws:// client on the TLS port is refused with 400", status == 400, f"{status}")
    server.next_failure()

    # Garbage that is neither TLS nor HTTP.
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        raw.sendall(b"\x16\x03\x01\x00\x05\xff\xff\xff\xff\xff")
        raw.settimeout(5)
        try:
            data = raw.recv(100)
        except ConnectionResetError:
            data = b""
    failure = server.next_failure()
    report.check("a broken ClientHello ends with an alert, reported as a handshake failure",
                 failure == "tls.handshake_failed" and (data == b"" or data[:1] == b"\x15"),
                 f"{failure} {data!r}")
    report.check("… and the server serves others afterwards", serves_others(port))


def client_hello():
    """The bytes of a real ClientHello for localhost, made with a memory BIO."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = client_context().wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


SLOW = 200
HEADER_TIMEOUT = 2.0


async def slowloris_on_tls(port):
    """SLOW connections trickle a real ClientHello a byte at a time while a normal TLS client
    is served promptly; each trickling connection is dropped at the header timeout."""
    hello = client_hello()
    outcomes, latencies = [], []
    opened = asyncio.Semaphore(0)

    async def trickle():
        # Timed from before the connect: the server's clock starts at its accept, so a start
        # taken after the connect returned (late, on a loaded machine) made the drop look early.
        started = time.monotonic()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        opened.release()
        try:
            for byte in hello:
                writer.write(bytes([byte]))
                await writer.drain()
                try:
                    data = await asyncio.wait_for(reader.read(1024), 0.5)
                    outcomes.append(("closed" if data == b"" else "answered",
                                     time.monotonic() - started))
                    return
                except asyncio.TimeoutError:
                    pass
            outcomes.append(("whole hello sent", time.monotonic() - started))
        except (ConnectionError, OSError):
            outcomes.append(("closed", time.monotonic() - started))
        finally:
            writer.close()

    async def normal():
        for _ in range(SLOW):
            await opened.acquire()
        async with httpx.AsyncClient(verify=client_context(), timeout=5) as client:
            for _ in range(10):
                started = time.monotonic()
                # A new connection each time: a full handshake under the trickle.
                response = await client.get(f"https://localhost:{port}/healthz",
                                            headers={"Connection": "close"})
                latencies.append((time.monotonic() - started, response.status_code == 200))
                await asyncio.sleep(0.1)

    tasks = [asyncio.create_task(trickle()) for _ in range(SLOW)]
    await asyncio.wait_for(normal(), 30)
    await asyncio.wait_for(asyncio.gather(*tasks), 30)
    return outcomes, latencies


def slowloris(server):
    outcomes, latencies = asyncio.run(slowloris_on_tls(server.port))
    worst = max(latency for latency, _ in latencies)
    report.check("slowloris on TLS: the normal client is served every time",
                 len(latencies) == 10 and all(ok for _, ok in latencies), f"{latencies}")
    report.check("slowloris on TLS: … promptly (worst < 500 ms, handshake included)", worst < 0.5,
                 f"worst {worst * 1000:.0f} ms")
    closed = [elapsed for kind, elapsed in outcomes if kind == "closed"]
    report.check("slowloris on TLS: every trickling handshake is dropped",
                 len(closed) == SLOW, f"{len(closed)} of {SLOW}: {outcomes[:3]}")
    report.check("slowloris on TLS: … near the header timeout (2 s, at most 1.5 s late)",
                 closed and HEADER_TIMEOUT - 0.1 <= min(closed) and max(closed) < HEADER_TIMEOUT + 1.5,
                 f"{min(closed, default=0):.2f}–{max(closed, default=0):.2f} s")
    time.sleep(0.3)  # let the last lines of the reader thread in
    failures = server.failures_so_far()
    report.check("slowloris on TLS: each reported as handshakeTimedOut",
                 failures.count("tls.handshake_timed_out") == SLOW,
                 f"{failures.count('tls.handshake_timed_out')} of {SLOW}; others {set(failures)}")
    report.check("slowloris on TLS: the server serves others afterwards", serves_others(server.port))


def server_start_errors():
    cases = [
        ("server.pem", "other.key", "tls.key_does_not_match_certificate"),
        ("expired.pem", "expired.key", "tls.own_certificate_expired"),
        ("notyet.pem", "notyet.key", "tls.own_certificate_not_yet_valid"),
        ("garbage.pem", "server.key", "tls.invalid_certificate"),
        ("server.pem", "encrypted.key", "tls.invalid_private_key"),
        ("missing.pem", "server.key", "tls.unreadable_file"),
    ]
    for certificate, key, expected in cases:
        result = subprocess.run(
            [wirepeer.binary(), "server", "--tls-cert", cert(certificate), "--tls-key", cert(key)],
            input="", capture_output=True, text=True, timeout=10)
        report.check(f"our server refuses to start with {certificate} + {key}: {expected}",
                     result.returncode == 1 and result.stdout.startswith(f"error {expected} "),
                     f"{result.returncode} {result.stdout!r}")


# Our client against independent servers.

async def echo(ws):
    async for message in ws:
        await ws.send(message)


async def python_server(context, handler=echo):
    """A websockets server over Python's ssl; returns (server, port, the SNI names it saw)."""
    names = []
    if context is not None:
        context.sni_callback = lambda sock, name, ctx: names.append(name)
    server = await serve(handler, "127.0.0.1", 0, ssl=context)
    return server, server.sockets[0].getsockname()[1], names


async def run_client(*arguments, environment=None):
    loop = asyncio.get_running_loop()
    env = dict(os.environ)
    env.pop("SSL_CERT_FILE", None)
    env.update(environment or {})

    def run():
        result = subprocess.run([wirepeer.binary(), "client", *arguments], capture_output=True,
                                text=True, timeout=30, env=env)
        return result.stdout.splitlines()
    return await loop.run_in_executor(None, run)


async def our_client_against_python_servers():
    server, port, names = await python_server(server_context())
    async with server:
        lines = await run_client("--url", f"wss://localhost:{port}/x", "--ca-file", cert("ca.pem"),
                                 "--send", "hello", "--send", "κόσμε", "--expect", "2")
        report.check("our client: echo through a websockets server over ssl (localhost)",
                     lines[:3] == ["open", "message hello", "message κόσμε"]
                     and lines[-1].startswith("closed 1000"), f"{lines}")
        report.check("our client: sends SNI for a host name", names == ["localhost"], f"{names}")
        names.clear()
        lines = await run_client("--url", f"wss://127.0.0.1:{port}/x", "--ca-file", cert("ca.pem"),
                                 "--send", "by address", "--expect", "1")
        report.check("our client: 127.0.0.1 verified against the certificate's IP address",
                     lines[:2] == ["open", "message by address"], f"{lines}")
        report.check("our client: no SNI for an IP address (RFC 6066)", names == [None], f"{names}")
        lines = await run_client("--url", f"wss://localhost:{port}/x", "--send", "x", "--expect", "1",
                                 environment={"SSL_CERT_FILE": cert("ca.pem")})
        report.check("our client: SSL_CERT_FILE names the trust store when no --ca-file is given",
                     lines[:2] == ["open", "message x"], f"{lines}")
        lines = await run_client("--url", f"wss://localhost:{port}/x")
        report.check("our client: the system store does not know the test CA: untrustedCertificate",
                     len(lines) == 1 and lines[0].startswith("error tls.untrusted_certificate "),
                     f"{lines}")
        lines = await run_client("--url", f"wss://localhost:{port}/x",
                                 environment={"SSL_CERT_FILE": cert("missing.pem")})
        report.check("our client: an SSL_CERT_FILE that cannot be read is named: unreadableFile",
                     len(lines) == 1 and lines[0].startswith("error tls.unreadable_file ")
                     and "(SSL_CERT_FILE)" in lines[0], f"{lines}")
        lines = await run_client("--url", f"wss://localhost:{port}/x", "--ca-file",
                                 cert("garbage.pem"))
        report.check("our client: a --ca-file with no certificate: invalidCertificate",
                     len(lines) == 1 and lines[0].startswith("error tls.invalid_certificate "),
                     f"{lines}")

    for name, expected in [("wronghost", "tls.hostname_mismatch"), ("expired", "tls.certificate_expired"),
                           ("notyet", "tls.certificate_not_yet_valid"),
                           ("selfsigned", "tls.untrusted_certificate")]:
        server, port, _ = await python_server(server_context(name))
        async with server:
            lines = await run_client("--url", f"wss://localhost:{port}/x", "--ca-file", cert("ca.pem"))
            report.check(f"our client against a Python ssl server with {name}.pem: {expected}",
                         len(lines) == 1 and lines[0].startswith(f"error {expected} "), f"{lines}")

    # TLS to a plaintext WebSocket server: it reads the ClientHello as a broken request and
    # hangs up without a word, so all our client can say is that.
    server, port, _ = await python_server(None)
    async with server:
        lines = await run_client("--url", f"wss://localhost:{port}/x", "--ca-file", cert("ca.pem"))
        report.check("our client: wss:// to a plaintext websockets server: closedDuringHandshake",
                     len(lines) == 1 and lines[0].startswith("error tls.closed_during_handshake "),
                     f"{lines}")

    # TLS to a plaintext HTTP server that answers the ClientHello with a 400 in plaintext.
    class Quiet(http.server.BaseHTTPRequestHandler):
        def log_message(self, *arguments):
            pass
    plain = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=plain.serve_forever, daemon=True).start()
    lines = await run_client("--url", f"wss://localhost:{plain.server_port}/x", "--ca-file",
                             cert("ca.pem"))
    plain.shutdown()
    plain.server_close()
    report.check("our client: wss:// to a plaintext http.server: plaintextPeer",
                 len(lines) == 1 and lines[0].startswith("error tls.plaintext_peer "), f"{lines}")


def our_client_against_raw_servers():
    # A server that accepts and never answers the ClientHello.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    port = listener.getsockname()[1]
    started = time.monotonic()
    lines = wirepeer.run_client("--url", f"wss://localhost:{port}/x", "--ca-file", cert("ca.pem"),
                                "--connect-timeout-ms", "500")
    elapsed = time.monotonic() - started
    report.check("our client: a server that stalls the handshake: timed out within the bound",
                 lines == ["error The WebSocket handshake timed out."] and elapsed < 3,
                 f"{lines} {elapsed:.2f}")

    listener.close()

    # A server that hangs up once the ClientHello arrives: after reading all of it (FIN), or
    # after reading 10 bytes of it (the unread rest makes the kernel send a reset).
    for read, how in [(65536, "FIN"), (10, "reset")]:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        port = listener.getsockname()[1]

        def hang_up():
            sock, _ = listener.accept()
            sock.recv(read)
            sock.close()
        thread = threading.Thread(target=hang_up)
        thread.start()
        lines = wirepeer.run_client("--url", f"wss://localhost:{port}/x", "--ca-file",
                                    cert("ca.pem"))
        thread.join()
        listener.close()
        report.check(f"our client: a server that hangs up mid-handshake ({how}): "
                     "closedDuringHandshake",
                     len(lines) == 1 and lines[0].startswith("error tls.closed_during_handshake"),
                     f"{lines}")


def s_server(*arguments):
    process = subprocess.Popen(
        ["openssl", "s_server", "-accept", "127.0.0.1:0", "-naccept", "1", *arguments],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    while True:
        line = process.stdout.readline()
        if not line or line.startswith("ACCEPT"):
            break
    return process, int(line.strip().rsplit(":", 1)[1])


def our_client_against_s_server():
    process, port = s_server("-cert", cert("server.pem"), "-key", cert("server.key"),
                             "-cert_chain", cert("intermediate.pem"))
    lines = wirepeer.run_client("--url", f"wss://localhost:{port}/over-tls", "--ca-file",
                                cert("ca.pem"), "--connect-timeout-ms", "1500")
    process.stdin.close()
    output = process.stdout.read()
    process.wait(timeout=10)
    report.check("s_server decrypts our client's upgrade request (it then never answers it)",
                 "GET /over-tls HTTP/1.1" in output and "Upgrade: websocket" in output
                 and lines == ["error The WebSocket handshake timed out."], f"{lines} {output[-300:]!r}")

    process, port = s_server("-cert", cert("server.pem"), "-key", cert("server.key"),
                             "-cert_chain", cert("intermediate.pem"), "-tls1_1", "-cipher",
                             "DEFAULT@SECLEVEL=0")
    lines = wirepeer.run_client("--url", f"wss://localhost:{port}/x", "--ca-file", cert("ca.pem"))
    process.kill()
    process.wait()
    report.check("our client refuses a TLS 1.1-only s_server: unsupportedProtocolVersion",
                 len(lines) == 1 and lines[0].startswith("error tls.unsupported_protocol_version"),
                 f"{lines}")


def exits_during_handshakes(server, processes=100):
    """Processes that exit while our client is in TLS handshakes (`wire-peer
    exit-during-handshakes`): OpenSSL's clean-up at exit used to run beside the handshake and
    crash 29 of 100 such processes here with SIGSEGV or SIGBUS; now none may die of a signal."""
    environment = dict(os.environ, SSL_CERT_FILE=cert("ca.pem"))
    statuses = []
    for index in range(processes):
        result = subprocess.run(
            [wirepeer.binary(), "exit-during-handshakes", "--url",
             f"https://localhost:{server.port}/healthz", "--after-ms", str(5 + index % 40)],
            env=environment, capture_output=True, timeout=60)
        statuses.append(result.returncode)
    died = [status for status in statuses if status != 0]
    report.check(f"{processes} processes exit during our client's handshakes: none dies of a "
                 "signal (OpenSSL does not clean up at exit)", not died,
                 f"exit statuses {sorted(set(died))}, {len(died)} of {processes}")
    report.check("… and the server serves others afterwards", serves_others(server.port))


def main():
    subprocess.run([os.path.join(wirepeer.ROOT, "scripts", "make-test-certificates"), CERTS],
                   check=True)
    wirepeer.raise_file_limit(4096)
    with TLSServer() as server:
        asyncio.run(websockets_over_tls(server.port))
        httpx_over_tls(server.port)
        raw_ssl_socket(server.port)
        openssl_s_client(server)
        hostile_clients(server)
        exits_during_handshakes(server)
    with TLSServer("--header-timeout-ms", str(int(HEADER_TIMEOUT * 1000))) as server:
        slowloris(server)
    server_start_errors()
    asyncio.run(our_client_against_python_servers())
    our_client_against_raw_servers()
    our_client_against_s_server()
    subprocess.run(["rm", "-rf", CERTS], check=False)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
