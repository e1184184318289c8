"""`chat send` processes through a proxy that cuts their connection to the real `chat-server`
after every byte position of a real send's request and of its response, each with a FIN and
with a reset. No `chat` process may crash (its exit status is 0 or 75, never a signal), and once
the proxy stops cutting and the devices sync, every send must be on the server exactly once, as
an independent client reads it: one message per clientMessageId, no text twice, none missing.

The positions come from the bytes of one real send measured through the proxy first (the
messages have fixed-width texts, the conversation is seeded past sequence 999, so every send's
request and response have the same length). CHAT_FAULT_STRIDE=N cuts at every Nth position
only (a quicker local run); CHAT_FAULT_WORKERS sets how many devices send at once (3)."""

import http.client
import itertools
import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from fault_proxy import Cut, FaultProxy, message_length
from harness import Device, Results, Server, remove, temporary_folder

STRIDE = int(os.environ.get("CHAT_FAULT_STRIDE", "1"))
WORKERS = int(os.environ.get("CHAT_FAULT_WORKERS", "3"))
SEEDED = 999


def is_send(first_bytes):
    """Whether a connection starts with a send: its POST of a message."""
    line = first_bytes.split(b"\r\n", 1)[0]
    return line.startswith(b"POST /v1/conversations/") and line.endswith(b"/messages HTTP/1.1")


class FirstPosts:
    """Picks the connections to cut: those that start with the first POST of a message. A
    message posted again (the outbox retrying it) may be answered 200 with the stored copy
    instead of 201, a response of another length; those pass through."""

    def __init__(self):
        self.seen = set()

    def __call__(self, first_bytes):
        found = re.search(rb'"clientMessageId":"([0-9a-f-]+)"', first_bytes)
        if not is_send(first_bytes) or not found or found.group(1) in self.seen:
            return False
        self.seen.add(found.group(1))
        return True


