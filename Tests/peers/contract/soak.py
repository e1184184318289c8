"""A long life under a mixed load: one chat-server (scripts/soak builds the release one) for
MINUTES, with devices that send, mark read, type, reconnect their sockets, long-poll, upload
photos and search, as phones do. Every 10 s it samples the server's resident memory, open file
descriptors and threads, and the p99 latency of the requests answered in those 10 s; at the end
it fits a line through the samples after the first fifth (the warm-up) and says the slopes.

    scripts/soak MINUTES [--json FILE] [--actions send,search,…] [--access-token-ttl S]
                       (the release server; CHAT_SERVER_BINARY for another)

It fails (exit 1) when a request got an answer it should not (a 5xx, a 4xx other than the
expected), when a socket event is no stored message of the device's conversations or came twice
(what a socket missed is the catch-up's, as on a phone), or when the server holds more
descriptors or threads once every client left than before the first came. Memory is measured,
not judged: say the slope.
"""

import hashlib
import json
import os
import random
import sys
import threading
import time
import uuid

import chatserver
from cases_live import Live
from cases_media import put_part
from websockets.exceptions import InvalidStatus
from chatserver import Device, Server

SAMPLE_SECONDS = 10
USERS = 24
GROUP_SIZE = 4
WORKERS = 6
WORDS = ["hiking", "sunday", "lunch", "train", "concert", "coffee", "later", "photo"]
# What devices do, and how often (weights): `--actions send,search` keeps some only.
ACTIONS = {"send": 55, "receipt": 15, "typing": 8, "reconnect": 4, "sync": 6, "search": 7,
           "photo": 5}


class Member:
    """One user's device: its HTTP client, refreshed on 401 as a phone's is, and its socket."""

    def __init__(self, server, name):
        self.server = server
        self.device = Device(server, name)
        self.lock = threading.Lock()
        # One reconnect at a time: two would leave a socket no reader holds.
        self.socket_lock = threading.Lock()
        self.live = None
        # The server closed the socket (its token expired, say): the device opens another.
        self.closed_by_server = False
        self.refreshes = 0
        self.events = []
        self.reader = None

    def request(self, method, path, body=None, params=None, content=None):
        """One request; a 401 (the access token expired) refreshes once and tries again. Under
        the device's lock: two refreshes with one refresh token would revoke its family."""
        with self.lock:
            response = self.device.request(method, path, body, params=params, content=content)
            if response.status_code == 401 and self.refresh():
                response = self.device.request(method, path, body, params=params, content=content)
            return response

    def refresh(self):
        """A new token pair (the caller holds the lock); False when the server refused."""
        refreshed = self.device.http.post(
            "/v1/auth/refresh", json={"refreshToken": self.device.tokens["refreshToken"]})
        if refreshed.status_code != 200:
            return False
        self.refreshes += 1
        self.device.tokens = refreshed.json()
        self.device.token = self.device.tokens["accessToken"]
        return True

    def open_live(self):
        with self.lock:
            try:
                live = Live(self.device)
            except InvalidStatus as refused:
                if refused.response.status_code != 401 or not self.refresh():
                    raise
                live = Live(self.device)
            self.live = live
            self.closed_by_server = False
        self.reader = threading.Thread(target=self.read, args=(live,), daemon=True)
        self.reader.start()

    def read(self, live):
        while True:
            try:
                event = live.next(timeout=3600)
            except Exception:  # noqa: BLE001 - closed: by a reconnect, the server, the end
                if live is self.live:
                    self.closed_by_server = True
                return
            if event["type"] == "message":
                self.events.append(event["message"])

    def reconnect(self):
        with self.socket_lock:
            old = self.live
            self.live = None  # The reader of `old` sees its close as ours.
            if old:  # None when the last open failed (counted then)
                old.close()
                self.reader.join(10)
            self.open_live()


