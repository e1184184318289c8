"""Our HTTP server against independent clients: h11 (a strict HTTP/1.1 state machine),
httpx, and curl. Ends with 'N passed, N failed'."""

import json
import shutil
import socket
import subprocess
import sys
import time

import h11
import httpx

import wirepeer

report = wirepeer.Report("http peers")


def h11_exchange(port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    connection = h11.Connection(our_role=h11.CLIENT)

    def request(method, target, body=b"", headers=()):
        all_headers = [("Host", "example")] + list(headers)
        if body:
            all_headers.append(("Content-Length", str(len(body))))
        sock.sendall(connection.send(h11.Request(method=method, target=target, headers=all_headers)))
        if body:
            sock.sendall(connection.send(h11.Data(data=body)))
        sock.sendall(connection.send(h11.EndOfMessage()))
        response, data = None, b""
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA:
                connection.receive_data(sock.recv(65536))
                continue
            if isinstance(event, h11.Response):
                response = event
            elif isinstance(event, h11.Data):
                data += event.data
            elif isinstance(event, h11.EndOfMessage):
                return response, data

    for round in range(3):
        response, data = request("GET", "/healthz")
        report.check(f"h11: GET /healthz on a kept-alive connection (round {round + 1})",
                     response.status_code == 200 and data == b"ok")
        connection.start_next_cycle()
    response, data = request("POST", "/echo", b'{"a": 1}', [("Content-Type", "application/json")])
    report.check("h11: POST echo", response.status_code == 200 and data == b'{"a": 1}')
    report.check("h11: responses carry a Date header", any(k.lower() == b"date" and v.endswith(b" GMT") for k, v in response.headers))
    connection.start_next_cycle()
    response, data = request("GET", "/v1/conversations/c%2F1/messages?limit=5")
    report.check("h11: path parameter is percent-decoded", json.loads(data) == {"id": "c/1", "limit": "5"},
                 data)
    connection.start_next_cycle()
    response, data = request("GET", "/missing")
    body = json.loads(data)
    report.check("h11: 404 has the API error shape",
                 response.status_code == 404 and body["error"]["code"] == "not_found")
    connection.start_next_cycle()
    response, data = request("GET", "/healthz", headers=[("Connection", "close")])
    report.check("h11: Connection: close is honoured",
                 (b"connection", b"close") in [(k.lower(), v) for k, v in response.headers])
    sock.settimeout(3)
    report.check("h11: the server closes after Connection: close", sock.recv(10) == b"")
    sock.close()


def httpx_exchange(port):
    base = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=base, timeout=10) as client:
        started = time.monotonic()
        statuses = [client.get("/healthz").status_code for _ in range(500)]
        elapsed = time.monotonic() - started
        report.check("httpx: 500 keep-alive requests", statuses == [200] * 500,
                     f"{elapsed:.2f} s")
        response = client.post("/echo", json={"text": "κόσμε", "n": 1})
        report.check("httpx: JSON round trip", response.json() == {"text": "κόσμε", "n": 1})
        response = client.get("/query", params={"q": "a b&c", "limit": "50"})
        report.check("httpx: query parameters are decoded",
                     response.json() == {"q": "a b&c", "limit": "50"}, response.text)

        def chunks():
            for i in range(10):
                yield f"chunk {i};".encode()
        response = client.post("/echo", content=chunks())
        report.check("httpx: chunked upload", response.text == "".join(f"chunk {i};" for i in range(10)),
                     response.text)
        response = client.post("/echo", content=b"x" * (64 * 1024 + 1))
        report.check("httpx: body over the limit is 413 too_large",
                     response.status_code == 413 and response.json()["error"]["code"] == "too_large")
        response = client.get("/big", params={"bytes": "3000000"})
        report.check("httpx: 3 MB response", response.status_code == 200 and len(response.content) == 3_000_000)
        response = client.put("/healthz")
        report.check("httpx: wrong method is 405 with Allow",
                     response.status_code == 405 and "GET" in response.headers.get("allow", ""))


def curl_exchange(port):
    if not shutil.which("curl"):
        report.check("curl is installed", False)
        return
    base = f"http://127.0.0.1:{port}"

    def curl(*arguments):
        return subprocess.run(["curl", "-sS", *arguments], capture_output=True, timeout=20)

    result = curl(f"{base}/healthz")
    report.check("curl: GET", result.stdout == b"ok", result.stderr)
    payload = b"y" * 5000
    # curl 7.x sends Expect on its own only past its threshold; ask for it explicitly.
    result = subprocess.run(["curl", "-sS", "-v", "-H", "Expect: 100-continue", "--data-binary", "@-",
                             f"{base}/echo"], input=payload, capture_output=True, timeout=20)
    report.check("curl: POST with Expect: 100-continue gets 100 first",
                 result.stdout == payload and b"Expect: 100-continue" in result.stderr
                 and b"HTTP/1.1 100 Continue" in result.stderr, result.stderr[-400:])
    result = subprocess.run(["curl", "-sS", "-H", "Transfer-Encoding: chunked", "--data-binary", "@-",
                             f"{base}/echo"], input=payload, capture_output=True, timeout=20)
    report.check("curl: chunked upload", result.stdout == payload, result.stderr)
    result = curl("-0", f"{base}/healthz")
    report.check("curl: HTTP/1.0", result.stdout == b"ok", result.stderr)
    result = curl("-v", f"{base}/healthz", f"{base}/healthz", f"{base}/healthz")
    report.check("curl: three requests reuse one connection",
                 result.stdout == b"okokok" and result.stderr.count(b"Re-using existing connection") == 2,
                 result.stderr[-300:])
    big = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--data-binary", "@-",
                          f"{base}/echo"], input=b"z" * 100_000, capture_output=True, timeout=20)
    report.check("curl: 100 KB body is refused with 413 (no 100 Continue first)",
                 big.stdout == b"413", big.stdout + big.stderr)
    result = curl("-I", f"{base}/healthz")
    report.check("curl: HEAD", result.stdout.startswith(b"HTTP/1.1 200") and b"Content-Length: 2" in result.stdout)


def main():
    with wirepeer.Server() as server:
        h11_exchange(server.port)
        httpx_exchange(server.port)
        curl_exchange(server.port)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
