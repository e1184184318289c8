"""Limits at their edges, /healthz, /metrics and the request log (never message text or tokens)."""

import json
import os
import re
import resource
import shutil
import signal
import tempfile
import uuid

from chatserver import Device, Server


def run_limits(report, server):
    report.start_group("limits")
    alice = Device(server, "lim-alice")
    conversation = alice.create([])["id"]
    anonymous = server.client()
    for label, user, status in [("64-character user id", "u" * 64, 200), ("65-character user id", "u" * 65, 400),
                                ("user id with . _ -", "a.b_c-9", 200), ("upper case", "Alice", 400),
                                ("empty", "", 400)]:
        response = anonymous.post("/v1/auth/dev-login", json={"userId": user, "deviceId": "d"})
        report.check(f"dev-login {label}: {status}", response.status_code == status, response.text[:100])
    response = anonymous.post("/v1/auth/dev-login", json={"userId": "lim-x", "deviceId": "d" * 65})
    report.check("65-character device id: 400", response.status_code == 400)

    def body_of(size):
        """A create body of exactly `size` bytes (the title pads it)."""
        skeleton = json.dumps({"title": "", "memberIds": []})
        return json.dumps({"title": "t" * (size - len(skeleton)), "memberIds": []}).encode()

    exact = alice.request("POST", "/v1/conversations", content=body_of(64 * 1024))
    report.check("a body of exactly 64 KiB is accepted", exact.status_code == 201, exact.text[:100])
    over = alice.request("POST", "/v1/conversations", content=body_of(64 * 1024 + 1))
    report.check("one byte more is 413", over.status_code == 413, over.text[:100])
    for limit, status in [(1, 200), (200, 200), (0, 422), (201, 422)]:
        report.check(f"limit={limit}: {status}", alice.messages(conversation, limit=limit).status_code == status)
    huge = alice.messages(conversation, limit="99999999999999999999999")
    report.check("a limit too large for any integer is 422, not 400", huge.status_code == 422, huge.text)
    report.check("text of 4,096 ASCII characters: 201", alice.send(conversation, "a" * 4096).status_code == 201)
    report.check("sequence 0 for read: 204", alice.mark("read", conversation, 0).status_code == 204)
    anonymous.close()
    alice.close()


def run_operations(report, server):
    report.start_group("operations")
    anonymous = server.client()
    health = anonymous.get("/healthz")
    report.check("/healthz: 200 ok text/plain", health.status_code == 200 and health.text == "ok" and
                 health.headers["content-type"].startswith("text/plain"), f"{health.status_code} {health.text!r}")
    secret = f"secret-text-{uuid.uuid4().hex}"
    alice = Device(server, "ops-alice")
    conversation = alice.create(["ops-bob"], title=f"title-{secret}")["id"]
    alice.send(conversation, secret)
    alice.send(conversation, secret)  # a 409 path is not needed: the same text is a retry
    metrics = anonymous.get("/metrics")
    report.check("/metrics: 200 Prometheus text", metrics.status_code == 200 and
                 metrics.headers["content-type"].startswith("text/plain; version=0.0.4"),
                 metrics.headers.get("content-type"))
    text = metrics.text
    report.check("/metrics holds no message text", secret not in text)
    report.check("/metrics holds no token", alice.token not in text and alice.tokens["refreshToken"] not in text
                 and alice.token.split(".")[1] not in text)
    report.check("/metrics holds no conversation id or user id", conversation not in text and "ops-alice" not in text)
    samples = [line for line in text.splitlines() if line and not line.startswith("#")]
    report.check("every sample line is `name{labels} value`", all(
        re.fullmatch(r'[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [0-9.e+-]+', line) for line in samples),
        str([line for line in samples if not re.fullmatch(r'[a-z_]+(\{.*\})? [0-9.e+-]+', line)][:3]))
    names = {line.split("{")[0].split(" ")[0] for line in samples}
    for name in ("chat_requests_total", "chat_request_duration_seconds_bucket", "chat_sends_accepted_total",
                 "chat_send_retries_recognised_total", "chat_store_commits_total", "chat_live_subscriptions_open"):
        report.check(f"/metrics has {name}", name in names)
    report.check("requests are labelled by route pattern",
                 'route="/v1/conversations/{id}/messages"' in text)

    log = server.read_log()
    lines = [line for line in log.splitlines() if line.startswith("event=request")]
    report.check("the log has one line per request", len(lines) >= 4, f"{len(lines)} lines")
    report.check("the log holds no message text or title", secret not in log)
    report.check("the log holds no token", alice.token not in log and alice.tokens["refreshToken"] not in log)
    sends = [line for line in lines if "route=/v1/conversations/{id}/messages" in line and "user=ops-alice" in line]
    report.check("a send's log line has method, route, status, duration and user",
                 any(re.search(r"method=POST route=\S+ status=201 duration_us=\d+ user=ops-alice", line)
                     for line in sends), str(sends[:2]))
    anonymous.close()
    alice.close()


def run_unavailable(report):
    """API.md's 5xx row over the network: the server's files may not grow past 300 KiB
    (RLIMIT_FSIZE, with SIGXFSZ ignored so writes just fail), so a group commit fails. The
    sends are answered 503 `unavailable` with Retry-After, the server stays up, and after a
    restart without the limit every acknowledged message is there, nothing refused is, and a
    refused send retried with its clientMessageId is accepted."""
    report.start_group("unavailable")
    folder = tempfile.mkdtemp(prefix="chat-contract-")
    data = os.path.join(folder, "data")

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (300 * 1024, 300 * 1024))

    try:
        with Server("--dev", "--rate-limit", "off", data=data, preexec=small_files) as server:
            alice = Device(server, "full-alice")
            conversation = alice.create([])["id"]
            accepted, refused = [], []
            for _ in range(300):
                key = str(uuid.uuid4())
                response = alice.send(conversation, "x" * 2000, key)
                if response.status_code == 201:
                    accepted.append((key, response.json()["sequence"]))
                else:
                    refused.append((key, response))
                if len(refused) >= 5:
                    break
            report.check("the full disk is reached after some accepted sends", accepted and refused,
                         f"{len(accepted)} accepted, {len(refused)} refused")
            if not refused:
                return
            first = refused[0][1]
            report.expect_error("a failed commit is 503 unavailable", first, 503, "unavailable")
            report.check("503 has Retry-After", first.headers.get("retry-after", "").isdigit(),
                         str(first.headers))
            report.check("every refused send is a 5xx", all(response.status_code in (500, 503)
                                                              for _, response in refused))
            report.check("the server stays up", alice.http.get("/healthz").text == "ok")
            log = server.read_log()
            report.check("the log says why, without message text", "group commit failed" in log and "x" * 100 not in log)
            alice.close()
        with Server("--dev", data=data) as again:
            reader = Device(again, "full-alice")
            items = reader.messages(conversation, limit=200).json()["items"]
            report.check("after a restart every acknowledged message is there, nothing else",
                         [(item["clientMessageId"], item["sequence"]) for item in items] == accepted,
                         f"{len(items)} stored, {len(accepted)} acknowledged")
            key = refused[0][0]
            retried = reader.send(conversation, "x" * 2000, key)
            report.check("a refused send retried with its clientMessageId is accepted as new",
                         retried.status_code == 201 and retried.json()["sequence"] == len(accepted) + 1,
                         retried.text[:200])
            reader.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