class Load:
    def __init__(self, server, members, conversations, actions=tuple(ACTIONS)):
        self.server = server
        self.actions = actions
        self.members = members
        self.conversations = conversations  # id -> member names
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.latencies = []  # (finished at, seconds)
        self.counts = {}
        self.unexpected = []
        self.cursors = {}
        self.last_sequence = {chat: 0 for chat in conversations}

    def timed(self, action, member, method, path, expected, body=None, params=None, content=None):
        started = time.monotonic()
        response = member.request(method, path, body, params=params, content=content)
        finished = time.monotonic()
        with self.lock:
            self.latencies.append((finished, finished - started))
            key = f"{action} {response.status_code}"
            self.counts[key] = self.counts.get(key, 0) + 1
            if response.status_code not in expected:
                self.unexpected.append(f"{action}: {response.status_code} {response.text[:120]}")
        return response

    def work(self, seed):
        rng = random.Random(seed)
        while not self.stop.is_set():
            try:
                self.act(rng)
            except Exception as error:  # noqa: BLE001 - counted: a soak reports, never stops
                with self.lock:
                    self.unexpected.append(f"{type(error).__name__}: {error}")

    def act(self, rng):
        name = rng.choice(list(self.members))
        member = self.members[name]
        chat = rng.choice([c for c, people in self.conversations.items() if name in people])
        if member.closed_by_server:  # As the engine does: reconnect, refreshing if need be.
            with self.lock:
                self.counts["reopened"] = self.counts.get("reopened", 0) + 1
            member.reconnect()
        actions = [action for action in ACTIONS if action in self.actions]
        action = rng.choices(actions, weights=[ACTIONS[a] for a in actions])[0]
        if action == "send":
            words = " ".join(rng.choice(WORDS) for _ in range(6))
            sent = self.timed("send", member, "POST", f"/v1/conversations/{chat}/messages",
                              {201}, {"clientMessageId": str(uuid.uuid4()), "text": words})
            if sent.status_code == 201:
                self.raise_last(chat, sent.json()["sequence"])
        elif action == "receipt":
            last = self.last_sequence[chat]
            self.timed("catch-up", member, "GET", f"/v1/conversations/{chat}/messages",
                       {200}, params={"after": max(0, last - 20), "limit": 50})
            kind = rng.choice(["read", "delivered"])
            self.timed("receipt", member, "POST", f"/v1/conversations/{chat}/{kind}", {204},
                       {"upToSequence": last})
        elif action == "typing":
            try:
                member.live.typing(chat)
            except Exception:  # noqa: BLE001 - a socket closing now: the next one types
                pass
        elif action == "reconnect":
            with self.lock:
                self.counts["reconnect"] = self.counts.get("reconnect", 0) + 1
            member.reconnect()
        elif action == "sync":
            cursor = self.cursors.get(name)
            params = {"cursor": cursor, "wait": 1} if cursor else {}
            reply = self.timed("sync", member, "GET", "/v1/sync", {200}, params=params)
            if reply.status_code == 200:
                self.cursors[name] = reply.json()["cursor"]
        elif action == "search":
            self.timed("search", member, "GET", "/v1/search", {200},
                       params={"q": rng.choice(WORDS), "limit": 20})
        else:
            self.photo(member, chat, rng)

    def photo(self, member, chat, rng):
        photo = rng.randbytes(4_000)
        digest = hashlib.sha256(photo).hexdigest()
        created = member.request("POST", "/v1/media/uploads", {
            "kind": "file", "contentType": "application/pdf", "byteCount": len(photo),
            "sha256": digest, "fileName": "soak.pdf"})
        if created.status_code != 201:
            with self.lock:
                self.unexpected.append(f"upload: {created.status_code} {created.text[:120]}")
            return
        upload = created.json()
        part = upload["parts"][0]
        put = put_part(self.server, part, photo)
        done = self.timed("upload", member, "POST", f"/v1/media/uploads/{upload['mediaKey']}/complete",
                          {200}, {"parts": [{"number": part["number"], "etag": put.headers.get("etag")}]})
        if done.status_code != 200:
            return
        media = {"key": upload["mediaKey"], "kind": "file", "contentType": "application/pdf",
                 "byteCount": len(photo), "sha256": digest, "fileName": "soak.pdf"}
        sent = self.timed("send media", member, "POST", f"/v1/conversations/{chat}/messages",
                          {201}, {"clientMessageId": str(uuid.uuid4()), "text": "", "media": media})
        if sent.status_code == 201:
            self.raise_last(chat, sent.json()["sequence"])

    def raise_last(self, chat, sequence):
        with self.lock:
            self.last_sequence[chat] = max(self.last_sequence[chat], sequence)

    def window_p99(self, since):
        with self.lock:
            recent = sorted(seconds for finished, seconds in self.latencies if finished >= since)
        if not recent:
            return None
        return recent[min(len(recent) - 1, int(len(recent) * 0.99))] * 1000


