"""API.md's error table, its precedence order, and the parser-level errors, over the network."""

import socket
import time
import uuid

from chatserver import Device, Server, has_error_shape

NIL = "00000000-0000-4000-8000-000000000000"  # a well-formed conversation id nobody has


def raw_request(server, data, read_timeout=10):
    """Sends raw bytes, returns (status, headers text, body bytes) of the one answer."""
    with server.open_socket(read_timeout) as conn:
        try:
            conn.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        chunks = []
        while True:
            try:
                chunk = conn.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            chunks.append(chunk)
    raw = b"".join(chunks)
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    return status, "\r\n".join(lines[1:]), body


class RawAnswer:
    """A raw answer with the few attributes `has_error_shape` reads."""

    def __init__(self, status, headers, body):
        self.status_code = status
        self.text = body.decode(errors="replace")
        self._body = body
        self.headers = {}
        for line in headers.split("\r\n"):
            name, _, value = line.partition(":")
            self.headers[name.strip().lower()] = value.strip()

    def json(self):
        import json
        return json.loads(self._body)


def run(report, server):
    report.start_group("errors")
    alice = Device(server, "err-alice")
    bob = Device(server, "err-bob")
    carol = Device(server, "err-carol")
    conversation = alice.create(["err-bob"])["id"]
    first = alice.send(conversation, "first")
    report.check("a send is 201", first.status_code == 201, first.text)
    anonymous = server.client()
    path = f"/v1/conversations/{conversation}/messages"

    # 400 bad_request
    report.expect_error("body not JSON", alice.request("POST", "/v1/conversations", content=b"{not json"),
                        400, "bad_request")
    report.expect_error("body JSON but not an object",
                        alice.request("POST", "/v1/conversations", content=b"[1,2]"), 400, "bad_request")
    report.expect_error("field missing (memberIds)",
                        alice.request("POST", "/v1/conversations", {"title": "x"}), 400, "bad_request")
    report.expect_error("field of the wrong type (memberIds a string)",
                        alice.request("POST", "/v1/conversations", {"memberIds": "err-bob"}), 400, "bad_request")
    report.expect_error("field of the wrong type (text a number)",
                        alice.request("POST", path, {"clientMessageId": str(uuid.uuid4()), "text": 5}),
                        400, "bad_request")
    report.expect_error("field missing (clientMessageId)", alice.request("POST", path, {"text": "x"}),
                        400, "bad_request")
    report.expect_error("upToSequence not an integer",
                        alice.mark("read", conversation, "3"), 400, "bad_request")
    report.expect_error("upToSequence a fraction", alice.mark("read", conversation, 1.5), 400, "bad_request")
    for name, value in [("limit", "abc"), ("limit", "1.5"), ("before", "x"), ("after", "")]:
        report.expect_error(f"query {name}={value!r} not a number",
                            alice.messages(conversation, **{name: value}), 400, "bad_request")
    report.expect_error("malformed conversation id in the path",
                        alice.request("GET", "/v1/conversations/not-a-uuid/messages"), 400, "bad_request")
    report.expect_error("malformed clientMessageId",
                        alice.request("POST", path, {"clientMessageId": "msg-1", "text": "x"}), 400, "bad_request")
    report.expect_error("malformed user id in memberIds",
                        alice.request("POST", "/v1/conversations", {"memberIds": ["Bob!"]}), 400, "bad_request")
    report.expect_error("malformed user id at dev-login",
                        anonymous.post("/v1/auth/dev-login", json={"userId": "Alice", "deviceId": "p"}),
                        400, "bad_request")
    report.expect_error("malformed device id at dev-login",
                        anonymous.post("/v1/auth/dev-login", json={"userId": "alice", "deviceId": ""}),
                        400, "bad_request")
    report.expect_error("malformed cursor", alice.request("GET", "/v1/sync", params={"cursor": "zz"}),
                        400, "bad_request")

    # 401 unauthorized
    missing = anonymous.get("/v1/conversations")
    report.expect_error("no token", missing, 401, "unauthorized")
    report.check("a 401 says WWW-Authenticate: Bearer",
                 missing.headers.get("www-authenticate", "").lower().startswith("bearer"), str(missing.headers))

    # 404 not_found
    report.expect_error("unknown route (with a token)", alice.request("GET", "/v1/nothing"), 404, "not_found")
    report.expect_error("unknown method on a known path", alice.request("DELETE", "/v1/conversations"),
                        404, "not_found")
    unknown = alice.messages(NIL)
    report.expect_error("unknown conversation", unknown, 404, "not_found")
    outsider = carol.messages(conversation)
    report.expect_error("a conversation the caller is not in", outsider, 404, "not_found")
    report.check("a non-member gets exactly the unknown-conversation answer",
                 outsider.content == unknown.content and outsider.headers.get("content-type")
                 == unknown.headers.get("content-type"), f"{outsider.text!r} vs {unknown.text!r}")
    for label, response in [
        ("send", carol.send(conversation, "x")), ("receipts", carol.receipts(conversation)),
        ("delivered", carol.mark("delivered", conversation, 0)), ("read", carol.mark("read", conversation, 0)),
    ]:
        report.check(f"a non-member's {label} is the unknown-conversation answer",
                     response.status_code == 404 and response.content == unknown.content, response.text)

    # 409 conflict
    key = str(uuid.uuid4())
    alice.send(conversation, "one text", key)
    report.expect_error("same clientMessageId, different text", alice.send(conversation, "another", key),
                        409, "conflict")

    # 413 too_large
    big = b'{"title":"' + b"x" * (64 * 1024) + b'","memberIds":[]}'
    report.expect_error("body over 64 KiB", alice.request("POST", "/v1/conversations", content=big),
                        413, "too_large")
    report.expect_error("text over 4,096 scalars", alice.send(conversation, "a" * 4097), 413, "too_large")

    # 422 invalid
    report.expect_error("empty text", alice.send(conversation, ""), 422, "invalid")
    for name, value in [("limit", 0), ("limit", 201), ("limit", -1), ("before", -1), ("after", -1)]:
        report.expect_error(f"{name}={value} out of range", alice.messages(conversation, **{name: value}),
                            422, "invalid")
    report.expect_error("both before and after", alice.messages(conversation, before=5, after=1), 422, "invalid")
    members = [f"err-m{index}" for index in range(256)]
    report.expect_error("group of 257 with the creator",
                        alice.request("POST", "/v1/conversations", {"memberIds": members}), 422, "invalid")
    report.expect_error("read above the newest sequence", alice.mark("read", conversation, 99), 422, "invalid")
    report.expect_error("delivered below 0", alice.mark("delivered", conversation, -1), 422, "invalid")

    run_precedence(report, server, alice, bob, carol, conversation, anonymous)
    run_parser_errors(report, server)
    anonymous.close()
    for device in (alice, bob, carol):
        device.close()


