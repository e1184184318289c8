"""HTTP/1.1 robustness: raw-socket requests from the llhttp test and request-smuggling
categories. Each malformed request must get the documented status with the JSON error shape,
and then the connection must be closed without a second response, whatever bytes followed.
A few well-formed controls check that strictness did not break valid requests.
"""

import json
import socket
import sys
import time

import wirepeer

H = b"Host: example\r\n"


def req(head, body=b""):
    return head + b"\r\n\r\n" + body


def post(headers, body=b""):
    return b"POST /echo HTTP/1.1\r\n" + H + headers + b"\r\n" + body


CASES = [
    # Request line.
    ("request line: two spaces after the method", b"GET  / HTTP/1.1\r\n" + H + b"\r\n", 400),
    ("request line: trailing space after the version", b"GET / HTTP/1.1 \r\n" + H + b"\r\n", 400),
    ("request line: no version", b"GET /\r\n" + H + b"\r\n", 400),
    ("request line: junk after the version", b"GET / HTTP/1.1x\r\n" + H + b"\r\n", 400),
    ("request line: HTTP/2.0", b"GET / HTTP/2.0\r\n" + H + b"\r\n", 505),
    ("request line: HTTP/0.9", b"GET / HTTP/0.9\r\n" + H + b"\r\n", 505),
    ("request line: HTTP/3.0", b"GET / HTTP/3.0\r\n" + H + b"\r\n", 505),
    ("request line: lowercase protocol name", b"GET / http/1.1\r\n" + H + b"\r\n", 400),
    ("request line: version without minor", b"GET / HTTP/1\r\n" + H + b"\r\n", 400),
    ("request line: three-part version", b"GET / HTTP/1.1.1\r\n" + H + b"\r\n", 400),
    ("request line: letters as version", b"GET / HTTP/a.b\r\n" + H + b"\r\n", 400),
    ("request line: method with '@'", b"G@T / HTTP/1.1\r\n" + H + b"\r\n", 400),
    ("request line: leading space", b" GET / HTTP/1.1\r\n" + H + b"\r\n", 400),
    ("request line: tabs as separators", b"GET\t/\tHTTP/1.1\r\n" + H + b"\r\n", 400),
    ("request line: NUL in the target", b"GET /\x00 HTTP/1.1\r\n" + H + b"\r\n", 400),
    ("request line: space inside the target", b"GET /a b HTTP/1.1\r\n" + H + b"\r\n", 400),
    ("request line: DEL in the target", b"GET /\x7f HTTP/1.1\r\n" + H + b"\r\n", 400),
    ("request line: raw UTF-8 in the target", "GET /é HTTP/1.1\r\n".encode() + H + b"\r\n", 400),
    ("request line: target without a slash", b"GET foo HTTP/1.1\r\n" + H + b"\r\n", 400),
    ("request line: CONNECT authority form", b"CONNECT example.com:443 HTTP/1.1\r\n" + H + b"\r\n",
     400),
    ("request line: '*' with GET", b"GET * HTTP/1.1\r\n" + H + b"\r\n", 400),
    ("request line: 9000-byte target", b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n" + H + b"\r\n", 414),
    ("request line: one byte over 8 KiB", b"GET /" + b"a" * (8192 - 13) + b" HTTP/1.1\r\n" + H
     + b"\r\n", 414),
    ("request line: endless without a line end", b"GET /" + b"a" * 20000, 414),
    ("request line: bare CR inside", b"GET / HTTP/1.1\rX\r\n" + H + b"\r\n", 400),
    ("request line: bare LF line ends", b"GET / HTTP/1.1\nHost: example\n\n", 400),
    ("request line: ten empty lines first", b"\r\n" * 10 + b"GET / HTTP/1.1\r\n" + H + b"\r\n", 400),
    ("request line: a TLS ClientHello", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40
     + b"\r\n\r\n", 400),
    ("request line: the HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
    ("request line: NUL as the first byte", b"\x00GET / HTTP/1.1\r\n" + H + b"\r\n", 400),
    # Header syntax.
    ("header: space before the colon", b"GET / HTTP/1.1\r\nHost : example\r\n\r\n", 400),
    ("header: tab before the colon", b"GET / HTTP/1.1\r\nHost\t: example\r\n\r\n", 400),
    ("header: no colon", b"GET / HTTP/1.1\r\n" + H + b"Foo bar\r\n\r\n", 400),
    ("header: empty name", b"GET / HTTP/1.1\r\n" + H + b": value\r\n\r\n", 400),
    ("header: obs-fold with spaces", b"GET / HTTP/1.1\r\n" + H + b"X-A: a\r\n  b\r\n\r\n", 400),
    ("header: obs-fold with a tab", b"GET / HTTP/1.1\r\n" + H + b"X-A: a\r\n\tb\r\n\r\n", 400),
    ("header: first field line starts with a space", b"GET / HTTP/1.1\r\n " + H + b"\r\n", 400),
    ("header: NUL in a value", b"GET / HTTP/1.1\r\n" + H + b"X-A: a\x00b\r\n\r\n", 400),
    ("header: bare CR in a value", b"GET / HTTP/1.1\r\n" + H + b"X-A: a\rb\r\n\r\n", 400),
    ("header: bare LF between fields", b"GET / HTTP/1.1\r\n" + H + b"X-A: a\nX-B: b\r\n\r\n", 400),
    ("header: DEL in a value", b"GET / HTTP/1.1\r\n" + H + b"X-A: a\x7fb\r\n\r\n", 400),
    ("header: control byte in a value", b"GET / HTTP/1.1\r\n" + H + b"X-A: a\x01b\r\n\r\n", 400),
    ("header: '@' in a name", b"GET / HTTP/1.1\r\n" + H + b"X@A: a\r\n\r\n", 400),
    ("header: non-ASCII name", "GET / HTTP/1.1\r\nHost: example\r\nXé: a\r\n\r\n".encode(), 400),
    ("header: '(' in a name", b"GET / HTTP/1.1\r\n" + H + b"X(A): a\r\n\r\n", 400),
    ("header: space inside a name", b"GET / HTTP/1.1\r\n" + H + b"Foo Bar: a\r\n\r\n", 400),
    ("header: one field of 9000 bytes", b"GET / HTTP/1.1\r\n" + H + b"X-A: " + b"a" * 9000
     + b"\r\n\r\n", 431),
    ("header: one field without a line end", b"GET / HTTP/1.1\r\n" + H + b"X-A: " + b"a" * 20000,
     431),
    ("header: 101 fields", b"GET / HTTP/1.1\r\n" + H + b"".join(b"X-%d: a\r\n" % i for i in range(100))
     + b"\r\n", 431),
    ("header: 40 KiB of fields", b"GET / HTTP/1.1\r\n" + H + b"".join(
        b"X-%d: " % i + b"a" * 7000 + b"\r\n" for i in range(6)) + b"\r\n", 431),
    ("header: HTTP/1.1 without Host", b"GET / HTTP/1.1\r\nX-A: a\r\n\r\n", 400),
    ("header: two Host fields", b"GET / HTTP/1.1\r\n" + H + H + b"\r\n", 400),
    ("header: two Host fields, different case", b"GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", 400),
    ("header: Expect other than 100-continue", b"GET / HTTP/1.1\r\n" + H + b"Expect: 200-ok\r\n\r\n",
     417),
    # Content-Length.
    ("content-length: letters", post(b"Content-Length: abc\r\n"), 400),
    ("content-length: negative", post(b"Content-Length: -1\r\n"), 400),
    ("content-length: plus sign", post(b"Content-Length: +5\r\n", b"hello"), 400),
    ("content-length: hexadecimal", post(b"Content-Length: 0x10\r\n"), 400),
    ("content-length: two numbers with a space", post(b"Content-Length: 5 5\r\n", b"hello"), 400),
    ("content-length: comma list", post(b"Content-Length: 5,5\r\n", b"hello"), 400),
    ("content-length: two equal fields", post(b"Content-Length: 5\r\nContent-Length: 5\r\n",
                                              b"hello"), 400),
    ("content-length: two different fields", post(b"Content-Length: 5\r\nContent-Length: 6\r\n",
                                                  b"hello!"), 400),
    ("content-length: twenty digits", post(b"Content-Length: 99999999999999999999\r\n"), 400),
    ("content-length: over the 64 KiB limit", post(b"Content-Length: 70000\r\n", b"a" * 1000), 413),
    ("content-length: decimal point", post(b"Content-Length: 1.5\r\n", b"a"), 400),
    ("content-length: empty", post(b"Content-Length: \r\n"), 400),
    ("content-length: exponent", post(b"Content-Length: 1e3\r\n"), 400),
    ("content-length: over the limit with Expect: 100-continue",
     post(b"Content-Length: 100000\r\nExpect: 100-continue\r\n"), 413),
    # Transfer-Encoding.
    ("transfer-encoding: chunked and Content-Length",
     post(b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", b"0\r\n\r\n"), 400),
    ("transfer-encoding: Content-Length then chunked",
     post(b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", b"0\r\n\r\n"), 400),
    ("transfer-encoding: gzip, chunked", post(b"Transfer-Encoding: gzip, chunked\r\n", b"0\r\n\r\n"),
     501),
    ("transfer-encoding: chunked, gzip", post(b"Transfer-Encoding: chunked, gzip\r\n", b"0\r\n\r\n"),
     400),
    ("transfer-encoding: gzip alone", post(b"Transfer-Encoding: gzip\r\n", b"0\r\n\r\n"), 400),
    ("transfer-encoding: chunked, chunked", post(b"Transfer-Encoding: chunked, chunked\r\n",
                                                  b"0\r\n\r\n"), 400),
    ("transfer-encoding: two chunked fields",
     post(b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", b"0\r\n\r\n"), 400),
    ("transfer-encoding: chunked then a second field 'x'",
     post(b"Transfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n", b"0\r\n\r\n"), 400),
    ("transfer-encoding: xchunked", post(b"Transfer-Encoding: xchunked\r\n", b"0\r\n\r\n"), 400),
    ("transfer-encoding: chunk", post(b"Transfer-Encoding: chunk\r\n", b"0\r\n\r\n"), 400),
    ("transfer-encoding: identity", post(b"Transfer-Encoding: identity\r\n", b"0\r\n\r\n"), 400),
    ("transfer-encoding: chunked with a parameter", post(b"Transfer-Encoding: chunked;q=1\r\n",
                                                         b"0\r\n\r\n"), 400),
    ("transfer-encoding: in HTTP/1.0", b"POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"
     b"0\r\n\r\n", 400),
    ("transfer-encoding: empty value", post(b"Transfer-Encoding: \r\n", b"0\r\n\r\n"), 400),
    ("transfer-encoding: leading comma", post(b"Transfer-Encoding: ,chunked\r\n", b"0\r\n\r\n"), 400),
    ("transfer-encoding: obs-folded value", post(b"Transfer-Encoding:\r\n chunked\r\n", b"0\r\n\r\n"),
     400),
    ("transfer-encoding: space before the colon", post(b"Transfer-Encoding : chunked\r\n",
                                                       b"0\r\n\r\n"), 400),
    ("transfer-encoding: NUL after chunked", post(b"Transfer-Encoding: chunked\x00\r\n", b"0\r\n\r\n"),
     400),
    ("transfer-encoding: vertical tab before chunked", post(b"Transfer-Encoding:\x0bchunked\r\n",
                                                            b"0\r\n\r\n"), 400),
    # Chunked bodies.
    ("chunked: size is not hexadecimal", post(b"Transfer-Encoding: chunked\r\n", b"zz\r\nhello\r\n"),
     400),
    ("chunked: empty size line", post(b"Transfer-Encoding: chunked\r\n", b"\r\nhello\r\n"), 400),
    ("chunked: 0x prefix", post(b"Transfer-Encoding: chunked\r\n", b"0x5\r\nhello\r\n0\r\n\r\n"), 400),
    ("chunked: negative size", post(b"Transfer-Encoding: chunked\r\n", b"-5\r\nhello\r\n0\r\n\r\n"), 400),
    ("chunked: seventeen hex digits", post(b"Transfer-Encoding: chunked\r\n",
                                           b"10000000000000000\r\nhello\r\n"), 400),
    ("chunked: data longer than the size", post(b"Transfer-Encoding: chunked\r\n",
                                                b"3\r\nhello\r\n0\r\n\r\n"), 400),
    ("chunked: data shorter than the size", post(b"Transfer-Encoding: chunked\r\n",
                                                 b"5\r\nabc\r\n0\r\n\r\n"), 400),
    ("chunked: bare LF after the size", post(b"Transfer-Encoding: chunked\r\n",
                                             b"5\nhello\r\n0\r\n\r\n"), 400),
    ("chunked: bare LF after the data", post(b"Transfer-Encoding: chunked\r\n",
                                             b"5\r\nhello\n0\r\n\r\n"), 400),
    ("chunked: control byte in an extension", post(b"Transfer-Encoding: chunked\r\n",
                                                   b"5;\x01\r\nhello\r\n0\r\n\r\n"), 400),
    ("chunked: bare CR in an extension", post(b"Transfer-Encoding: chunked\r\n",
                                              b"5;a\rb\r\nhello\r\n0\r\n\r\n"), 400),
    ("chunked: 5000-byte size line", post(b"Transfer-Encoding: chunked\r\n",
                                          b"5;" + b"a" * 5000 + b"\r\nhello\r\n0\r\n\r\n"), 400),
    ("chunked: one chunk over the body limit", post(b"Transfer-Encoding: chunked\r\n",
                                                    b"11170\r\n" + b"a" * 1000), 413),
    ("chunked: small chunks adding up over the limit", post(
        b"Transfer-Encoding: chunked\r\n", b"".join(b"1000\r\n" + b"a" * 4096 + b"\r\n"
                                                     for _ in range(17)) + b"0\r\n\r\n"), 413),
    ("chunked: trailer with obs-fold", post(b"Transfer-Encoding: chunked\r\n",
                                            b"0\r\nX-T: a\r\n b\r\n\r\n"), 400),
    ("chunked: trailer without a colon", post(b"Transfer-Encoding: chunked\r\n",
                                              b"0\r\nnot a field\r\n\r\n"), 400),
    ("chunked: trailer with NUL", post(b"Transfer-Encoding: chunked\r\n", b"0\r\nX-T: a\x00\r\n\r\n"),
     400),
    ("chunked: leading space before the size", post(b"Transfer-Encoding: chunked\r\n",
                                                    b" 5\r\nhello\r\n0\r\n\r\n"), 400),
    ("chunked: garbage after the size", post(b"Transfer-Encoding: chunked\r\n",
                                             b"5 x\r\nhello\r\n0\r\n\r\n"), 400),
    # Request smuggling: the bytes after a refused request are never read as a request.
    ("smuggling: CL.TE prefix", post(b"Content-Length: 6\r\nTransfer-Encoding: chunked\r\n",
                                     b"0\r\n\r\nG"), 400),
    ("smuggling: TE.CL with a smuggled request", post(
        b"Transfer-Encoding: chunked\r\nContent-Length: 3\r\n",
        b"8\r\nSMUGGLED\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: example\r\n\r\n"), 400),
    ("smuggling: TE.TE with a bogus second coding", post(
        b"Transfer-Encoding: chunked\r\nTransfer-Encoding: cow\r\n",
        b"0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: example\r\n\r\n"), 400),
    ("smuggling: Transfer-Encoding with a leading space (folded onto Host)",
     b"POST /echo HTTP/1.1\r\nHost: example\r\n Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n"
     b"0\r\n\r\n", 400),
    ("smuggling: Content-Length 0 and a chunked body", post(
        b"Content-Length: 0\r\nTransfer-Encoding: chunked\r\n",
        b"5\r\nhello\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: example\r\n\r\n"), 400),
    ("smuggling: duplicate Content-Length hides a request", post(
        b"Content-Length: 0\r\nContent-Length: 39\r\n",
        b"GET /healthz HTTP/1.1\r\nHost: example\r\n\r\n"), 400),
    ("smuggling: bare LF before Transfer-Encoding", b"POST /echo HTTP/1.1\r\nHost: example\r\nX: y\n"
     b"Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n", 400),
    ("smuggling: bare CR before Transfer-Encoding", b"POST /echo HTTP/1.1\r\nHost: example\r\nX: y\r"
     b"Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n", 400),
    ("smuggling: request after a header error is not served",
     b"GET / HTTP/1.1\r\nHost : example\r\n\r\nGET /healthz HTTP/1.1\r\nHost: example\r\n\r\n", 400),
    ("smuggling: request after an over-limit body is not served", post(
        b"Content-Length: 70000\r\n", b"GET /healthz HTTP/1.1\r\nHost: example\r\n\r\n"), 413),
    ("smuggling: request after a chunk error is not served", post(
        b"Transfer-Encoding: chunked\r\n", b"5\r\nhelloXX0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
     400),
    ("smuggling: request hidden in an obs-folded header",
     b"GET / HTTP/1.1\r\nHost: example\r\nX: a\r\n GET /healthz HTTP/1.1\r\n\r\n", 400),
    ("smuggling: Transfer-Encoding in HTTP/1.0 with keep-alive",
     b"POST /echo HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n"
     b"Content-Length: 5\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    ("smuggling: NUL in Content-Length", post(b"Content-Length: 5\x00\r\n", b"hello"), 400),
    ("smuggling: Content-Length with a trailing letter", post(b"Content-Length: 5x\r\n", b"hello"),
     400),
]


def read_all(sock, timeout):
    """Everything until EOF; (data, closed)."""
    data, deadline = b"", time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            return data, False
        except ConnectionResetError:
            return data, True
        if not chunk:
            return data, True
        data += chunk
    return data, False


def statuses(data):
    found = []
    for line in data.split(b"\r\n"):
        if line.startswith(b"HTTP/1.1 ") and line[9:12].isdigit():
            found.append(int(line[9:12]))
    return found


def run_error_case(port, name, raw, expected):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        sock.sendall(raw)
    except (BrokenPipeError, ConnectionResetError):
        pass
    data, closed = read_all(sock, 5.0)
    sock.close()
    found = statuses(data)
    problems = []
    if not found or found[0] != expected:
        problems.append(f"expected {expected}, got {found or data[:60]!r}")
    if len(found) > 1:
        problems.append(f"more than one response: {found}")
    if not closed:
        problems.append("the connection stayed open")
    head, _, body = data.partition(b"\r\n\r\n")
    if found and found[0] >= 400:
        try:
            error = json.loads(body)["error"]
            if not isinstance(error["code"], str) or not isinstance(error["message"], str):
                problems.append("error body without code and message")
        except (ValueError, KeyError, TypeError):
            problems.append(f"error body is not the API error shape: {body[:80]!r}")
    return "; ".join(problems) or None


def exchange(sock, raw, count):
    """Sends raw and reads `count` responses; returns their statuses and bodies."""
    sock.sendall(raw)
    data, responses = b"", []
    sock.settimeout(5)
    while len(responses) < count:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
        while True:
            head, sep, rest = data.partition(b"\r\n\r\n")
            if not sep:
                break
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if len(rest) < length:
                break
            responses.append((int(head[9:12]), rest[:length]))
            data = rest[length:]
    return responses


def controls(port, report):
    def check(name, raw, expected_statuses, bodies=None):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        try:
            got = exchange(sock, raw, len(expected_statuses))
            ok = [s for s, _ in got] == expected_statuses and (
                bodies is None or [b for _, b in got] == bodies)
            report.check(f"control: {name}", ok, f"got {got!r:.200}")
        finally:
            sock.close()

    check("keep-alive serves two requests on one connection",
          req(b"GET /healthz HTTP/1.1\r\nHost: x") + req(b"GET /healthz HTTP/1.1\r\nHost: x"),
          [200, 200], [b"ok", b"ok"])
    check("pipelined POST with Content-Length then GET",
          post(b"Content-Length: 5\r\n", b"hello") + req(b"GET /healthz HTTP/1.1\r\nHost: x"),
          [200, 200], [b"hello", b"ok"])
    check("chunked body with extensions and trailers",
          post(b"Transfer-Encoding: chunked\r\n",
               b"5;name=value\r\nhello\r\n6;a;b=\"q\"\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"),
          [200], [b"hello world"])
    check("a tab as whitespace around Transfer-Encoding's value",
          post(b"Transfer-Encoding:\tchunked\t\r\n", b"3\r\nabc\r\n0\r\n\r\n"), [200], [b"abc"])
    check("HTTP/1.0 without Host", b"GET /healthz HTTP/1.0\r\n\r\n", [200], [b"ok"])
    check("absolute-form target", req(b"GET http://example/healthz HTTP/1.1\r\nHost: example"),
          [200], [b"ok"])
    check("one empty line before the request line",
          b"\r\n" + req(b"GET /healthz HTTP/1.1\r\nHost: x"), [200], [b"ok"])
    check("body of exactly 64 KiB", post(b"Content-Length: 65536\r\n", b"b" * 65536), [200],
          [b"b" * 65536])
    check("chunked body of exactly 64 KiB", post(
        b"Transfer-Encoding: chunked\r\n", b"10000\r\n" + b"c" * 65536 + b"\r\n0\r\n\r\n"),
        [200], [b"c" * 65536])
    check("request line of exactly 8 KiB is accepted",
          req(b"GET /" + b"a" * (8192 - 14) + b" HTTP/1.1\r\nHost: x"), [404], None)
    check("unknown route is a JSON 404", req(b"GET /nope HTTP/1.1\r\nHost: x"), [404], None)

    # Expect: 100-continue: the server answers 100 before the body is sent.
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(post(b"Content-Length: 5\r\nExpect: 100-continue\r\n"))
    interim = sock.recv(100)
    sock.sendall(b"hello")
    got = exchange(sock, b"", 1)
    report.check("control: Expect: 100-continue gets 100 before the body",
                 interim.startswith(b"HTTP/1.1 100 Continue\r\n\r\n") and got == [(200, b"hello")],
                 f"{interim!r} {got!r}")
    sock.close()

    # HEAD: the headers of the GET response (Content-Length included) and no body.
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(req(b"HEAD /healthz HTTP/1.1\r\nHost: x"))
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += sock.recv(1)
    got = exchange(sock, req(b"GET /healthz HTTP/1.1\r\nHost: x"), 1)
    report.check("control: HEAD gets the headers and no body",
                 head.startswith(b"HTTP/1.1 200") and b"Content-Length: 2" in head
                 and got == [(200, b"ok")], f"{head!r} {got!r}")
    sock.close()

    # Connection: close closes after the response.
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(req(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close"))
    data, closed = read_all(sock, 3)
    report.check("control: Connection: close closes after the response",
                 closed and statuses(data) == [200] and b"Connection: close" in data, repr(data))
    sock.close()


def main():
    report = wirepeer.Report("http robustness")
    with wirepeer.Server() as server:
        for name, raw, expected in CASES:
            problem = run_error_case(server.port, name, raw, expected)
            report.check(name, problem is None, problem or "")
        errors_passed = report.passed
        controls(server.port, report)
        # The server is still healthy after all of that.
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        report.check("server still serves after the robustness cases",
                     exchange(sock, req(b"GET /healthz HTTP/1.1\r\nHost: x"), 1) == [(200, b"ok")])
        sock.close()
    groups = {}
    for name, _, _ in CASES:
        group = name.split(":")[0]
        groups[group] = groups.get(group, 0) + 1
    print("  malformed-request cases per category: "
          + ", ".join(f"{group} {count}" for group, count in groups.items())
          + f" (total {len(CASES)}, {errors_passed} passed)")
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
