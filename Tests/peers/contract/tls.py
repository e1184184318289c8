"""The real chat-server binary with --tls-cert and --tls-key (certificates made for this run
by scripts/make-test-certificates): HTTPS with httpx and WSS with websockets over Python ssl,
a plaintext client answered 400 tls_required, a client that refuses the certificate, the log
lines of both, a graceful stop closing wss sockets with 1001, and the start-up errors (exit 1
for unusable files, 64 for half a pair). Ends with 'N passed, N failed'."""

import json
import os
import subprocess
import sys
import tempfile
import time

import httpx

from chatserver import Certificates, Device, Report, Server, binary, error_code
from tls_socket import connect_wss

report = Report("tls")
CERTS = None  # the Certificates of the run, made by main


def cert(name):
    return CERTS.path(name)


def trusting_ca():
    return CERTS.context()


def tls_arguments(name="server"):
    return CERTS.arguments(name)


def wait_for_log(server, text, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = server.read_log()
        if text in log:
            return True
        time.sleep(0.05)  # polling a file the server appends to, with a deadline
    return False


def https_and_wss():
    report.start_group("https and wss")
    with Server("--dev", *tls_arguments()) as server:
        report.check("it prints an https:// URL", server.url.startswith("https://127.0.0.1:"),
                     server.url)
        second = server.process.stdout.readline().decode().strip()
        report.check("it names the certificate it serves",
                     second.startswith(f"tls: {cert('server.pem')} (TLS 1.2 and 1.3"), second)
        alice = Device(server, "alice", client=httpx.Client(base_url=server.url, verify=trusting_ca(),
                                                            timeout=30))
        bob = Device(server, "bob", client=httpx.Client(base_url=server.url, verify=trusting_ca(),
                                                        timeout=30))
        report.check("dev-login over HTTPS", alice.token and bob.token)
        with connect_wss(server.port, "/v1/live", trusting_ca(), additional_headers=bob.auth,
                         open_timeout=10, ping_interval=None) as socket:
            conversation = alice.create(["bob"], title="Over TLS")["id"]
            sent = alice.send(conversation, "hello over wss")
            report.check("a send over HTTPS is accepted", sent.status_code == 201, sent.text)
            events = []
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                event = json.loads(socket.recv(timeout=max(0.01, deadline - time.monotonic())))
                events.append(event)
                if event["type"] == "message":
                    break
            report.check("bob's wss socket gets the message live",
                         events and events[-1] == {"type": "message", "conversationId": conversation,
                                                   "message": sent.json()}, f"{events}")
            server.process.send_signal(15)
            code = None
            try:
                while True:
                    socket.recv(timeout=10)
            except Exception:  # noqa: BLE001 - the close is what we wait for
                code = socket.close_code
            status = server.process.wait(timeout=15)
            report.check("a graceful stop closes the wss socket with 1001 and exits 0",
                         code == 1001 and status == 0, f"{code} {status}")
        alice.close()
        bob.close()


def hostile_clients():
    report.start_group("hostile clients")
    with Server("--dev", *tls_arguments()) as server:
        response = httpx.get(f"http://127.0.0.1:{server.port}/healthz", timeout=5)
        report.check("plaintext HTTP to the TLS port: 400 tls_required",
                     response.status_code == 400 and error_code(response) == "tls_required",
                     response.text)
        report.check("… logged as a request the network layer answered",
                     wait_for_log(server, "route=unparsed status=400")
                     and "code=tls_required" in server.read_log(), server.read_log()[-500:])
        report.check("… and as a failed handshake, plaintext_peer",
                     wait_for_log(server, "event=tls_failed level=info code=plaintext_peer"),
                     server.read_log()[-500:])
        try:
            httpx.get(f"https://localhost:{server.port}/healthz", timeout=5)
            refused = False
        except httpx.ConnectError as error:
            refused = "CERTIFICATE_VERIFY_FAILED" in str(error)
        report.check("a client without the test CA refuses the certificate", refused)
        report.check("… logged as rejected_by_peer",
                     wait_for_log(server, "event=tls_failed level=info code=rejected_by_peer"),
                     server.read_log()[-500:])
        response = httpx.get(f"https://localhost:{server.port}/healthz", verify=trusting_ca(),
                             timeout=5)
        report.check("the server serves others afterwards",
                     response.status_code == 200 and response.text == "ok")


def start(*arguments, environment=None):
    env = dict(os.environ)
    env.update(environment or {})
    folder = tempfile.mkdtemp(prefix="chat-tls-start-")
    return subprocess.run([binary(), "--port", "0", "--data", folder + "/data", *arguments],
                          input="", capture_output=True, text=True, timeout=15, env=env)


def start_errors():
    report.start_group("start-up errors")
    cases = [
        (["--tls-cert", cert("server.pem"), "--tls-key", cert("other.key")],
         f"chat-server: cannot serve TLS: the private key {cert('other.key')} does not belong to "
         f"the certificate {cert('server.pem')}"),
        (tls_arguments("expired"),
         f"chat-server: cannot serve TLS: the certificate {cert('expired.pem')} expired on "
         "Jan  2 00:00:00 2020 GMT: renew it"),
        (["--tls-cert", cert("missing.pem"), "--tls-key", cert("server.key")],
         f"chat-server: cannot serve TLS: cannot read {cert('missing.pem')}: No such file or "
         "directory"),
        (["--tls-cert", cert("server.pem"), "--tls-key", cert("encrypted.key")],
         f"chat-server: cannot serve TLS: {cert('encrypted.key')} holds no usable PEM private key"),
    ]
    for arguments, message in cases:
        result = start(*arguments)
        report.check(f"exit 1 with: {message[:70]}…",
                     result.returncode == 1 and result.stderr.startswith(message) and result.stdout == "",
                     f"{result.returncode} {result.stderr!r}")
    result = start("--tls-cert", cert("server.pem"))
    report.check("half a pair is a usage error (exit 64)",
                 result.returncode == 64 and "--tls-cert and --tls-key go together" in result.stderr,
                 f"{result.returncode} {result.stderr!r}")
    process = subprocess.Popen(
        [binary(), "--port", "0", "--data", tempfile.mkdtemp(prefix="chat-tls-env-") + "/data"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=dict(os.environ, CHAT_SERVER_TLS_CERT=cert("server.pem"),
                 CHAT_SERVER_TLS_KEY=cert("server.key")))
    line = process.stdout.readline().strip()
    process.terminate()
    process.wait(timeout=15)
    report.check("CHAT_SERVER_TLS_CERT and CHAT_SERVER_TLS_KEY turn TLS on",
                 line.startswith("chat-server listening on https://127.0.0.1:"), line)


def main():
    global CERTS
    CERTS = Certificates()
    try:
        https_and_wss()
        hostile_clients()
        start_errors()
    finally:
        CERTS.remove()
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
