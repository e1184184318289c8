"""Limits at their edges, /healthz, /metrics and the request log (never message text or tokens)."""

import json
import os
import re
import resource
import shutil
import signal
import tempfile
import threading
import time
import uuid

import chatserver
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
    for name in ("after", "before"):
        beyond = alice.messages(conversation, **{name: "99999999999999999999"})
        report.expect_error(f"{name}= too large for 64 bits is 422, not clamped", beyond, 422, "invalid")
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
    if chatserver.suite_postgres:
        return run_unavailable_postgres(report)
    return run_unavailable_sqlite(report)


def wait_until_healthy(device, seconds=60):
    """Polls /healthz until it says ok (a node reconnects by itself), up to `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if device.http.get("/healthz").text == "ok":
                return True
        except Exception:  # noqa: BLE001 (a connection cut by the restart: ask again)
            pass
        time.sleep(0.2)
    return False


def run_unavailable_postgres(report):
    """API.md's 5xx row on PostgreSQL: the database stops under the node. Sends are answered
    503 `unavailable` with Retry-After and /healthz says 503, the node stays up and recovers by
    itself once the database is back; every acknowledged message is there, nothing refused is,
    and a refused send retried with its clientMessageId is accepted. Then a burst of four
    posters through a database restart, each retrying a refused send with the same key until
    it is accepted: every key stored once, the sequences 1…N with no hole."""
    report.start_group("unavailable")
    with Server("--dev", "--rate-limit", "off") as server:
        alice = Device(server, "pgdown-alice")
        conversation = alice.create([])["id"]
        accepted = []
        for _ in range(10):
            key = str(uuid.uuid4())
            response = alice.send(conversation, "before", key)
            accepted.append((key, response.json()["sequence"]))
        chatserver.postgres_local("pause")
        try:
            refused_key = str(uuid.uuid4())
            refused = alice.send(conversation, "while down", refused_key)
            report.expect_error("a send while the database is down is 503 unavailable", refused, 503,
                                "unavailable")
            report.check("503 has Retry-After", refused.headers.get("retry-after", "").isdigit(),
                         str(refused.headers))
            reading = alice.messages(conversation)
            report.expect_error("a read while the database is down is 503 unavailable", reading, 503,
                                "unavailable")
            health = alice.http.get("/healthz")
            report.check("/healthz says 503 while the database is down", health.status_code == 503,
                         f"{health.status_code} {health.text}")
            report.check("the node stays up", server.process.poll() is None)
        finally:
            chatserver.postgres_local("resume")
        report.check("the node recovers by itself once the database is back", wait_until_healthy(alice))
        items = alice.messages(conversation, limit=200).json()["items"]
        report.check("every acknowledged message is there, nothing refused",
                     [(item["clientMessageId"], item["sequence"]) for item in items] == accepted,
                     f"{len(items)} stored, {len(accepted)} acknowledged")
        retried = alice.send(conversation, "while down", refused_key)
        report.check("a refused send retried with its clientMessageId is accepted as new",
                     retried.status_code == 201 and retried.json()["sequence"] == len(accepted) + 1,
                     retried.text[:200])

        # A burst through a restart.
        burst = alice.create([])["id"]
        keys = [[str(uuid.uuid4()) for _ in range(40)] for _ in range(4)]
        statuses = []
        lock = threading.Lock()
        started = threading.Barrier(5)

        def poster(mine):
            device = Device(server, "pgdown-alice", device=f"poster-{mine[0][:8]}")
            started.wait()
            for key in mine:
                deadline = time.monotonic() + 90
                while time.monotonic() < deadline:
                    try:
                        response = device.send(burst, "burst " + key, key)
                    except Exception:  # noqa: BLE001 (the connection was cut: send again)
                        continue
                    with lock:
                        statuses.append(response.status_code)
                    if response.status_code in (200, 201):
                        break
                    time.sleep(0.05)
            device.close()

        threads = [threading.Thread(target=poster, args=(mine,)) for mine in keys]
        for thread in threads:
            thread.start()
        started.wait()
        chatserver.postgres_local("restart")
        for thread in threads:
            thread.join()
        report.check("the burst went on through the restart with 503s and no other error",
                     set(statuses) <= {200, 201, 503}, str(sorted(set(statuses))))
        wait_until_healthy(alice)
        stored = alice.messages(burst, limit=200).json()["items"]
        by_key = [item["clientMessageId"] for item in stored]
        every_key = [key for mine in keys for key in mine]
        report.check("every key of the burst stored once", sorted(by_key) == sorted(every_key),
                     f"{len(by_key)} stored, {len(every_key)} sent")
        report.check("the burst's sequences are 1…N with no hole",
                     [item["sequence"] for item in stored] == list(range(1, len(stored) + 1)))
        alice.close()


def run_unavailable_sqlite(report):
    """API.md's 5xx row over the network: the server's files may not grow past 600 KiB
    (RLIMIT_FSIZE, with SIGXFSZ ignored so writes just fail), so a group commit fails. The
    sends are answered 503 `unavailable` with Retry-After, the server stays up, and after a
    restart without the limit every acknowledged message is there, nothing refused is, and a
    refused send retried with its clientMessageId is accepted."""
    report.start_group("unavailable")
    folder = tempfile.mkdtemp(prefix="chat-contract-")
    data = os.path.join(folder, "data")

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (600 * 1024, 600 * 1024))

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