def process_sample(pid):
    status = open(f"/proc/{pid}/status").read()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return {
        "rssKiB": int(fields["VmRSS"].split()[0]),
        "threads": int(fields["Threads"].strip()),
        "fds": len(os.listdir(f"/proc/{pid}/fd")),
    }


def warm_up(server):
    """One device does each action once (a conversation of its own, a photo, a search, a long
    poll, a socket), then leaves: what the server opens for good on first use (files, the
    object store's) is open before the descriptors are counted."""
    member = Member(server, "soak-warm-up")
    other = Member(server, "soak-warm-up-2")
    chat = member.device.create([other.device.user], title="warm-up")["id"]
    member.open_live()
    load = Load(server, {"soak-warm-up": member}, {chat: ["soak-warm-up"]})
    rng = random.Random(0)
    load.timed("send", member, "POST", f"/v1/conversations/{chat}/messages", {201},
               {"clientMessageId": str(uuid.uuid4()), "text": "warm"})
    load.photo(member, chat, rng)
    load.timed("search", member, "GET", "/v1/search", {200}, params={"q": "warm"})
    load.timed("sync", member, "GET", "/v1/sync", {200})
    member.live.close()
    member.reader.join(10)
    for device in (member.device, other.device):
        device.close()
    if load.unexpected:
        raise RuntimeError(f"warm-up: {load.unexpected}")


def settled(pid):
    """The server's sample once its descriptors and threads stay the same for 10 s (its clients'
    sockets closed, idle pool threads gone)."""
    samples = []

    def steady():
        samples.append((time.monotonic(), process_sample(pid)))
        recent = [s for t, s in samples if t >= samples[-1][0] - 10]
        return (samples[-1][0] - samples[0][0] >= 10
                and len({(s["fds"], s["threads"]) for s in recent}) == 1)

    chatserver.wait_for(steady, bool, timeout=60)
    return samples[-1][1]


