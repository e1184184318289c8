"""A TCP proxy on loopback that spoils connections it cannot read: TLS, or anything else.

Where `fault_proxy.FaultProxy` parses HTTP and cuts at chosen bytes of chosen requests, this
one sees only bytes. Each connection draws one fault from a seeded random source, in the order
connections arrive:

- `pass`: every byte both ways, untouched;
- `cut-up` / `cut-down`: forward a random number of the client's (or the server's) bytes, the
  handshake's included, then end both sides with a FIN or a reset;
- `delay`: hold each chunk of the server's bytes for a random time before forwarding it;
- `drop`: forward the client's bytes, throw the server's away, and close both sides after a
  random time (the reply was lost after the server acted).

Counts of each fault drawn are kept, so a test can say what it exercised."""

import random
import socket
import struct
import threading
import time
from selectors import EVENT_READ, DefaultSelector

FAULTS = ("pass", "cut-up", "cut-down", "delay", "drop")


class StreamFaultProxy:
    def __init__(self, upstream_port, seed, weights=(2, 3, 3, 2, 2), cut_bytes=6000,
                 longest_hold=1.5):
        self.upstream_port = upstream_port
        self.random = random.Random(seed)
        self.weights = weights
        self.cut_bytes = cut_bytes
        self.longest_hold = longest_hold
        self.faulty = True
        self.counts = {fault: 0 for fault in FAULTS}
        self.lock = threading.Lock()
        self.threads = []
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(256)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept_loop, daemon=True).start()

    @property
    def url(self):
        return f"https://localhost:{self.port}"

    def heal(self):
        """From now on every new connection passes untouched."""
        with self.lock:
            self.faulty = False

    def close(self):
        self.listener.close()

    def wait_idle(self, timeout=30):
        deadline = time.monotonic() + timeout
        for thread in list(self.threads):
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in self.threads)

    def _draw(self):
        with self.lock:
            if not self.faulty:
                return ("pass", 0, "FIN", 0.0)
            fault = self.random.choices(FAULTS, weights=self.weights)[0]
            self.counts[fault] += 1
            return (fault, self.random.randrange(self.cut_bytes + 1),
                    self.random.choice(("FIN", "RST")),
                    self.random.uniform(0.0, self.longest_hold))

    def _accept_loop(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(client, self._draw()), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _serve(self, client, plan):
        fault, offset, kind, hold = plan
        try:
            server = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=5)
        except OSError:
            client.close()
            return
        server.settimeout(None)
        forwarded = {"up": 0, "down": 0}
        selector = DefaultSelector()
        selector.register(client, EVENT_READ, "up")
        selector.register(server, EVENT_READ, "down")
        open_sides = 2
        drop_until = time.monotonic() + hold if fault == "drop" else None
        deadline = time.monotonic() + 30
        try:
            while open_sides and time.monotonic() < deadline:
                if drop_until is not None and time.monotonic() >= drop_until:
                    return _end(client, server, kind)
                for key, _ in selector.select(timeout=0.05):
                    source, target = (client, server) if key.data == "up" else (server, client)
                    data = source.recv(65536)
                    if not data:
                        selector.unregister(source)
                        open_sides -= 1
                        target.shutdown(socket.SHUT_WR)
                        continue
                    direction = key.data
                    if fault == "drop" and direction == "down":
                        continue
                    if fault == f"cut-{direction}":
                        room = offset - forwarded[direction]
                        target.sendall(data[:room])
                        forwarded[direction] += min(room, len(data))
                        if len(data) >= room:
                            return _end(client, server, kind)
                        continue
                    if fault == "delay" and direction == "down":
                        time.sleep(hold / 4)  # the fault itself: this chunk arrives late
                    target.sendall(data)
                    forwarded[direction] += len(data)
        except OSError:
            pass
        finally:
            selector.close()
        client.close()
        server.close()


def _end(client, server, kind):
    """Ends both sides: a reset (SO_LINGER 0), or a FIN after which whatever still comes is
    read and dropped until each peer closes."""
    if kind == "RST":
        for sock in (client, server):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        return
    for sock in (client, server):
        try:
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
    for sock in (client, server):
        sock.settimeout(5)
        try:
            while sock.recv(65536):
                pass
        except OSError:
            pass
        sock.close()
