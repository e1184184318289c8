"""A TCP proxy on loopback that cuts connections at chosen byte positions of chosen requests.

The proxy reads the client's stream request by request (head and Content-Length body; the
clients it carries send one request at a time and never chunk). A request that `wants_cut`
(the test picks which) takes the next cut of the plan, in the order the requests arrive; every
other request, and every one once the plan is used up or cutting is off, passes through. A cut
is (direction, offset, kind): forward `offset` bytes of that request, or the whole request and
`offset` bytes of its response, then end both sides with a FIN (shutdown, then read until each
peer closes, so no unread byte turns the FIN into a reset) or a reset (SO_LINGER 0). At most
one cut per connection. What each connection saw is recorded, so a test can check that every
cut happened where it was planned and on a request and response of the planned length."""

import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from selectors import EVENT_READ, DefaultSelector


@dataclass(frozen=True)
class Cut:
    direction: str  # "request" or "response"
    offset: int  # bytes of that request, or of its response, forwarded before the cut
    kind: str  # "FIN" or "RST"

    def __str__(self):
        return f"{self.kind} after {self.offset} bytes of the {self.direction}"


@dataclass
class Record:
    """One proxied connection: its cut (None: passed through), the requests it carried, the
    request that was cut and what came back for it before the cut."""

    cut: Cut | None = None
    requests: list = field(default_factory=list)
    response: bytearray = field(default_factory=bytearray)  # everything the server sent
    cut_request: bytes = b""
    cut_response: bytearray = field(default_factory=bytearray)
    cut_done: bool = False


def message_length(data):
    """The length of the HTTP message at the start of `data` (head and Content-Length body),
    or None while it is not all there."""
    end = bytes(data).find(b"\r\n\r\n")
    if end < 0:
        return None
    length = 0
    for line in bytes(data[:end]).split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    total = end + 4 + length
    return total if len(data) >= total else None


class FaultProxy:
    def __init__(self, upstream_port, plan=(), wants_cut=lambda request: True):
        self.upstream_port = upstream_port
        self.wants_cut = wants_cut
        self.plan = list(plan)
        self.next_cut = 0
        self.cutting = True
        self.records = []
        self.lock = threading.Lock()
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(256)
        self.port = self.listener.getsockname()[1]
        self.threads = []
        threading.Thread(target=self._accept_loop, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def stop_cutting(self):
        with self.lock:
            self.cutting = False

    def start_cutting(self, plan):
        with self.lock:
            self.plan = list(plan)
            self.next_cut = 0
            self.records = []
            self.cutting = True

    def cuts_left(self):
        with self.lock:
            return self.cutting and self.next_cut < len(self.plan)

    def close(self):
        self.listener.close()

    def wait_idle(self, timeout=30):
        """Waits until every connection's thread has finished (a failure deadline)."""
        deadline = time.monotonic() + timeout
        for thread in list(self.threads):
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in self.threads)

    def _accept_loop(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(client,), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _take_cut(self, request):
        with self.lock:
            if self.cutting and self.next_cut < len(self.plan) and self.wants_cut(request):
                self.next_cut += 1
                return self.plan[self.next_cut - 1]
            return None

    def _serve(self, client):
        try:
            server = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=5)
        except OSError:
            client.close()
            return
        server.settimeout(None)
        record = Record()
        with self.lock:
            self.records.append(record)
        pending = bytearray()  # client bytes of a request not yet complete
        armed = False  # a response cut waits for its response
        selector = DefaultSelector()
        selector.register(client, EVENT_READ, "up")
        selector.register(server, EVENT_READ, "down")
        open_sides = 2
        deadline = time.monotonic() + 30
        try:
            while open_sides and time.monotonic() < deadline:
                for key, _ in selector.select(timeout=1):
                    source, target = (client, server) if key.data == "up" else (server, client)
                    data = source.recv(65536)
                    if not data:
                        selector.unregister(source)
                        open_sides -= 1
                        target.shutdown(socket.SHUT_WR)
                        continue
                    if key.data == "down":
                        record.response += data
                    if key.data == "up":
                        pending += data
                        while (length := message_length(pending)) is not None:
                            request = bytes(pending[:length])
                            del pending[:length]
                            record.requests.append(request)
                            cut = None if record.cut else self._take_cut(request)
                            if cut and cut.direction == "request":
                                record.cut, record.cut_request = cut, request
                                server.sendall(request[:cut.offset])
                                return self._cut(client, server, record)
                            server.sendall(request)
                            if cut:
                                record.cut, record.cut_request, armed = cut, request, True
                    elif armed:
                        # The client waited for every earlier response, so what comes now
                        # belongs to the cut request.
                        room = record.cut.offset - len(record.cut_response)
                        record.cut_response += data
                        client.sendall(data[:room])
                        if len(data) >= room:
                            return self._cut(client, server, record)
                    else:
                        client.sendall(data)
        except OSError:
            pass
        finally:
            selector.close()
        client.close()
        server.close()

    def _cut(self, client, server, record):
        record.cut_done = True
        if record.cut.kind == "RST":
            for sock in (client, server):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.close()
            return
        for sock in (client, server):
            try:
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        # Read (and drop) whatever still comes until both peers close, then close.
        for sock in (client, server):
            sock.settimeout(5)
            try:
                while sock.recv(65536):
                    pass
            except OSError:
                pass
            sock.close()
