"""`chat send` over HTTPS through a proxy that cuts, delays and drops the TLS connections it
carries (`stream_fault_proxy`: a fault drawn per connection from a seeded random source, at
any byte, the handshake's included). No `chat` process may crash: its exit status is 0 or 75,
never a signal. Once the proxy heals and the devices sync, every send is on the server exactly
once, as an independent client reads it.

Why so many sends: before OpenSSL was started without its clean-up at exit
(`Sources/CCryptoLifetime`), a `chat` whose client thread was still in a handshake when the
process exited died of SIGSEGV: 3 sends in 3,000 here
(docs/performance/tls-faults-3000-before-a0a07f4.log). CHAT_TLS_FAULT_SENDS sets the number:
1,000 by default (about two and a half minutes; that rate would show in about two runs of
three), 3,000 for the figures in the docs (95%). The suite tls_peers.py aims at the race itself
(100 processes that exit during handshakes: 31 crashed before the fix, none after).
CHAT_TLS_FAULT_SEED sets the proxy's seed; CHAT_FAULT_WORKERS how many devices send at once
(3)."""

import json
import os
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from harness import Device, Results, Server, remove, temporary_folder
from stream_fault_proxy import StreamFaultProxy
from test_fault_proxy import Direct

SENDS = int(os.environ.get("CHAT_TLS_FAULT_SENDS", "1000"))
SEED = int(os.environ.get("CHAT_TLS_FAULT_SEED", "33"))
WORKERS = int(os.environ.get("CHAT_FAULT_WORKERS", "3"))


class HTTPSDirect(Direct):
    """`Direct` over HTTPS, trusting the run's CA."""

    def __init__(self, server, user):
        import http.client
        import ssl

        context = ssl.create_default_context(cafile=server.ca_file)
        self.connection = http.client.HTTPSConnection("localhost", server.port, timeout=10,
                                                      context=context)
        login = self.call("POST", "/v1/auth/dev-login", {"userId": user, "deviceId": "direct"})
        self.token = login["accessToken"]


def main():
    results = Results("TLS fault proxy")
    started = time.monotonic()
    root = temporary_folder("chat-e2e-tls-faults-")
    server = Server(os.path.join(root, "server"), extra=["--rate-limit", "off", "--log", "off"],
                    tls=True).start()
    proxy = StreamFaultProxy(server.port, seed=SEED)
    proxy.ca_file = server.ca_file
    workers = [f"w{index}" for index in range(WORKERS)]
    direct_devices = [Device(server, "alice", name, root) for name in workers]
    proxied = [Device(proxy, "alice", name, root) for name in workers]
    outcomes = []
    lock = threading.Lock()
    state = {}

    try:
        def setup():
            for device in direct_devices:
                device.run("login")
            state["chat"] = direct_devices[0].json("create", "--title", "TLS cuts",
                                                  "--members", "bob")["id"]
            for device in direct_devices:
                device.run("sync")

        results.check(f"sign in {WORKERS} devices over HTTPS", setup)

        def sweep():
            counter = iter(range(SENDS))

            def run(device):
                while True:
                    with lock:
                        number = next(counter, None)
                    if number is None:
                        return
                    text = f"tls {number:05d}"
                    process = subprocess.run(device.args("send", state["chat"], text, "--json"),
                                             capture_output=True, text=True, timeout=120)
                    with lock:
                        outcomes.append((text, process.returncode, process.stdout,
                                         process.stderr))

            with ThreadPoolExecutor(WORKERS) as pool:
                list(pool.map(run, proxied))
            assert proxy.wait_idle(), "a proxied connection never ended"
            crashed = [(t, c, e.strip()[-300:]) for t, c, _, e in outcomes if c < 0]
            codes = {code: [c for _, c, _, _ in outcomes].count(code)
                     for code in {c for _, c, _, _ in outcomes}}
            print(f"  {len(outcomes)} chat send processes over TLS; faults drawn "
                  f"{proxy.counts}; exit statuses {codes}", flush=True)
            assert not crashed, f"{len(crashed)} chat processes died of a signal: {crashed[:3]}"
            odd = [(t, c, e.strip()[-300:]) for t, c, _, e in outcomes if c not in (0, 75)]
            assert not odd, f"exit statuses other than 0 and 75: {odd[:5]}"
            fatal = [t for t, _, _, e in outcomes if "Fatal error" in e]
            assert not fatal, f"a fatal error in {fatal[:3]}"

        results.check(f"{SENDS} sends through cut, delayed and dropped TLS connections: no "
                      "chat process crashed (exit 0 or 75, never a signal)", sweep)

        def drain():
            proxy.heal()
            for device in proxied:
                report = device.json("sync")
                assert report["outboxRemaining"] == 0, report

        results.check("once the proxy heals, every device's outbox drains", drain)

        def exactly_once():
            items = HTTPSDirect(server, "alice").messages(state["chat"])
            sequences = [item["sequence"] for item in items]
            assert sequences == list(range(1, len(items) + 1)), "holes in the sequences"
            texts = [item["text"] for item in items]
            assert len(texts) == len(set(texts)), f"{len(texts) - len(set(texts))} texts twice"
            sent = {text for text, _, _, _ in outcomes}
            missing = sent - set(texts)
            assert not missing, f"{len(missing)} sends missing, e.g. {sorted(missing)[:3]}"
            unexpected = set(texts) - sent
            assert not unexpected, f"unexpected messages {sorted(unexpected)[:3]}"
            by_text = {item["text"]: item["clientMessageId"] for item in items}
            for text, code, out, _ in outcomes:
                if code == 0 and out.strip():
                    assert json.loads(out)["clientMessageId"] == by_text[text], text
            print(f"  {len(texts)} sends on the server, each once", flush=True)

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
