"""`/v1/live` over a real socket: events to every member device, typing relayed to the others,
nothing for non-members, server pings and dead sockets dropped, 1001 on a graceful stop."""

import base64
import json
import os
import shutil
import socket
import struct
import tempfile
import threading
import time
import uuid

from cases_data import CONVERSATION_FIELDS
from chatserver import Device, Server, wait_for


class Live:
    """One device's socket: read events with a bounded wait."""

    def __init__(self, device):
        self.device = device
        self.socket = device.server.connect_live(device.auth, open_timeout=10, ping_interval=None)

    def next(self, timeout=10):
        return json.loads(self.socket.recv(timeout=timeout))

    def until(self, predicate, timeout=10):
        """Events up to and including the first that matches `predicate`."""
        events = []
        deadline = time.monotonic() + timeout
        while True:
            event = self.next(max(0.01, deadline - time.monotonic()))
            events.append(event)
            if predicate(event):
                return events

    def typing(self, conversation):
        self.socket.send(json.dumps({"type": "typing", "conversationId": conversation}))

    def close(self):
        self.socket.close()


def is_conversation(conversation_id):
    return lambda event: event["type"] == "conversation" and event["conversation"]["id"] == conversation_id


def run(report, server):
    report.start_group("live")
    alice = Device(server, "live-alice")
    bob_phone = Device(server, "live-bob", "phone")
    bob_tablet = Device(server, "live-bob", "tablet")
    eve = Device(server, "live-eve")
    sockets = {name: Live(device) for name, device in
               [("alice", alice), ("bob_phone", bob_phone), ("bob_tablet", bob_tablet), ("eve", eve)]}

    created = alice.create(["live-bob"], title="Live")
    conversation = created["id"]
    for name in ("alice", "bob_phone", "bob_tablet"):
        events = sockets[name].until(is_conversation(conversation))
        report.check(f"{name} hears of the new conversation", events[-1]["conversation"]["memberIds"]
                     == ["live-alice", "live-bob"], str(events[-1]))
        report.check(f"the conversation event carries the list item ({name})",
                     set(events[-1]["conversation"]) == CONVERSATION_FIELDS | {"lastMessage"},
                     str(events[-1]))

    sent = alice.send(conversation, "hello live").json()
    for name in ("alice", "bob_phone", "bob_tablet"):
        event = sockets[name].next()
        report.check(f"message event to {name} (the sender's devices included)",
                     event == {"type": "message", "conversationId": conversation, "message": sent}, str(event))
        receipt = sockets[name].next()
        report.check(f"the sender's raised receipt follows, as a receipts event ({name})",
                     receipt == {"type": "receipts", "conversationId": conversation, "members": [
                         {"userId": "live-alice", "deliveredUpTo": 1, "readUpTo": 1}]}, str(receipt))
    bob_phone.mark("read", conversation, 1)
    for name in ("alice", "bob_tablet"):
        event = sockets[name].next()
        report.check(f"a read receipt goes live to {name}",
                     event == {"type": "receipts", "conversationId": conversation, "members": [
                         {"userId": "live-bob", "deliveredUpTo": 1, "readUpTo": 1}]}, str(event))
    sockets["bob_phone"].next()  # his own receipt event

    pong = sockets["alice"].socket.ping()
    report.check("a client's ping gets a pong", pong.wait(timeout=10))

    sockets["bob_phone"].typing(conversation)
    event = sockets["alice"].next()
    report.check("typing is relayed to the other members", event == {
        "type": "typing", "conversationId": conversation, "userId": "live-bob"}, str(event))

    # Eve is not a member: she must have received nothing of the above. A conversation created
    # for her is the marker: events reach a socket in the order they were published.
    marker = alice.create(["live-eve"], title="Marker")["id"]
    events = sockets["eve"].until(is_conversation(marker))
    report.check("a non-member's open socket received nothing of the conversation", len(events) == 1,
                 str(events[:-1]))
    sockets["alice"].until(is_conversation(marker))  # alice's own marker event
    # Frames of one socket are handled in order: eve's typing in the marker conversation reaches
    # alice after anything her typing in the other conversation could have caused.
    report.check("a non-member's send is the unknown-conversation 404",
                 eve.send(conversation, "let me in").status_code == 404)
    sockets["eve"].typing(conversation)
    sockets["eve"].typing(marker)
    events = sockets["alice"].until(lambda event: event["type"] == "typing")
    report.check("a non-member's typing and send reach no one",
                 events == [{"type": "typing", "conversationId": marker, "userId": "live-eve"}], str(events))
    bob_phone.send(conversation, "after")
    first = sockets["bob_tablet"].until(lambda event: event["type"] == "message")
    report.check("no typing event went to bob's tablet from bob's own typing", all(
        event["type"] != "typing" for event in first), str(first))
    check_typing_budget(report, server, sockets, conversation)
    for live in sockets.values():
        live.close()
    for device in (alice, bob_phone, bob_tablet, eve):
        device.close()


