"""API.md Part 2, "Push, background and networks that block WebSockets": push tokens per device
(PUT and DELETE /v1/devices/me/push), the pushes a server started with --push-webhook hands to a
webhook in this process (who gets one, the payload, the 2-second collapse, the gateway's 5xx,
410 and 400, a push owed across a restart, /metrics, a log without text or tokens), and the
long poll (GET /v1/sync?cursor=…&wait=W), held until something changes or a graceful stop."""

import http.server
import json
import math
import os
import shutil
import tempfile
import threading
import time
import uuid

import httpx

from cases_groups import mute
from cases_items import delete, edit
from cases_live import Live, is_conversation
from chatserver import Device, Server

COLLAPSE = 2.0  # at most one push per conversation and device in this many seconds
TOLERANCE = 0.2  # on this process's clock: two pushes are at least COLLAPSE - TOLERANCE apart
ABSENCE = 2.5  # how long a push that is not owed is awaited (one collapse window and a margin)
PUSH_METRICS = ("chat_pushes_sent_total", "chat_pushes_collapsed_total", "chat_pushes_failed_total",
                "chat_push_tokens_removed_total", "chat_long_polls_held")


def dig(value, *keys):
    """value[k1][k2]…, or None where a level is missing or not an object."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


class Push:
    """One POST the webhook received: when (time.monotonic()), its JSON body, the status answered."""

    def __init__(self, at, body, status):
        self.at = at
        self.body = body
        self.status = status

    @property
    def token(self):
        return dig(self.body, "token")

    @property
    def conversation(self):
        return dig(self.body, "payload", "conversationId")

    @property
    def sequence(self):
        return dig(self.body, "payload", "sequence")

    @property
    def title(self):
        return dig(self.body, "payload", "aps", "alert", "title")

    @property
    def text(self):
        return dig(self.body, "payload", "aps", "alert", "body")

    @property
    def badge(self):
        return dig(self.body, "payload", "aps", "badge")

    def __repr__(self):
        return f"Push(at={self.at:.3f}, status={self.status}, body={self.body!r})"


class Webhook:
    """The push gateway: plain HTTP on loopback, even in the TLS run (the server is its client).
    Records every POST's JSON body and arrival time; answers the statuses set for the body's token
    with `answer` (200 unless set). `wait` is the cases' sync point: no case sleeps for a push."""

    def __init__(self):
        self.condition = threading.Condition()
        self.received = []
        self.answers = {}
        webhook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                raw = self.read_body()
                arrived = time.monotonic()
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"unparsed": raw.decode(errors="replace")}
                status = webhook.record(arrived, body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def read_body(self):
                if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                    raw = b""
                    while True:
                        size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                        if size == 0:
                            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                                pass
                            return raw
                        raw += self.rfile.read(size)
                        self.rfile.readline()
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def log_message(self, *arguments):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/push"

    def answer(self, token, *statuses):
        """The statuses answered to the pushes for `token`, one per POST in turn; the last one
        stays (answer(t, 500, 500, 200): two failures, then 200 for good)."""
        with self.condition:
            self.answers[token] = list(statuses)

    def record(self, arrived, body):
        token = dig(body, "token")
        with self.condition:
            statuses = self.answers.get(token) or [200]
            status = statuses.pop(0) if len(statuses) > 1 else statuses[0]
            self.received.append(Push(arrived, body, status))
            self.condition.notify_all()
        return status

    def pushes(self, token, conversation=None):
        """Every POST for `token` so far (for `conversation` only, when given), in arrival order."""
        with self.condition:
            return [push for push in self.received if push.token == token
                    and (conversation is None or push.conversation == conversation)]

    def wait(self, token, predicate, conversation=None, timeout=10):
        """Waits until `predicate(pushes)` holds for the token's pushes; returns them either way."""
        with self.condition:
            self.condition.wait_for(lambda: predicate(self.pushes(token, conversation)), timeout)
            return self.pushes(token, conversation)

    def wait_count(self, token, count, conversation=None, timeout=10):
        return self.wait(token, lambda pushes: len(pushes) >= count, conversation, timeout)

    def wait_sequence(self, token, sequence, conversation=None, timeout=10):
        """The token's pushes once one carries `sequence`."""
        return self.wait(token, lambda pushes: any(push.sequence == sequence for push in pushes),
                         conversation, timeout)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def metrics(server):
    """/metrics (no token) as {name: value}, each name's samples summed over their labels."""
    values = {}
    for line in server.request("GET", "/metrics", timeout=10).text.splitlines():
        if line and not line.startswith("#"):
            name = line.split("{")[0].split(" ")[0]
            try:
                values[name] = values.get(name, 0) + float(line.rsplit(" ", 1)[1])
            except (IndexError, ValueError):
                pass
    return values


def metric_reaches(server, name, predicate, timeout=10):
    """Polls /metrics until the sample `name` is there and `predicate(value)` holds; returns the
    last value read (None when the sample never showed)."""
    deadline = time.monotonic() + timeout
    while True:
        value = metrics(server).get(name)
        if (value is not None and predicate(value)) or time.monotonic() >= deadline:
            return value
        time.sleep(0.05)


def put_push(device, body):
    return device.request("PUT", "/v1/devices/me/push", body)


def delete_push(device):
    return device.request("DELETE", "/v1/devices/me/push")


class Pushes:
    """One push server's cases: its webhook, and every message text and push token they used
    (the log must hold none of them)."""

    def __init__(self, server, webhook):
        self.server = server
        self.webhook = webhook
        self.texts = []
        self.tokens = []

    def secret(self, label):
        """A message text no log line could hold by chance."""
        text = f"{label} {uuid.uuid4().hex[:12]}"
        self.texts.append(text)
        return text

    def register(self, device, token=None, provider="webhook"):
        """PUT /v1/devices/me/push for the device (token tok-<user>-<device> unless given)."""
        token = token or f"tok-{device.user}-{device.device}"
        self.tokens.append(token)
        response = put_push(device, {"provider": provider, "token": token})
        if response.status_code != 204:
            raise RuntimeError(f"push token for {device.user}/{device.device}: "
                               f"{response.status_code} {response.text}")
        return token

    def send(self, device, conversation, text):
        self.texts.append(text)
        response = device.send(conversation, text)
        if response.status_code != 201:
            raise RuntimeError(f"send: {response.status_code} {response.text}")
        return response.json()


def run(report):
    """A server with --push-webhook pointing at a Webhook of this process (rate limit off: the
    burst goes as fast as it is answered); then a restart on one data folder, and the flag's
    environment twin."""
    webhook = Webhook()
    try:
        with Server("--dev", "--rate-limit", "off", "--push-webhook", webhook.url) as server:
            context = Pushes(server, webhook)
            run_tokens(report, context)
            run_recipients(report, context)
            run_payload(report, context)
            run_badge(report, context)
            run_only_messages(report, context)
            run_mentions(report, context)
            run_collapse(report, context)
            run_retries(report, context)
            run_gone(report, context)
            run_refused(report, context)
            run_metrics_and_log(report, context)
        run_restart(report, webhook)
        run_environment(report, webhook)
    finally:
        webhook.close()


def run_tokens(report, context):
    report.start_group("push tokens")
    server = context.server
    alice = Device(server, "tok-alice")
    path = "/v1/devices/me/push"
    report.expect_error("PUT /v1/devices/me/push without a token is 401",
                        server.request("PUT", path, json={"provider": "webhook", "token": "tok-never"}),
                        401, "unauthorized")
    report.expect_error("DELETE /v1/devices/me/push without a token is 401",
                        server.request("DELETE", path), 401, "unauthorized")
    report.expect_error("without a token a body that is not JSON is 401 all the same",
                        server.request("PUT", path, content=b"{not json",
                                       headers={"Content-Type": "application/json"}), 401,
                        "unauthorized")
    for provider in ("apns", "fcm", "webhook"):
        token = f"tok-tok-alice-{provider}"
        context.tokens.append(token)
        response = put_push(alice, {"provider": provider, "token": token})
        report.check(f"registering a {provider} token is 204", response.status_code == 204,
                     f"{response.status_code} {response.text}")
    exact = "é" * 2048
    context.tokens.append(exact)
    response = put_push(alice, {"provider": "webhook", "token": exact})
    report.check("a token of exactly 4,096 bytes (2,048 two-byte characters) is 204",
                 response.status_code == 204, f"{response.status_code} {response.text[:200]}")
    for label, token in [("4,097 ASCII bytes", "x" * 4097),
                         ("4,098 bytes in 2,049 characters", "é" * 2049)]:
        context.tokens.append(token)
        report.expect_error(f"a token of {label} is 422",
                            put_push(alice, {"provider": "webhook", "token": token}), 422, "invalid")
    report.expect_error("an unknown provider is 422",
                        put_push(alice, {"provider": "pigeon", "token": "tok-tok-alice-x"}), 422,
                        "invalid")
    report.expect_error("an empty token is 422",
                        put_push(alice, {"provider": "webhook", "token": ""}), 422, "invalid")
    report.expect_error("a body that is not JSON is 400",
                        alice.request("PUT", path, content=b"{not json",
                                      headers={"Content-Type": "application/json"}), 400, "bad_request")
    report.expect_error("a token that is not a string is 400",
                        put_push(alice, {"provider": "webhook", "token": 42}), 400, "bad_request")
    report.expect_error("a missing token is 400 (a field missing)",
                        put_push(alice, {"provider": "webhook"}), 400, "bad_request")
    deleted = delete_push(alice)
    report.check("DELETE /v1/devices/me/push is 204", deleted.status_code == 204, deleted.text)
    again = delete_push(alice)
    report.check("DELETE with no token registered is 204 too", again.status_code == 204, again.text)
    alice.close()


def run_recipients(report, context):
    """Every device of every other member with a token and no open socket gets a push, unless its
    user muted the conversation; the sender's devices get none. The control device's push is the
    sync point, then one collapse window proves the absences."""
    report.start_group("push recipients")
    server, webhook = context.server, context.webhook
    alice_phone = Device(server, "rcp-alice")
    alice_tablet = Device(server, "rcp-alice", "tablet")
    bob_phone = Device(server, "rcp-bob")
    bob_tablet = Device(server, "rcp-bob", "tablet")
    carol = Device(server, "rcp-carol")
    dave = Device(server, "rcp-dave")
    erin = Device(server, "rcp-erin")
    sender_tokens = [context.register(alice_phone), context.register(alice_tablet)]
    socket_token = context.register(bob_phone)
    control = context.register(bob_tablet)
    muted_token = context.register(carol)
    deleted_token = context.register(dave)
    report.check("a registered token deleted: 204", delete_push(dave).status_code == 204)
    replaced = context.register(erin, "tok-rcp-erin-replaced")
    replacing = context.register(erin, provider="fcm")

    bob_live = Live(bob_phone)
    conversation = alice_phone.create(["rcp-bob", "rcp-carol", "rcp-dave", "rcp-erin"],
                                      title="Recipients")["id"]
    # The conversation event on bob's phone proves the server holds its socket.
    bob_live.until(is_conversation(conversation))
    report.check("muting forever is 204", mute(carol, conversation, "forever").status_code == 204)
    sent = context.send(alice_phone, conversation, context.secret("recipients"))
    got = webhook.wait_count(control, 1)
    report.check("a member's device with a token and no open socket gets a push",
                 len(got) == 1 and got[0].sequence == sent["sequence"], str(got))
    moved = webhook.wait_count(replacing, 1)
    report.check("a second PUT replaces the first: the push goes to the new token, with its provider",
                 len(moved) == 1 and dig(moved[0].body, "provider") == "fcm", str(moved))
    time.sleep(ABSENCE)  # a bounded wait that proves absences: one collapse window after the control's
    report.check("a device with an open /v1/live socket gets no push (its user's other device does)",
                 webhook.pushes(socket_token) == [], str(webhook.pushes(socket_token)))
    report.check("the sender's own devices get no push",
                 all(webhook.pushes(token) == [] for token in sender_tokens),
                 str([webhook.pushes(token) for token in sender_tokens]))
    report.check("a member who muted the conversation gets no push",
                 webhook.pushes(muted_token) == [], str(webhook.pushes(muted_token)))
    report.check("a device whose token was deleted gets no push",
                 webhook.pushes(deleted_token) == [], str(webhook.pushes(deleted_token)))
    report.check("the replaced token gets no push", webhook.pushes(replaced) == [],
                 str(webhook.pushes(replaced)))
    report.check("the control device got exactly one push", len(webhook.pushes(control)) == 1,
                 str(webhook.pushes(control)))

    # Once the socket is closed (the server's gauge says so), the device is pushed again.
    bob_live.close()
    open_sockets = metric_reaches(server, "chat_live_subscriptions_open", lambda value: value == 0)
    report.check("the closed socket is no longer counted open", open_sockets == 0, str(open_sockets))
    after = context.send(alice_phone, conversation, context.secret("recipients after"))
    pushed = webhook.wait_sequence(socket_token, after["sequence"])
    report.check("once its socket is closed, the device gets pushes again",
                 [push.sequence for push in pushed] == [after["sequence"]], str(pushed))
    for device in (alice_phone, alice_tablet, bob_phone, bob_tablet, carol, dave, erin):
        device.close()


def run_payload(report, context):
    """The webhook's body and the payload's APNs shape: title, body cut at 100 characters, badge,
    thread-id. Each text goes to a conversation of its own, so each push is the first of its
    window and goes at once."""
    report.start_group("push payload")
    server, webhook = context.server, context.webhook
    alice = Device(server, "pay-alice")
    bob = Device(server, "pay-bob")
    token = context.register(bob)

    titled = alice.create(["pay-bob"], title="Hike")["id"]
    text = context.secret("payload")
    sent = context.send(alice, titled, text)
    pushes = webhook.wait_count(token, 1, titled)
    expected = {"provider": "webhook", "token": token, "collapseId": titled, "payload": {
        "aps": {"alert": {"title": "Hike", "body": f"pay-alice: {text}"}, "badge": 1,
                "thread-id": titled},
        "conversationId": titled, "sequence": sent["sequence"]}}
    report.check("the webhook gets {provider, token, collapseId, payload}, the payload in APNs's "
                 "shape (title, '<sender>: <text>', badge, thread-id, conversationId, sequence)",
                 len(pushes) == 1 and pushes[0].body == expected, f"{pushes} wanted {expected}")

    untitled = alice.create(["pay-bob"], title="")["id"]
    context.send(alice, untitled, context.secret("untitled"))
    pushes = webhook.wait_count(token, 1, untitled)
    report.check("without a title, the title is the sender's user id",
                 len(pushes) == 1 and pushes[0].title == "pay-alice", str(pushes))

    exact = alice.create(["pay-bob"], title="Exact")["id"]
    hundred = (uuid.uuid4().hex * 4)[:100]
    context.texts.append(hundred)
    context.send(alice, exact, hundred)
    pushes = webhook.wait_count(token, 1, exact)
    report.check("a text of 100 characters goes whole",
                 len(pushes) == 1 and pushes[0].text == f"pay-alice: {hundred}", str(pushes))

    long = alice.create(["pay-bob"], title="Long")["id"]
    longer = (uuid.uuid4().hex * 5)[:150]
    context.texts.append(longer)
    context.send(alice, long, longer)
    pushes = webhook.wait_count(token, 1, long)
    report.check("a longer text is cut to its first 99 characters and '…' (100 in all)",
                 len(pushes) == 1 and pushes[0].text == f"pay-alice: {longer[:99]}…", str(pushes))
    alice.close()
    bob.close()


def run_badge(report, context):
    """badge: the recipient's unread messages from others above its readUpTo, over its unmuted
    conversations."""
    report.start_group("push badge")
    server, webhook = context.server, context.webhook
    alice = Device(server, "badge-alice")
    bob = Device(server, "badge-bob")
    token = context.register(bob)
    partly_read = alice.create(["badge-bob"], title="Partly read")["id"]
    muted = alice.create(["badge-bob"], title="Muted")["id"]
    report.check("muting forever is 204", mute(bob, muted, "forever").status_code == 204)
    first = context.send(alice, partly_read, context.secret("badge one"))
    context.send(alice, partly_read, context.secret("badge two"))
    context.send(alice, partly_read, context.secret("badge three"))
    report.check("reading up to the first is 204",
                 bob.mark("read", partly_read, first["sequence"]).status_code == 204)
    context.send(alice, muted, context.secret("badge muted one"))
    context.send(alice, muted, context.secret("badge muted two"))
    own = bob.create(["badge-alice"], title="Own")["id"]
    context.send(bob, own, context.secret("badge own"))
    target = alice.create(["badge-bob"], title="Target")["id"]
    context.send(alice, target, context.secret("badge target"))
    pushes = webhook.wait_count(token, 1, target)
    report.check("badge: 2 unread above readUpTo + 1 new, not the muted conversation's 2 "
                 "nor the user's own message",
                 len(pushes) == 1 and pushes[0].badge == 3, str(pushes))
    alice.close()
    bob.close()


def run_only_messages(report, context):
    """Edits and deletes are items, not messages: no push. The token is registered after the two
    messages (owed nothing), so a push for the edit or the delete would be the first of its window
    and arrive before the next message's."""
    report.start_group("push only for messages")
    server, webhook = context.server, context.webhook
    alice = Device(server, "only-alice")
    bob = Device(server, "only-bob")
    conversation = alice.create(["only-bob"], title="Edits")["id"]
    kept, gone = str(uuid.uuid4()), str(uuid.uuid4())
    for key in (kept, gone):
        text = context.secret("before the token")
        report.check("a message before the token: 201",
                     alice.send(conversation, text, key).status_code == 201)
    token = context.register(bob)
    new_text = context.secret("edited")
    report.check("an edit: 201", edit(alice, conversation, kept, new_text).status_code == 201)
    report.check("a delete: 201", delete(alice, conversation, gone).status_code == 201)
    message = context.send(alice, conversation, context.secret("after the edit"))
    pushes = webhook.wait_count(token, 1)
    report.check("an edit or a delete sends no push: the device's first push is the next message's",
                 len(pushes) == 1 and pushes[0].sequence == message["sequence"], str(pushes))
    alice.close()
    bob.close()


def run_mentions(report, context):
    """API.md Part 3, "Mentions": a muted conversation still pushes a message that mentions the
    user ("<sender> mentioned you: …") unless its mute is `silent`; a reaction never pushes. The
    muted member's push of the mention is the sync point for the absences."""
    report.start_group("push mentions")
    server, webhook = context.server, context.webhook
    alice = Device(server, "pm-alice")
    bob = Device(server, "pm-bob")
    carol = Device(server, "pm-carol")
    conversation = alice.create(["pm-bob", "pm-carol"], title="Mentions")["id"]
    bob_token, carol_token = context.register(bob), context.register(carol)
    report.check("muting with mentions left out is 204", mute(bob, conversation, "forever").status_code == 204)
    silent = carol.request("PUT", f"/v1/conversations/{conversation}/mute",
                           {"until": "forever", "mentions": "silent"})
    report.check("muting with mentions silent is 204", silent.status_code == 204, silent.text)
    plain = context.send(alice, conversation, context.secret("not a mention"))
    react = alice.request("POST", f"/v1/conversations/{conversation}/messages",
                          {"clientMessageId": str(uuid.uuid4()), "kind": "reaction",
                           "target": plain["clientMessageId"], "emoji": "👍"})
    text = context.secret("the map")
    named = context.send(alice, conversation, f"@pm-bob @pm-carol {text}")
    pushes = webhook.wait_count(bob_token, 1)
    report.check("a muted member mentioned gets a push, its body '<sender> mentioned you: <text>'",
                 react.status_code == 201 and len(pushes) == 1
                 and pushes[0].sequence == named["sequence"]
                 and pushes[0].text == f"pm-alice mentioned you: @pm-bob @pm-carol {text}", str(pushes))
    time.sleep(ABSENCE)  # one collapse window after the mention's push: proves the absences
    report.check("a silent mute keeps mentions quiet, and neither the plain message nor the reaction "
                 "pushed the muted member", webhook.pushes(carol_token) == []
                 and len(webhook.pushes(bob_token)) == 1, str(webhook.pushes(carol_token)))
    listed = next(c for c in bob.request("GET", "/v1/conversations").json()["items"]
                  if c["id"] == conversation)
    report.check("the conversation carries mutedMentions", listed["mutedMentions"] == "push", str(listed))
    for device in (alice, bob, carol):
        device.close()


def run_collapse(report, context):
    """30 messages sent as fast as they are answered in a group: the offline member's device gets
    one push at once and then at most one per 2 s, the last carrying the 30th message."""
    report.start_group("push collapse")
    server, webhook = context.server, context.webhook
    alice = Device(server, "burst-alice")
    bob = Device(server, "burst-bob")
    token = context.register(bob)
    group = alice.create(["burst-bob", "burst-carol"], title="Busy")["id"]
    before = metrics(server)
    started = time.monotonic()
    sent = []
    for number in range(1, 31):
        sent.append(context.send(alice, group, context.secret(f"burst {number}")))
        if number == 1:
            first_answered = time.monotonic()
    burst = time.monotonic() - started
    last = sent[-1]
    pushes = webhook.wait_sequence(token, last["sequence"], timeout=15)
    gaps = [later.at - earlier.at for earlier, later in zip(pushes, pushes[1:])]
    allowed = 1 + math.ceil(burst / COLLAPSE) + 1
    report.check(f"30 messages in {burst:.2f} s reach the offline device as {len(pushes)} pushes "
                 f"(at least 1, at most {allowed})", 1 <= len(pushes) <= allowed,
                 str([push.sequence for push in pushes]))
    report.check("the first push goes at once, with the first message",
                 bool(pushes) and pushes[0].sequence == sent[0]["sequence"]
                 and pushes[0].at - first_answered < 1.0,
                 str(pushes[:1]))
    report.check(f"consecutive pushes are at least {COLLAPSE - TOLERANCE:.1f} s apart "
                 f"({', '.join(f'{gap:.2f}' for gap in gaps)})",
                 all(gap >= COLLAPSE - TOLERANCE for gap in gaps), str(gaps))
    report.check("each push carries a newer message than the one before",
                 all(earlier.sequence < later.sequence for earlier, later in zip(pushes, pushes[1:])),
                 str([push.sequence for push in pushes]))
    report.check("the last push carries the newest (30th) message: its sequence and text",
                 bool(pushes) and pushes[-1].sequence == last["sequence"]
                 and pushes[-1].text == f"burst-alice: {last['text']}", str(pushes[-1:]))
    report.check("the last push's badge counts all 30 unread messages",
                 bool(pushes) and pushes[-1].badge == 30, str(pushes[-1:]))
    report.check("every push's collapseId is the conversation",
                 all(dig(push.body, "collapseId") == group for push in pushes))
    sent_total = metric_reaches(server, "chat_pushes_sent_total",
                                lambda value: value >= before.get("chat_pushes_sent_total", 0) + len(pushes))
    report.check("chat_pushes_sent_total rises by the pushes delivered",
                 sent_total is not None and sent_total >= before.get("chat_pushes_sent_total", 0) + len(pushes),
                 f"{before.get('chat_pushes_sent_total')} -> {sent_total}")
    collapsed = metric_reaches(server, "chat_pushes_collapsed_total",
                               lambda value: value > before.get("chat_pushes_collapsed_total", 0))
    report.check("chat_pushes_collapsed_total rises after the burst",
                 collapsed is not None and collapsed > before.get("chat_pushes_collapsed_total", 0),
                 f"{before.get('chat_pushes_collapsed_total')} -> {collapsed}")
    alice.close()
    bob.close()


def run_retries(report, context):
    """A 5xx from the gateway: the same push again after about 1 s, then about 2 s."""
    report.start_group("push retries")
    server, webhook = context.server, context.webhook
    alice = Device(server, "retry-alice")
    bob = Device(server, "retry-bob")
    token = context.register(bob)
    webhook.answer(token, 500, 500, 200)
    conversation = alice.create(["retry-bob"], title="Retry")["id"]
    before = metrics(server).get("chat_pushes_sent_total", 0)
    sent = context.send(alice, conversation, context.secret("retried"))
    attempts = webhook.wait_count(token, 3, timeout=15)
    gaps = [later.at - earlier.at for earlier, later in zip(attempts, attempts[1:])]
    report.check("a 5xx is retried: three attempts of the same push (500, 500, then 200)",
                 len(attempts) == 3 and [push.status for push in attempts] == [500, 500, 200]
                 and all(push.body == attempts[0].body for push in attempts)
                 and attempts[0].sequence == sent["sequence"], str(attempts))
    # The server's retry policy: after failure n, a random wait between half and all of
    # 1 s x 2^(n-1) (jitter), so the first is 0.5-1 s and the second 1-2 s (plus scheduling).
    report.check(f"with backoff: the first retry after 0.5-1 s, the next after 1-2 s "
                 f"({', '.join(f'{gap:.2f}' for gap in gaps)} s)",
                 len(gaps) == 2 and 0.45 <= gaps[0] < 3 and 0.95 <= gaps[1] < 6,
                 str(gaps))
    delivered = metric_reaches(server, "chat_pushes_sent_total", lambda value: value >= before + 1)
    report.check("the retried push, delivered, counts as sent",
                 delivered is not None and delivered >= before + 1, f"{before} -> {delivered}")
    alice.close()
    bob.close()


def run_gone(report, context):
    """A 410 from the gateway removes the token: no push to that device until it registers again."""
    report.start_group("push token gone")
    server, webhook = context.server, context.webhook
    alice = Device(server, "gone-alice")
    bob = Device(server, "gone-bob")
    carol = Device(server, "gone-carol")
    gone = context.register(bob)
    webhook.answer(gone, 410)
    control = context.register(carol)
    conversation = alice.create(["gone-bob", "gone-carol"], title="Gone")["id"]
    before = metrics(server).get("chat_push_tokens_removed_total", 0)
    first = context.send(alice, conversation, context.secret("gone first"))
    answered = webhook.wait_count(gone, 1)
    report.check("the gateway answers 410 to the first push",
                 len(answered) == 1 and answered[0].status == 410
                 and answered[0].sequence == first["sequence"], str(answered))
    removed = metric_reaches(server, "chat_push_tokens_removed_total", lambda value: value >= before + 1)
    report.check("a 410 removes the token: chat_push_tokens_removed_total rises",
                 removed is not None and removed >= before + 1, f"{before} -> {removed}")
    second = context.send(alice, conversation, context.secret("gone second"))
    reached = webhook.wait_sequence(control, second["sequence"])
    report.check("the control device gets the next message's push",
                 any(push.sequence == second["sequence"] for push in reached), str(reached))
    time.sleep(ABSENCE)  # a bounded wait that proves an absence: one collapse window more
    report.check("the removed token gets no further push, and the 410 is not retried",
                 [push.sequence for push in webhook.pushes(gone)] == [first["sequence"]],
                 str(webhook.pushes(gone)))
    webhook.answer(gone, 200)
    context.register(bob, gone)
    third = context.send(alice, conversation, context.secret("gone third"))
    again = webhook.wait_sequence(gone, third["sequence"])
    report.check("registered again, the device gets pushes again",
                 [push.sequence for push in again] == [first["sequence"], third["sequence"]], str(again))
    for device in (alice, bob, carol):
        device.close()


def run_refused(report, context):
    """Another 4xx (400) drops that push, counted as failed; the token stays."""
    report.start_group("push refused")
    server, webhook = context.server, context.webhook
    alice = Device(server, "refused-alice")
    bob = Device(server, "refused-bob")
    token = context.register(bob)
    webhook.answer(token, 400, 200)
    conversation = alice.create(["refused-bob"], title="Refused")["id"]
    before = metrics(server).get("chat_pushes_failed_total", 0)
    first = context.send(alice, conversation, context.secret("refused first"))
    refused = webhook.wait_count(token, 1)
    report.check("the gateway answers 400 to the first push",
                 len(refused) == 1 and refused[0].status == 400, str(refused))
    failed = metric_reaches(server, "chat_pushes_failed_total", lambda value: value >= before + 1)
    report.check("a push refused with 400 counts in chat_pushes_failed_total",
                 failed is not None and failed >= before + 1, f"{before} -> {failed}")
    second = context.send(alice, conversation, context.secret("refused second"))
    pushed = webhook.wait_sequence(token, second["sequence"])
    report.check("the token stays: the next message still pushes",
                 any(push.sequence == second["sequence"] for push in pushed), str(pushed))
    if refused:
        # A bounded wait that proves an absence: a retry would have come about 1 s after the 400.
        time.sleep(max(0.0, refused[0].at + ABSENCE - time.monotonic()))
    report.check("the refused push is dropped, not retried",
                 [push.sequence for push in webhook.pushes(token)].count(first["sequence"]) == 1,
                 str(webhook.pushes(token)))
    alice.close()
    bob.close()


def run_metrics_and_log(report, context):
    report.start_group("push metrics and log")
    server = context.server
    text = server.request("GET", "/metrics", timeout=10).text
    values = metrics(server)
    for name in PUSH_METRICS:
        report.check(f"/metrics has {name}", name in values)
    report.check("no long poll held here: chat_long_polls_held 0",
                 values.get("chat_long_polls_held") == 0, str(values.get("chat_long_polls_held")))
    report.check("/metrics holds no push token", all(token not in text for token in context.tokens))
    log = server.read_log()
    leaked_texts = [item for item in context.texts if item in log]
    report.check("the log holds no message text", not leaked_texts, str(leaked_texts[:3]))
    leaked_tokens = [token[:40] for token in context.tokens if token in log]
    report.check("the log holds no push token", not leaked_tokens, str(leaked_tokens[:3]))


def run_restart(report, webhook):
    """A push owed at a graceful stop (the second of two messages, waiting out the collapse
    window) is sent after a restart on the same data folder, once."""
    report.start_group("push across a restart")
    folder = tempfile.mkdtemp(prefix="chat-contract-")
    data = os.path.join(folder, "data")
    texts = []
    token = "tok-restart-bob-phone"
    try:
        with Server("--dev", "--push-webhook", webhook.url, data=data) as server:
            alice = Device(server, "restart-alice")
            bob = Device(server, "restart-bob")
            report.check("registering: 204", put_push(bob, {"provider": "webhook", "token": token})
                         .status_code == 204)
            conversation = alice.create(["restart-bob"], title="Restart")["id"]
            texts += [f"restart first {uuid.uuid4().hex[:12]}", f"restart second {uuid.uuid4().hex[:12]}"]
            first, second = (alice.send(conversation, text).json() for text in texts)
            pushed = webhook.wait_count(token, 1)
            alice.close()
            bob.close()
            status = server.terminate()
            stopped = time.monotonic()
            report.check("the first push went at once, with the first message",
                         len(pushed) == 1 and pushed[0].sequence == first["sequence"], str(pushed))
            report.check("the server stopped inside the collapse window (the second push owed)",
                         bool(pushed) and stopped - pushed[0].at < COLLAPSE - TOLERANCE,
                         f"{stopped - pushed[0].at:.2f} s after the first push" if pushed else "")
            report.check("the graceful stop exits 0", status == 0, f"exit {status}")
            report.check("the owed push was not sent before the restart",
                         [push.sequence for push in webhook.pushes(token)] == [first["sequence"]],
                         str(webhook.pushes(token)))
            server_log = server.read_log()
        with Server("--dev", "--push-webhook", webhook.url, data=data) as again:
            owed = [push for push in webhook.wait_sequence(token, second["sequence"])
                    if push.sequence == second["sequence"]]
            report.check("after the restart on the same folder the owed push arrives, with the "
                         "newest message", bool(owed) and owed[0].text == f"restart-alice: {texts[1]}",
                         str(webhook.pushes(token)))
            alice = Device(again, "restart-alice")
            texts.append(f"restart third {uuid.uuid4().hex[:12]}")
            third = alice.send(conversation, texts[2]).json()
            # The next push (one collapse window after the owed one) closes the record: a second
            # copy of the owed push would have come before it.
            pushes = webhook.wait_sequence(token, third["sequence"])
            report.check("the owed push is sent exactly once",
                         [push.sequence for push in pushes]
                         == [first["sequence"], second["sequence"], third["sequence"]], str(pushes))
            alice.close()
            logs = server_log + again.read_log()
        report.check("neither server's log holds message text or the push token",
                     not any(text in logs for text in texts) and token not in logs)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_environment(report, webhook):
    """CHAT_SERVER_PUSH_WEBHOOK is --push-webhook's environment twin."""
    report.start_group("push webhook from the environment")

    def environment():
        os.environ["CHAT_SERVER_PUSH_WEBHOOK"] = webhook.url  # in the child, before exec

    with Server("--dev", preexec=environment) as server:
        alice = Device(server, "env-alice")
        bob = Device(server, "env-bob")
        token = "tok-env-bob-phone"
        report.check("registering: 204", put_push(bob, {"provider": "webhook", "token": token})
                     .status_code == 204)
        conversation = alice.create(["env-bob"], title="Environment")["id"]
        sent = alice.send(conversation, f"environment {uuid.uuid4().hex[:12]}").json()
        pushes = webhook.wait_count(token, 1)
        report.check("a server given CHAT_SERVER_PUSH_WEBHOOK pushes to it",
                     len(pushes) == 1 and pushes[0].sequence == sent["sequence"], str(pushes))
        alice.close()
        bob.close()


class Poll(threading.Thread):
    """GET /v1/sync with `wait` on a connection of its own, in a thread: its answer (or the error
    that ended it) and when it ended (time.monotonic())."""

    def __init__(self, server, device, cursor, wait):
        super().__init__(daemon=True)
        self.server = server
        self.headers = device.auth
        self.params = {"cursor": cursor, "wait": wait} if cursor else {"wait": wait}
        self.timeout = wait + 30
        self.response = None
        self.error = None
        self.started = None
        self.ended = None

    def run(self):
        self.started = time.monotonic()
        try:
            self.response = self.server.request("GET", "/v1/sync", params=self.params,
                                                headers=self.headers, timeout=self.timeout)
        except httpx.HTTPError as error:
            self.error = error
        self.ended = time.monotonic()


def timed_sync(device, **params):
    """GET /v1/sync on a connection of its own, waited for `wait` and 30 s more; and how long."""
    started = time.monotonic()
    response = device.server.request("GET", "/v1/sync", params=params, headers=device.auth,
                                     timeout=params.get("wait", 0) + 30)
    return response, time.monotonic() - started


def body(response):
    """The JSON object answered, or {}."""
    try:
        value = response.json()
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def ids(response):
    """The ids of the conversations a sync answered, or None when it answered no list."""
    conversations = body(response).get("conversations")
    if not isinstance(conversations, list):
        return None
    return [dig(item, "id") for item in conversations]


def held(server, count=1):
    """Waits until the server's gauge says `count` polls are held: the sync point before a change
    (and, with 0, before a new poll, so an old one's count is not taken for it)."""
    return metric_reaches(server, "chat_long_polls_held", lambda value: value == count)


def run_long_poll(report):
    """GET /v1/sync?cursor=…&wait=W on a server of its own (its gauge counts only these polls);
    then a poll held at a graceful stop, on another."""
    report.start_group("long poll")
    with Server("--dev") as server:
        alice = Device(server, "poll-alice")
        bob = Device(server, "poll-bob")
        carol = Device(server, "poll-carol")
        conversation = alice.create(["poll-bob"], title="Poll")["id"]
        cursor = body(bob.request("GET", "/v1/sync")).get("cursor")

        for wait in ("0", "61", "-1"):
            report.expect_error(f"wait={wait} is 422",
                                bob.request("GET", "/v1/sync", params={"cursor": cursor, "wait": wait}),
                                422, "invalid")
        report.expect_error("wait=abc is 400",
                            bob.request("GET", "/v1/sync", params={"cursor": cursor, "wait": "abc"}),
                            400, "bad_request")

        alice.send(conversation, "poll changed")
        response, elapsed = timed_sync(bob, cursor=cursor, wait=20)
        report.check(f"with a change since the cursor it answers at once ({elapsed:.2f} s of 20)",
                     response.status_code == 200 and ids(response) == [conversation] and elapsed < 5,
                     f"{response.status_code} {response.text[:200]}")
        cursor = body(response).get("cursor", cursor)
        alice.send(conversation, "poll changed again")
        response, elapsed = timed_sync(bob, cursor=cursor, wait=60)
        report.check(f"wait=60 is accepted (with a change: at once, {elapsed:.2f} s)",
                     response.status_code == 200 and ids(response) == [conversation] and elapsed < 5,
                     f"{response.status_code} {response.text[:200]}")
        cursor = body(response).get("cursor", cursor)

        for wait in (1, 2):
            response, elapsed = timed_sync(bob, cursor=cursor, wait=wait)
            report.check(f"with nothing changed, wait={wait} holds about {wait} s ({elapsed:.2f} s), "
                         f"then 200 with the same cursor and no conversations",
                         response.status_code == 200 and wait - TOLERANCE <= elapsed < wait + 3
                         and body(response).get("cursor") == cursor and ids(response) == [],
                         f"{response.status_code} {response.text[:200]} after {elapsed:.2f} s")

        # A change bob cannot see, made while his poll is held, leaves it held to its end. (The
        # cursor answered may be newer than bob's: cursors are opaque, and the change is not his.)
        held(server, 0)
        poll = Poll(server, bob, cursor, 3)
        poll.start()
        gauge = held(server)
        report.check("a held poll counts 1 in chat_long_polls_held", gauge == 1, str(gauge))
        other = carol.create(["poll-alice"], title="Not bob's")["id"]
        carol.send(other, "not for bob")
        poll.join(timeout=15)
        elapsed = poll.ended - poll.started if poll.ended else None
        report.check(f"a change the caller cannot see does not answer a held poll "
                     f"({elapsed if elapsed is None else round(elapsed, 2)} s of 3)",
                     poll.response is not None and poll.response.status_code == 200
                     and elapsed is not None and elapsed >= 3 - TOLERANCE
                     and ids(poll.response) == [] and isinstance(body(poll.response).get("cursor"), str),
                     str(poll.response.text[:200] if poll.response is not None else poll.error))

        # A message from another member, sent once the poll is held, answers it at once.
        held(server, 0)
        poll = Poll(server, bob, cursor, 20)
        poll.start()
        gauge = held(server)
        report.check("the poll is held before the message", gauge == 1, str(gauge))
        sending = time.monotonic()
        sent = alice.send(conversation, "poll wake up").json()
        poll.join(timeout=30)
        elapsed = poll.ended - sending if poll.ended else None
        report.check(f"a message from another member answers a held poll at once "
                     f"({elapsed if elapsed is None else round(elapsed, 2)} s of 20)",
                     poll.response is not None and poll.response.status_code == 200
                     and elapsed is not None and elapsed < 5,
                     str(poll.response.text[:200] if poll.response is not None else poll.error))
        items = body(poll.response).get("conversations") if poll.response is not None else None
        report.check("with that conversation and its new message",
                     isinstance(items, list) and [dig(item, "id") for item in items] == [conversation]
                     and dig(items[0], "lastMessage", "sequence") == sent["sequence"], str(items))
        released = held(server, 0)
        report.check("answered, the poll is no longer counted held", released == 0, str(released))

        response, elapsed = timed_sync(bob, wait=20)
        report.check(f"without a cursor, wait answers at once with everything ({elapsed:.2f} s)",
                     response.status_code == 200 and elapsed < 5
                     and set(ids(response) or []) == {conversation},
                     f"{response.status_code} {response.text[:200]}")
        for device in (alice, bob, carol):
            device.close()
    run_poll_at_stop(report)


def run_poll_at_stop(report):
    """A poll held with wait=30 ends within the graceful stop, not 30 s later: a 200 with the same
    cursor and nothing, or the connection closed; the server exits 0."""
    with Server("--dev") as server:
        dora = Device(server, "poll-dora")
        cursor = body(dora.request("GET", "/v1/sync")).get("cursor")
        dora.close()  # no idle keep-alive connection of the case's left at the stop
        poll = Poll(server, dora, cursor, 30)
        poll.start()
        gauge = held(server)
        report.check("the poll is held before the stop", gauge == 1, str(gauge))
        stopping = time.monotonic()
        status = server.terminate(timeout=20)
        poll.join(timeout=20)
        ended = poll.ended - stopping if poll.ended else None
        report.check(f"a held poll ends at a graceful stop, not after its 30 s "
                     f"({ended if ended is None else round(ended, 2)} s)",
                     ended is not None and ended < 10, str(ended))
        answered = poll.response
        report.check("it gets 200 with the same cursor and nothing, or the connection closes",
                     (answered is None and poll.error is not None)
                     or (answered is not None and answered.status_code == 200
                         and body(answered).get("cursor") == cursor and ids(answered) == []),
                     str(answered.text[:200] if answered is not None else poll.error))
        report.check("the server exits 0", status == 0, f"exit {status}")
