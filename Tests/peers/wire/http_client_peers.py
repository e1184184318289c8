"""Our HTTP client (wire-peer http-client) against independent servers: an h11 server (a strict
HTTP/1.1 state machine) and Python's http.server, both on loopback, each counting the
connections it accepted. Keep-alive reuse, chunked bodies, Connection: close, bodies framed by
the close, and responses cut short. Ends with 'N passed, N failed'."""

import http.server
import json
import socket
import struct
import subprocess
import sys
import threading

import h11

import wirepeer

report = wirepeer.Report("http client peers")


def run_client(*requests, timeout_ms=5000):
    """Our client, the requests in order on one client; one dict per outcome."""
    arguments = [wirepeer.binary(), "http-client", "--timeout-ms", str(timeout_ms)]
    for request in requests:
        arguments += ["--request", request]
    result = subprocess.run(arguments, capture_output=True, text=True, timeout=60)
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


class Listener:
    """A loopback listener running `serve(sock, index)` on a thread per connection."""

    def __init__(self, serve):
        self.serve = serve
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.lock = threading.Lock()
        threading.Thread(target=self.accept_loop, daemon=True).start()

    def accept_loop(self):
        while True:
            try:
                connection, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                index = self.accepted
                self.accepted += 1
            connection.settimeout(5)
            threading.Thread(target=self.serve, args=(connection, index), daemon=True).start()

    def close(self):
        self.sock.close()


def reset(sock):
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def h11_serve(sock, index):
    """h11 answers each request by its path: /fixed (Content-Length), /chunked (h11 frames it
    chunked), /close (Connection: close); /cut-* write raw bytes and cut."""
    connection = h11.Connection(our_role=h11.SERVER)
    try:
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA:
                data = sock.recv(65536)
                connection.receive_data(data)
                if not data:
                    break
                continue
            if isinstance(event, h11.Request):
                target = event.target.decode()
                while not isinstance(connection.next_event(), h11.EndOfMessage):
                    pass
                if target.startswith("/cut-"):
                    raw = {
                        "/cut-body": b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b",
                        "/cut-chunk": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
                        "/cut-head": b"HTTP/1.1 200 OK\r\nContent-Le",
                        "/cut-status": b"HTTP/1.",
                    }[target.split("?")[0].replace("-rst", "")]
                    sock.sendall(raw)
                    if "-rst" in target:
                        reset(sock)
                    else:
                        sock.shutdown(socket.SHUT_WR)
                        while sock.recv(65536):
                            pass
                        sock.close()
                    return
                headers = [("Content-Type", "text/plain")]
                if target == "/fixed":
                    headers.append(("Content-Length", "5"))
                    parts = [b"fixed"]
                elif target == "/chunked":
                    parts = [b"chun", b"ked ", b"body"]
                elif target == "/close":
                    headers += [("Content-Length", "5"), ("Connection", "close")]
                    parts = [b"close"]
                else:
                    headers.append(("Content-Length", "9"))
                    parts = [b"not found"]
                sock.sendall(connection.send(h11.Response(status_code=200, headers=headers)))
                for part in parts:
                    sock.sendall(connection.send(h11.Data(data=part)))
                sock.sendall(connection.send(h11.EndOfMessage()))
                if connection.our_state is h11.MUST_CLOSE:
                    break
                connection.start_next_cycle()
            elif isinstance(event, h11.ConnectionClosed):
                break
    except (OSError, h11.RemoteProtocolError):
        pass
    sock.close()


def against_h11():
    server = Listener(h11_serve)
    base = f"http://127.0.0.1:{server.port}"
    outcomes = run_client(f"GET {base}/fixed", f"GET {base}/chunked", f"GET {base}/fixed",
                          f"GET {base}/chunked")
    report.check("h11: Content-Length and chunked bodies read whole",
                 [o.get("body") for o in outcomes] == ["fixed", "chunked body", "fixed",
                                                        "chunked body"], f"{outcomes}")
    report.check("h11: four requests reuse one kept-alive connection", server.accepted == 1,
                 f"{server.accepted} connections")
    before = server.accepted
    outcomes = run_client(f"GET {base}/close", f"GET {base}/close", f"GET {base}/fixed")
    report.check("h11: Connection: close is honoured (a new connection after each)",
                 [o.get("body") for o in outcomes] == ["close", "close", "fixed"]
                 and server.accepted - before == 3, f"{outcomes} {server.accepted - before}")
    for path in ["/cut-status", "/cut-head", "/cut-body", "/cut-chunk"]:
        for kind in ["", "-rst"]:
            outcomes = run_client(f"GET {base}{path}{kind}", f"GET {base}/fixed")
            first = outcomes[0] if outcomes else {}
            report.check(
                f"h11: a response cut in {path[5:]} ({'RST' if kind else 'FIN'}) is a typed error, "
                "and the client goes on",
                first.get("reason") == "connectionClosed"
                and first.get("error") == "the connection closed before the response was complete"
                and len(outcomes) == 2 and outcomes[1].get("body") == "fixed", f"{outcomes}")
    server.close()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *arguments):
        pass

    def setup(self):
        super().setup()
        with self.server.lock:
            self.server.connections += 1

    def answer(self, body):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        if self.protocol_version == "HTTP/1.1":
            self.send_header("Content-Length", str(len(body)))
            if self.path == "/close":
                self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.answer(f"got {self.path}".encode())

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.answer(b"echo " + self.rfile.read(length))


def start_http_server(protocol):
    handler = type("ProtocolHandler", (Handler,), {"protocol_version": protocol})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    server.lock = threading.Lock()
    server.connections = 0
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def against_http_server():
    old = start_http_server("HTTP/1.0")
    base = f"http://127.0.0.1:{old.server_address[1]}"
    outcomes = run_client(f"GET {base}/a", f"GET {base}/b")
    report.check("http.server HTTP/1.0: bodies framed by the close are read to the end",
                 [o.get("body") for o in outcomes] == ["got /a", "got /b"], f"{outcomes}")
    report.check("http.server HTTP/1.0: a new connection per request", old.connections == 2,
                 f"{old.connections}")
    old.shutdown()

    kept = start_http_server("HTTP/1.1")
    base = f"http://127.0.0.1:{kept.server_address[1]}"
    outcomes = run_client(f"GET {base}/1", f"POST {base}/echo κόσμε", f"GET {base}/3")
    report.check("http.server HTTP/1.1: GET, POST with a body, GET",
                 [o.get("body") for o in outcomes] == ["got /1", "echo κόσμε", "got /3"],
                 f"{outcomes}")
    report.check("http.server HTTP/1.1: one kept-alive connection", kept.connections == 1,
                 f"{kept.connections}")
    outcomes = run_client(f"GET {base}/close", f"GET {base}/after")
    report.check("http.server HTTP/1.1: Connection: close, then a new connection",
                 [o.get("body") for o in outcomes] == ["got /close", "got /after"]
                 and kept.connections == 3, f"{outcomes} {kept.connections}")
    kept.shutdown()


def main():
    against_h11()
    against_http_server()
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