def run_precedence(report, server, alice, bob, carol, conversation, anonymous):
    """401, 429, 413, 400, 404, 422, 409: the first that applies wins."""
    report.start_group("precedence")
    path = f"/v1/conversations/{conversation}/messages"
    big = b"{" + b" " * (70 * 1024) + b"}"  # over 64 KiB, under the network layer's own limit
    bad = {"Authorization": "Bearer not-a-token"}
    # 401 first
    report.expect_error("401 over 413 (big body, no token)", anonymous.post(path, content=big), 401, "unauthorized")
    report.expect_error("401 over 400 (not JSON, no token)", anonymous.post(path, content=b"{"), 401, "unauthorized")
    report.expect_error("401 over 404 (unknown route, no token)", anonymous.get("/v1/nothing"), 401, "unauthorized")
    report.expect_error("401 over 404 (unknown conversation, bad token)",
                        anonymous.get(f"/v1/conversations/{NIL}/messages", headers=bad), 401, "unauthorized")
    report.expect_error("401 over 422 (limit=0, no token)", anonymous.get(path, params={"limit": 0}),
                        401, "unauthorized")
    # 413 over 400, 404, 422
    report.expect_error("413 over 400 (big body that is not JSON)",
                        alice.request("POST", path, content=b"[" * (70 * 1024)), 413, "too_large")
    report.expect_error("413 over 400 (long text, malformed clientMessageId)",
                        alice.request("POST", path, {"clientMessageId": "x", "text": "a" * 4097}), 413, "too_large")
    report.expect_error("413 over 404 (long text, unknown conversation)",
                        alice.send(NIL, "a" * 4097), 413, "too_large")
    report.expect_error("413 over 400 (long text, malformed conversation id)",
                        alice.request("POST", "/v1/conversations/nope/messages",
                                      {"clientMessageId": str(uuid.uuid4()), "text": "a" * 4097}), 413, "too_large")
    # 400 over 404, 422
    report.expect_error("400 over 404 (not JSON, unknown conversation)",
                        alice.request("POST", f"/v1/conversations/{NIL}/messages", content=b"{"), 400, "bad_request")
    report.expect_error("400 over 404 (malformed clientMessageId, non-member)",
                        carol.request("POST", path, {"clientMessageId": "x", "text": "hi"}), 400, "bad_request")
    report.expect_error("400 over 422 (limit=abc with before and after)",
                        alice.messages(conversation, limit="abc", before=5, after=1), 400, "bad_request")
    # 404 over 422, 409
    report.expect_error("404 over 422 (limit=0, unknown conversation)", alice.messages(NIL, limit=0),
                        404, "not_found")
    report.expect_error("404 over 422 (empty text, non-member)", carol.send(conversation, ""), 404, "not_found")
    report.expect_error("404 over 422 (read above newest, non-member)", carol.mark("read", conversation, 999),
                        404, "not_found")
    key = str(uuid.uuid4())
    alice.send(conversation, "kept", key)
    report.expect_error("404 over 409 (reused key, other user not a member)",
                        carol.send(conversation, "changed", key), 404, "not_found")
    # 422 over 409
    report.expect_error("422 over 409 (reused key with empty text)", alice.send(conversation, "", key),
                        422, "invalid")