def slope(points):
    """Least squares: units per minute of (seconds, value) points."""
    if len(points) < 2:
        return 0.0
    xs, ys = [p[0] / 60 for p in points], [p[1] for p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return 0.0 if var == 0 else sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var


def check_sockets(members, conversations):
    """Every message event a device's sockets got is a stored message of its conversations, and
    none came twice (a reconnect replays nothing: its catch-up is HTTP)."""
    problems = []
    known = {}
    for chat, people in conversations.items():
        member, after = members[people[0]], 0
        while True:  # Through the device's own requests: its token may need a refresh.
            page = member.request("GET", f"/v1/conversations/{chat}/messages",
                                  params={"after": after, "limit": 200}).json()
            for item in page["items"]:
                known[item["id"]] = item
            if not page["hasMore"]:
                break
            after = page["items"][-1]["sequence"]
    for name, member in members.items():
        ids = [event["id"] for event in member.events]
        unknown = [i for i in ids if i not in known]
        if unknown:
            problems.append(f"{name}: {len(unknown)} events of no stored message")
        doubled = len(ids) - len(set(ids))
        if doubled:
            problems.append(f"{name}: {doubled} message events twice")
    return problems


def main(arguments):
    if not arguments or not arguments[0].replace(".", "", 1).isdigit():
        sys.exit("soak.py MINUTES [--json FILE] [--actions send,search,…] [--access-token-ttl S]")
    minutes = float(arguments[0])
    out = arguments[arguments.index("--json") + 1] if "--json" in arguments else None
    actions = tuple(ACTIONS)
    if "--actions" in arguments:
        actions = tuple(arguments[arguments.index("--actions") + 1].split(","))
        unknown = [a for a in actions if a not in ACTIONS]
        if unknown or not actions:
            sys.exit(f"soak.py: unknown actions {unknown}; known: {', '.join(ACTIONS)}")
    duration = minutes * 60
    # A short access-token life (CI: 30 s) makes refreshes and sockets closed at expiry part of
    # the load.
    ttl = []
    if "--access-token-ttl" in arguments:
        ttl = ["--access-token-ttl", arguments[arguments.index("--access-token-ttl") + 1]]
    with Server("--dev", "--rate-limit", "off", "--log", "off", *ttl) as server:
        pid = server.process.pid
        warm_up(server)
        before = settled(pid)
        names = [f"soak-{n}" for n in range(USERS)]
        members = {name: Member(server, name) for name in names}
        conversations = {}
        for start in range(0, USERS, GROUP_SIZE):
            people = names[start:start + GROUP_SIZE]
            chat = members[people[0]].device.create(people[1:], title=f"group {start}")["id"]
            conversations[chat] = people
        for first, second in zip(names[::2], names[1::2]):
            chat = members[first].device.create([second], title="pair")["id"]
            conversations[chat] = [first, second]
        for member in members.values():
            member.open_live()
        load = Load(server, members, conversations, actions)
        workers = [threading.Thread(target=load.work, args=(n,), daemon=True) for n in range(WORKERS)]
        started = time.monotonic()
        for worker in workers:
            worker.start()
        samples = []
        while time.monotonic() - started < duration:
            load.stop.wait(SAMPLE_SECONDS)
            now = time.monotonic()
            sample = {"seconds": round(now - started, 1), **process_sample(pid),
                      "p99ms": load.window_p99(now - SAMPLE_SECONDS),
                      "requests": len(load.latencies)}
            samples.append(sample)
            print(f"  {sample['seconds']:7.1f} s  rss {sample['rssKiB'] / 1024:7.1f} MiB  "
                  f"fds {sample['fds']:4d}  threads {sample['threads']:3d}  "
                  f"p99 {sample['p99ms'] or 0:7.1f} ms  requests {sample['requests']}", flush=True)
        load.stop.set()
        for worker in workers:
            worker.join(30)
        problems = check_sockets(members, conversations)
        for member in members.values():
            if member.live:
                member.live.close()
            member.device.close()
        # Every client gone: the server's descriptors go back to what it held before them.
        after = chatserver.wait_for(
            lambda: process_sample(pid),
            lambda s: s["fds"] <= before["fds"] and s["threads"] <= before["threads"], timeout=30)
    steady = [s for s in samples if s["seconds"] >= duration / 5]
    summary = {
        "minutes": minutes,
        "requests": len(load.latencies),
        "answers": load.counts,
        "tokenRefreshes": sum(member.refreshes for member in members.values()),
        "unexpected": load.unexpected[:20],
        "unexpectedCount": len(load.unexpected),
        "socketProblems": problems,
        "rssSlopeKiBPerMinute": round(slope([(s["seconds"], s["rssKiB"]) for s in steady]), 1),
        "fdSlopePerMinute": round(slope([(s["seconds"], s["fds"]) for s in steady]), 2),
        "threadSlopePerMinute": round(slope([(s["seconds"], s["threads"]) for s in steady]), 2),
        "fdsBefore": before["fds"],
        "fdsAfterClients": after["fds"],
        "rssKiBFirstSteady": steady[0]["rssKiB"] if steady else None,
        "rssKiBLast": samples[-1]["rssKiB"] if samples else None,
    }
    print(json.dumps(summary, indent=1))
    if out:
        with open(out, "w") as handle:
            json.dump({"summary": summary, "samples": samples}, handle, indent=1)
    checks = [
        ("every answer was one the contract gives", not load.unexpected, load.unexpected[:5]),
        ("every socket event is a stored message, none twice", not problems, problems[:5]),
        ("every client gone, the server holds no more descriptors than before them",
         after["fds"] <= before["fds"], f"{before['fds']} before, {after['fds']} after"),
        ("nor more threads", after["threads"] <= before["threads"],
         f"{before['threads']} before, {after['threads']} after"),
    ]
    for label, ok, detail in checks:
        if not ok:
            print(f"FAIL [soak] {label}: {detail}")
    failed = sum(1 for _, ok, _ in checks if not ok)
    print(f"soak: {len(checks) - failed} passed, {failed} failed "
          f"({len(load.latencies)} requests in {minutes:g} min)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