def check_typing_budget(report, server, sockets, conversation):
    """A socket's typing frames are relayed up to its budget (5 at once, then 1 a second, by
    default); the rest are dropped, counted in /metrics, and the socket stays open."""
    typist = Live(sockets["bob_phone"].device)  # a socket of its own: a full budget
    dropped_before = typing_dropped(server)
    for _ in range(8):
        typist.typing(conversation)
    # Two dropped: the frames before them were handled, the first five relayed.
    wait_for(lambda: typing_dropped(server) - dropped_before, lambda count: count >= 2)
    # Events reach a socket in the order they were published: a marker after the relays.
    marker = sockets["alice"].device.create([], title="Typing marker")["id"]
    events = sockets["alice"].until(is_conversation(marker))
    relayed = sum(event["type"] == "typing" for event in events)
    # The eighth frame may be handled after the count first reached two: read it again.
    dropped = wait_for(lambda: typing_dropped(server) - dropped_before,
                       lambda count: relayed + count >= 8)
    report.check("8 typing frames at once: 5 relayed (6 if a second passed), the rest dropped and counted",
                 5 <= relayed <= 6 and relayed + dropped == 8, f"relayed {relayed}, dropped {dropped}")
    pong = typist.socket.ping()
    report.check("the typing socket stays open", pong.wait(timeout=10))
    typist.close()


def typing_dropped(server):
    return metric_total(server, "chat_live_typing_dropped_total")


def metric_total(server, name):
    """Counter `name` over every node (each counts its own sockets)."""
    total = 0
    for node in getattr(server, "nodes", [server]):
        for line in node.request("GET", "/metrics").text.splitlines():
            if line.startswith(name + " "):
                total += int(float(line.split()[1]))
    return total