def run_parser_errors(report, server):
    """Errors the network layer answers before the service: still API.md's error shape."""
    report.start_group("parser errors")
    cases = [
        ("body over the network layer's limit (2 MiB)", 413,
         b"POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Length: 2097152\r\n\r\n" + b"x" * 2097152),
        ("request line over 8 KiB", 414, b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("header section too large", 431,
         b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n"),
        ("malformed request line", 400, b"GARBAGE\r\n\r\n"),
        ("bare LF in headers", 400, b"GET /healthz HTTP/1.1\nHost: x\n\n"),
        ("Content-Length and Transfer-Encoding", 400,
         b"POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
         b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ]
    for label, status, data in cases:
        answer = RawAnswer(*raw_request(server, data))
        report.check(f"{label}: {status}", answer.status_code == status, f"got {answer.status_code}")
        report.check(f"{label}: API error shape", has_error_shape(answer), answer.text[:200])
    too_large = RawAnswer(*raw_request(server, cases[0][2]))
    report.check("the network layer's 413 says too_large", "too_large" in too_large.text, too_large.text)
    # Each still gets its log line and its count (written just after the answer: wait, bounded).
    wanted = {("413", "too_large"): 2, ("414", "uri_too_long"): 1, ("431", "headers_too_large"): 1,
              ("400", "bad_request"): 3}
    deadline = time.monotonic() + 10
    while True:
        lines = [line for line in server.read_log().splitlines() if "route=unparsed" in line]
        counts = {key: sum(f"status={key[0]} " in line and f"code={key[1]}" in line for line in lines)
                  for key in wanted}
        if all(counts[key] >= wanted[key] for key in wanted) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    report.check("every request the network layer refused has its log line", all(
        counts[key] >= wanted[key] for key in wanted), str(counts))
    # Metrics are per node: with several nodes, the one that refused it counts it.
    metrics = "".join(node.request("GET", "/metrics").text for node in getattr(server, "nodes", [server]))
    report.check("and its count in /metrics", 'route="unparsed",status="413"' in metrics, metrics[:300])


def run_rate_limit(report):
    """A server with --rate-limit 5,0.01 (a burst of 5, then one request per 100 s): a spent
    user stays spent for the whole group, so 429's place in the order is seen exactly."""
    report.start_group("rate limit")
    with Server("--dev", "--rate-limit", "5,0.01") as server:
        alice = Device(server, "rl-alice")
        spender = Device(server, "rl-spender")
        conversation = alice.create(["rl-spender"])["id"]
        statuses = [spender.request("GET", "/v1/conversations").status_code for _ in range(6)]
        report.check("the burst of 5 is served, the 6th is limited", statuses == [200] * 5 + [429], str(statuses))
        limited = spender.request("GET", "/v1/conversations")
        report.expect_error("429 body", limited, 429, "rate_limited")
        retry = limited.headers.get("retry-after", "")
        report.check("429 has Retry-After in whole seconds", retry.isdigit() and int(retry) >= 1, retry)
        report.check("another user is not limited", alice.request("GET", "/v1/conversations").status_code == 200)
        anonymous = server.client()
        big = b"{" + b" " * (70 * 1024) + b"}"
        path = f"/v1/conversations/{conversation}/messages"
        report.expect_error("429 over 413 (big body)", spender.request("POST", path, content=big),
                            429, "rate_limited")
        report.expect_error("429 over 413 (long text)", spender.send(conversation, "a" * 4097), 429, "rate_limited")
        report.expect_error("429 over 400 (not JSON)", spender.request("POST", path, content=b"{"),
                            429, "rate_limited")
        report.expect_error("429 over 404 (unknown conversation)", spender.messages(NIL), 429, "rate_limited")
        report.expect_error("429 over 404 (unknown route)", spender.request("GET", "/v1/nothing"),
                            429, "rate_limited")
        report.expect_error("429 over 422 (limit=0)", spender.messages(conversation, limit=0), 429, "rate_limited")
        report.check("429 on the /v1/live upgrade", socket_refusal(server, spender.auth) == 429)
        report.expect_error("401 over 429 (the spent user's token broken)",
                            anonymous.get("/v1/conversations",
                                          headers={"Authorization": "Bearer " + spender.token[:-2] + "xx"}),
                            401, "unauthorized")
        report.expect_error("401 over 429 (no token at all)", anonymous.get("/v1/conversations"), 401, "unauthorized")
        anonymous.close()
        alice.close()
        spender.close()


def run_address_rate_limit(report):
    """The per-address budget of what is asked without a valid token (issue 33): 60 sign-ins
    at once by default, then 429; with --address-rate-limit 3,0.01, dev-login, refresh and a
    refused /v1/live upgrade share the 3, while a valid token still opens its socket."""
    report.start_group("address rate limit")
    login = {"userId": "arl-user", "deviceId": "phone"}
    with Server("--dev") as server:
        anonymous = server.client()
        statuses = [anonymous.post("/v1/auth/dev-login", json=login).status_code for _ in range(61)]
        report.check("by default 60 sign-ins from one address at once, then 429",
                     statuses == [200] * 60 + [429], str(statuses[55:]))
        anonymous.close()
    with Server("--dev", "--address-rate-limit", "3,0.01") as server:
        anonymous = server.client()
        alice = Device(server, "arl-alice", client=anonymous)
        refreshed = anonymous.post("/v1/auth/refresh", json={"refreshToken": alice.tokens["refreshToken"]})
        report.check("a refresh spends the same budget", refreshed.status_code == 200, refreshed.text)
        report.check("a valid token's upgrade spends none", socket_refusal(
            server, {"Authorization": f"Bearer {refreshed.json()['accessToken']}"}) == 101)
        report.check("an upgrade with a refused token spends one",
                     socket_refusal(server, {"Authorization": "Bearer nope"}) == 401)
        limited = anonymous.post("/v1/auth/dev-login", json=login)
        report.expect_error("then dev-login is 429", limited, 429, "rate_limited")
        retry = limited.headers.get("retry-after", "")
        report.check("with Retry-After in whole seconds", retry.isdigit() and int(retry) >= 1, retry)
        report.expect_error("and refresh, before its body is read (no token: no 401 first)",
                            anonymous.post("/v1/auth/refresh", content=b"{"), 429, "rate_limited")
        report.check("and an upgrade with a refused token",
                     socket_refusal(server, {"Authorization": "Bearer nope"}) == 429)
        report.check("a header naming another address changes nothing",
                     anonymous.post("/v1/auth/dev-login", json=login,
                                    headers={"X-Forwarded-For": "198.51.100.7"}).status_code == 429)
        report.check("a valid token still opens its socket", socket_refusal(
            server, {"Authorization": f"Bearer {refreshed.json()['accessToken']}"}) == 101)
        anonymous.close()
    with Server("--dev", "--address-rate-limit", "1,0.01", "--rate-limit", "off") as server:
        statuses = [server.request("POST", "/v1/auth/dev-login", json=login).status_code for _ in range(3)]
        report.check("--rate-limit off turns it off too", statuses == [200] * 3, str(statuses))


def socket_refusal(server, headers):
    from websockets.exceptions import InvalidStatus
    try:
        with server.connect_live(headers, open_timeout=10):
            return 101
    except InvalidStatus as error:
        return error.response.status_code