class Direct:
    """The server's own HTTP API, read and written with Python's http.client: the independent
    client that seeds the conversation and reads it back."""

    def __init__(self, port, user):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        login = self.call("POST", "/v1/auth/dev-login", {"userId": user, "deviceId": "direct"})
        self.token = login["accessToken"]

    def call(self, method, path, body=None):
        headers = {"Content-Type": "application/json"}
        if getattr(self, "token", None):
            headers["Authorization"] = f"Bearer {self.token}"
        payload = json.dumps(body).encode() if body is not None else None
        self.connection.request(method, path, body=payload, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status >= 300:
            raise AssertionError(f"{method} {path}: {response.status} {data[:200]!r}")
        return json.loads(data) if data else None

    def messages(self, conversation):
        items, after = [], 0
        while True:
            page = self.call("GET", f"/v1/conversations/{conversation}/messages?after={after}&limit=200")
            items += page["items"]
            if not page["hasMore"] or not page["items"]:
                return items
            after = page["items"][-1]["sequence"]


def main():
    results = Results("fault proxy")
    started = time.monotonic()
    root = temporary_folder("chat-e2e-faults-")
    # Plain HTTP: the cut positions are bytes of the request and response as written.
    server = Server(os.path.join(root, "server"), extra=["--rate-limit", "off", "--log", "off"],
                    tls=False).start()
    proxy = FaultProxy(server.port, wants_cut=FirstPosts())
    workers = [f"w{index}" for index in range(WORKERS)]
    direct_devices = [Device(server, "alice", name, root) for name in workers]
    proxied = [Device(proxy, "alice", name, root) for name in workers]
    state = {"texts": [], "outcomes": [], "durations": []}
    numbers = itertools.count(1)
    numbering = threading.Lock()

    def send(device):
        with numbering:
            text = f"cut {next(numbers):05d}"
            state["texts"].append(text)
        began = time.monotonic()
        process = subprocess.run(device.args("send", state["chat"], text, "--json"),
                                 capture_output=True, text=True, timeout=60)
        state["outcomes"].append((text, process.returncode, process.stdout, process.stderr))
        state["durations"].append((time.monotonic() - began, text))
        return process

    try:
        def setup():
            for device in direct_devices:
                device.run("login")
            state["chat"] = direct_devices[0].json("create", "--title", "Cuts", "--members", "bob")["id"]
            bob = Direct(server.port, "bob")
            for index in range(SEEDED):
                bob.call("POST", f"/v1/conversations/{state['chat']}/messages",
                         {"clientMessageId": str(uuid.uuid4()), "text": f"seed {index:04d}"})
            for device in direct_devices:
                device.run("sync")

        results.check(f"sign in {WORKERS} devices, seed the conversation with {SEEDED} messages", setup)

        def measure():
            proxy.stop_cutting()
            for device in proxied:
                assert send(device).returncode == 0
            sends = [r for r in proxy.records if r.requests and is_send(r.requests[0])]
            assert len(sends) == len(proxied), f"{len(sends)} sends seen"
            lengths = {(len(r.requests[0]), message_length(r.response)) for r in sends}
            assert len(lengths) == 1, f"the sends differ in length: {lengths}"
            request, response = lengths.pop()
            state["lengths"] = (request, response)
            positions = [("request", offset) for offset in range(0, request + 1, STRIDE)]
            positions += [("response", offset) for offset in range(0, response + 1, STRIDE)]
            plan = [Cut(direction, offset, kind) for direction, offset in positions
                    for kind in ("FIN", "RST")]
            proxy.start_cutting(plan)
            print(f"  a send is {request} bytes of request and {response} of response: "
                  f"{len(plan)} cuts", flush=True)

        results.check("measure a real send through the proxy", measure)

        def sweep():
            count = len(proxy.plan)

            def run(index):
                # A cut send stays queued and its device's next send posts it first (uncut: it
                # may be answered 200, not 201), so send until every cut is taken.
                codes = []
                while proxy.cuts_left():
                    codes.append(send(proxied[index]).returncode)
                return codes

            with ThreadPoolExecutor(WORKERS) as pool:
                codes = [code for batch in pool.map(run, range(WORKERS)) for code in batch]
            assert proxy.wait_idle(), "a proxied connection never ended"
            crashed = [(t, c, e.strip()[-300:]) for t, c, _, e in state["outcomes"] if c < 0]
            assert not crashed, f"{len(crashed)} chat processes died of a signal: {crashed[:3]}"
            odd = [(t, c, e.strip()[-300:]) for t, c, _, e in state["outcomes"] if c not in (0, 75)]
            assert not odd, f"exit statuses other than 0 and 75: {odd[:5]}"
            fatal = [t for t, _, _, e in state["outcomes"] if "Fatal error" in e]
            assert not fatal, f"a fatal error in {fatal[:3]}"
            missed = [str(r.cut) for r in proxy.records if r.cut and not r.cut_done]
            assert not missed, f"{len(missed)} planned cuts never happened: {missed[:5]}"
            cuts = {r.cut for r in proxy.records if r.cut}
            assert cuts == set(proxy.plan), f"{len(set(proxy.plan) - cuts)} cuts were not made"
            requests = [request for r in proxy.records for request in r.requests]
            posts = len([request for request in requests if is_send(request)])
            request, response = state["lengths"]
            wrong = [str(r.cut) for r in proxy.records if r.cut and (
                not is_send(r.cut_request) or len(r.cut_request) != request
                or message_length(r.cut_response) not in (None, response))]
            assert not wrong, f"cuts of another request or length: {wrong[:5]}"
            statuses = {code: codes.count(code) for code in set(codes)}
            state["queued"] = sum(1 for _, _, out, _ in state["outcomes"] if '"queued"' in out)
            print(f"  {len(codes)} chat send processes, {len(proxy.records)} connections, "
                  f"{len(requests)} requests ({posts} message posts): {count} cuts, each made "
                  f"once; exit statuses {statuses}; {state['queued']} sends left queued",
                  flush=True)
            times = sorted(duration for duration, _ in state["durations"])
            print(f"  a send took {times[len(times) // 2] * 1000:.0f} ms (median), "
                  f"{times[-1] * 1000:.0f} ms at most", flush=True)

        results.check("every cut made, no chat process crashed (exit 0 or 75, never a signal)", sweep)

        def drain():
            proxy.stop_cutting()
            for device in proxied:
                report = device.json("sync")
                assert report["outboxRemaining"] == 0, report

        results.check("once the proxy stops cutting, every device's outbox drains", drain)

        def exactly_once():
            items = Direct(server.port, "alice").messages(state["chat"])
            sequences = [item["sequence"] for item in items]
            assert sequences == list(range(1, len(items) + 1)), "holes in the sequences"
            ids = [item["clientMessageId"] for item in items]
            assert len(ids) == len(set(ids)), f"{len(ids) - len(set(ids))} clientMessageIds twice"
            texts = [item["text"] for item in items if item["text"].startswith("cut ")]
            assert len(texts) == len(set(texts)), f"{len(texts) - len(set(texts))} texts twice"
            missing = set(state["texts"]) - set(texts)
            assert not missing, f"{len(missing)} sends missing, e.g. {sorted(missing)[:3]}"
            unexpected = set(texts) - set(state["texts"])
            assert not unexpected, f"unexpected messages {sorted(unexpected)[:3]}"
            by_text = {item["text"]: item["clientMessageId"] for item in items}
            for text, code, out, _ in state["outcomes"]:
                if code == 0 and out.strip():
                    assert json.loads(out)["clientMessageId"] == by_text[text], text
            print(f"  {len(texts)} sends on the server, each once ({len(items)} messages with "
                  f"the seed)", flush=True)

        results.check("every send is on the server exactly once", exactly_once)
    finally:
        proxy.close()
        server.stop()
        print(f"  {time.monotonic() - started:.0f} s", flush=True)
        if results.failed:
            print(f"  kept {root} for inspection", flush=True)
        else:
            remove(root)
    results.finish()


if __name__ == "__main__":
    main()