def raw_upgrade(server, token, receive_buffer=None):
    """A bare WebSocket client over a raw socket (TLS when the server serves it): it never
    answers pings, and reads only when the caller does."""
    conn = server.open_socket(10, receive_buffer)
    key = base64.b64encode(os.urandom(16)).decode()
    conn.sendall((f"GET /v1/live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                  f"Authorization: Bearer {token}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(1)
        if not chunk:
            break
        head += chunk
    return conn, head


def read_frame(conn):
    header = conn.recv(2)
    if len(header) < 2:
        return None, b""
    opcode = header[0] & 0x0F
    length = header[1] & 0x7F
    if length == 126:
        length = struct.unpack("!H", conn.recv(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", conn.recv(8))[0]
    payload = b""
    while len(payload) < length:
        payload += conn.recv(length - len(payload))
    return opcode, payload


def run_slow_reader(report):
    """A device that stops reading its socket while its group keeps talking (a phone in a lift):
    the server holds at most --live-buffer-bytes for it, then drops it and says why; the other
    members get every event meanwhile, in order, and the device catches up when it is back."""
    report.start_group("slow reader")
    # No pings: a socket that never answers one would be dropped for that after 40 s instead.
    with Server("--dev", "--rate-limit", "off", "--live-buffer-bytes", "65536",
                "--ping-interval", "3600") as server:
        alice, bob, carol = (Device(server, f"sr-{name}") for name in ("alice", "bob", "carol"))
        conversation = alice.create([bob.user, carol.user], title="Lift")["id"]
        stalled, head = raw_upgrade(server, bob.token, receive_buffer=4096)
        report.check("the stalled device's upgrade: 101", head.startswith(b"HTTP/1.1 101"), head[:40])
        carol_live = Live(carol)
        # Carol reads all along (on a thread of her own), as a phone out of the lift does.
        carol_got = []

        def read_carol():
            try:
                while True:
                    event = carol_live.next(timeout=60)
                    if event["type"] == "message":
                        carol_got.append(event["message"]["id"])
            except Exception:  # noqa: BLE001 - the socket closed, or went quiet for a minute
                pass

        reader = threading.Thread(target=read_carol, daemon=True)
        reader.start()
        sent = []
        for n in range(20_000):  # Until the server drops the stalled socket.
            response = alice.send(conversation, f"{n} " + "z" * 1_000)
            if response.status_code != 201:
                report.check("every send is acknowledged", False, str(response.status_code))
                break
            sent.append(response.json())
            if n % 50 == 49 and metric_total(server, "chat_live_subscriptions_dropped_total") > 0:
                break
        report.check(f"the socket that stopped reading was dropped ({len(sent)} messages of 1 KB)",
                     metric_total(server, "chat_live_subscriptions_dropped_total") == 1)
        dropped = [line for line in server.read_log().splitlines() if "event=live_dropped" in line]
        report.check("the log says whose socket and why (unread bytes)",
                     len(dropped) == 1 and "user=sr-bob" in dropped[0] and "unread=bytes" in dropped[0],
                     str(dropped))
        # The server closed it: reading what was sent ends, well within the bound.
        received, ended = 0, False
        stalled.settimeout(10)
        try:
            while True:
                chunk = stalled.recv(65536)
                if not chunk:
                    ended = True
                    break
                received += len(chunk)
        except ConnectionResetError:
            ended = True
        except OSError:
            pass
        stalled.close()
        report.check(f"its connection ended after {received} bytes reached it", ended)
        wanted = [item["id"] for item in sent]
        wait_for(lambda: list(carol_got), lambda got: len(got) >= len(wanted), timeout=30)
        report.check("the member who reads got every message, once, in order",
                     carol_got == wanted, f"{len(carol_got)} of {len(wanted)}")
        carol_live.close()
        reader.join(10)
        held, after = [], 0
        while True:  # Bob is back: a catch-up from the last sequence he holds (none).
            page = bob.messages(conversation, after=after).json()
            held += page["items"]
            if not page["hasMore"]:
                break
            after = held[-1]["sequence"]
        report.check("back, the device catches up every message",
                     [item["id"] for item in held] == [item["id"] for item in sent])
        bob_live = Live(bob)
        again = alice.send(conversation, "you are back").json()
        event = bob_live.until(lambda e: e["type"] == "message")[-1]
        report.check("and its new socket gets events live", event["message"] == again, str(event))
        bob_live.close()


def run_keepalive(report):
    """A server with --ping-interval 1 --ping-timeout 1: it pings a silent socket, and drops one
    that never answers; a stop closes sockets with 1001 and lets a request in flight finish."""
    report.start_group("pings and shutdown")
    folder = tempfile.mkdtemp(prefix="chat-contract-")
    try:
        stop_and_restart(report, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def stop_and_restart(report, folder):
    data = os.path.join(folder, "data")
    with Server("--dev", "--ping-interval", "1", "--ping-timeout", "1", data=data) as server:
        alice = Device(server, "ka-alice")
        conn, head = raw_upgrade(server, alice.token)
        report.check("raw upgrade: 101", head.startswith(b"HTTP/1.1 101"), head[:40])
        started = time.monotonic()
        opcode, _ = read_frame(conn)
        report.check("the server pings a silent socket", opcode == 0x9, f"opcode {opcode}")
        conn.settimeout(10)
        dropped = False
        try:
            while True:
                received = conn.recv(4096)
                if not received:
                    dropped = True
                    break
        except (ConnectionResetError, socket.timeout) as error:
            dropped = isinstance(error, ConnectionResetError)
        elapsed = time.monotonic() - started
        report.check("a socket that never answers is dropped within interval + timeout",
                     dropped and elapsed < 5, f"dropped={dropped} after {elapsed:.1f} s")
        conn.close()
        metrics = Device(server, "ka-bob").http.get("/metrics").text
        report.check("the dropped socket is no longer counted open",
                     "chat_live_subscriptions_open 0" in metrics, metrics[-300:])

        # Graceful stop: a socket gets 1001; a request whose body is half sent finishes.
        live = Live(alice)
        conversation = alice.create([])["id"]
        live.until(is_conversation(conversation))
        body = json.dumps({"clientMessageId": str(uuid.uuid4()), "text": "in flight"}).encode()
        pending = server.open_socket(10)
        pending.sendall((f"POST /v1/conversations/{conversation}/messages HTTP/1.1\r\nHost: x\r\n"
                         f"Authorization: Bearer {alice.token}\r\nContent-Type: application/json\r\n"
                         f"Expect: 100-continue\r\nContent-Length: {len(body)}\r\n\r\n").encode())
        # "100 Continue" proves the server holds the head: the request is in flight.
        interim = b""
        while b"\r\n\r\n" not in interim:
            interim += pending.recv(1)
        report.check("the server asks for the body", interim.startswith(b"HTTP/1.1 100"), interim)
        server.process.send_signal(15)
        code = None
        try:
            while True:
                live.socket.recv(timeout=10)
        except Exception:  # noqa: BLE001 - the close is what we wait for
            code = live.socket.close_code
        report.check("SIGTERM closes live sockets with 1001", code == 1001, f"close code {code}")
        pending.sendall(body)
        answer = b""
        while True:
            chunk = pending.recv(65536)
            if not chunk:
                break
            answer += chunk
        report.check("the request in flight is answered 201 with Connection: close",
                     answer.startswith(b"HTTP/1.1 201") and b"connection: close" in answer.lower(), answer[:200])
        report.check("the server then exits 0", server.process.wait(timeout=15) == 0,
                     f"exit {server.process.returncode}")
        rest = server.stdout_rest()
        report.check("it says it stopped", "stopped" in rest, rest)
        alice.close()
    with Server("--dev", data=data) as again:
        reader = Device(again, "ka-alice")
        items = reader.messages(conversation).json()["items"]
        report.check("the in-flight message was committed before the answer", [item["text"] for item in items]
                     == ["in flight"], str(items))
        reader.close()
