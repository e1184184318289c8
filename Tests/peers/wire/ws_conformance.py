"""Runs the Autobahn-style cases of ws_cases.py against our server and against our client.

Against the server the tester is a raw-socket client (wsproto checks our 101 response); against
the client it is a raw-socket server (wsproto checks our upgrade request) that the wire-peer
echo client visits at /case/1 ... /case/N. Prints the counts per group and direction and ends
with 'N passed, N failed'; exits non-zero on any failure.
"""

import collections
import os
import socket
import struct
import subprocess
import sys
import threading
import time

from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request

import wirepeer
from ws_cases import CLOSE, CONT, GROUP_NAMES, PING, ExpectFailureNow, Frame, Pause, all_cases

MAX_MESSAGE = 300_000


class Broken(Exception):
    pass


class FramePeer:
    """Raw frames over a socket; `mask` says whether we mask what we send."""

    def __init__(self, sock, mask):
        self.sock, self.mask, self.buffer, self.eof = sock, mask, b"", False

    def encode(self, frame):
        head = bytes([(0x80 if frame.fin else 0) | (frame.rsv << 4) | frame.opcode])
        length = len(frame.payload)
        mask_bit = 0x80 if self.mask else 0
        if length < 126:
            head += bytes([mask_bit | length])
        elif length < 65536:
            head += bytes([mask_bit | 126]) + struct.pack("!H", length)
        else:
            head += bytes([mask_bit | 127]) + struct.pack("!Q", length)
        if not self.mask:
            return head, frame.payload
        key = os.urandom(4)
        return head + key, _mask_fast(frame.payload, key)

    def pieces(self, frame):
        head, body = self.encode(frame)
        if frame.split_at is not None:
            cuts = [0] + list(frame.split_at) + [len(body)]
            parts = [body[a:b] for a, b in zip(cuts, cuts[1:])]
            parts[0] = head + parts[0]
            return parts
        data = head + body
        if frame.chop:
            return [data[i:i + frame.chop] for i in range(0, len(data), frame.chop)]
        return [data]

    def send_raw(self, data):
        try:
            self.sock.sendall(data)
        except OSError as error:
            raise Broken(str(error))

    def read_frame(self, timeout):
        """(fin, rsv, opcode, masked, payload), or None at EOF or timeout."""
        deadline = time.monotonic() + timeout
        while True:
            frame = self._parse()
            if frame is not None:
                return frame
            if self.eof:
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            self.sock.settimeout(remaining)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                return "timeout"
            except OSError:
                data = b""
            if not data:
                self.eof = True
            self.buffer += data

    def _parse(self):
        b = self.buffer
        if len(b) < 2:
            return None
        fin, rsv, opcode = b[0] >> 7, (b[0] >> 4) & 7, b[0] & 15
        masked, length, index = b[1] >> 7, b[1] & 127, 2
        if length == 126:
            if len(b) < 4:
                return None
            length, index = struct.unpack("!H", b[2:4])[0], 4
        elif length == 127:
            if len(b) < 10:
                return None
            length, index = struct.unpack("!Q", b[2:10])[0], 10
        key = b""
        if masked:
            if len(b) < index + 4:
                return None
            key, index = b[index:index + 4], index + 4
        if len(b) < index + length:
            return None
        payload = b[index:index + length]
        if masked:
            payload = _mask_fast(payload, key)
        self.buffer = b[index + length:]
        return fin, rsv, opcode, masked, payload

    def wait_eof(self, timeout):
        deadline = time.monotonic() + timeout
        while not self.eof and time.monotonic() < deadline:
            if self.read_frame(deadline - time.monotonic()) == "timeout":
                break
        return self.eof


def _mask_fast(data, key):
    """XORs `data` with the repeated 4-byte `key`, using big integers for speed."""
    if not data:
        return b""
    repeated = (key * (len(data) // 4 + 1))[:len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(repeated, "big")).to_bytes(len(data), "big")


def run_case(case, peer, expect_masked):
    """Plays `case` over `peer`; returns None when the endpoint behaved, else what was wrong."""
    received, close = [], None
    fragments, fragment_opcode = b"", None
    problems = []

    def absorb(frame):
        nonlocal close, fragments, fragment_opcode
        fin, rsv, opcode, masked, payload = frame
        if rsv:
            problems.append("the endpoint set reserved bits")
        if bool(masked) != expect_masked:
            problems.append("the endpoint's masking is wrong for its role")
        if opcode == CLOSE:
            close = payload
        elif opcode in (PING,):
            received.append((opcode, payload))
        elif opcode == CONT:
            fragments += payload
            if fin:
                received.append((fragment_opcode, fragments))
                fragments, fragment_opcode = b"", None
        elif opcode & 8:
            received.append((opcode, payload))
        elif fin:
            received.append((opcode, payload))
        else:
            fragments, fragment_opcode = payload, opcode

    def wait_for_close(timeout):
        deadline = time.monotonic() + timeout
        while close is None:
            frame = peer.read_frame(max(0.0, deadline - time.monotonic()))
            if frame is None or frame == "timeout":
                return False
            absorb(frame)
        return True

    def poll_frames():
        while close is None:
            frame = peer.read_frame(0.0)
            if frame is None or frame == "timeout":
                return
            absorb(frame)

    sent_close = False
    try:
        for step in case.steps:
            if close is not None:
                break
            if isinstance(step, Pause):
                time.sleep(step.seconds)
            elif isinstance(step, ExpectFailureNow):
                if not wait_for_close(2.0):
                    return "did not fail fast"
            elif isinstance(step, Frame):
                for index, piece in enumerate(peer.pieces(step)):
                    peer.send_raw(piece)
                    if step.pause:
                        time.sleep(step.pause)
                    if step.fail_fast_after == index:
                        if not wait_for_close(2.0):
                            return "did not fail fast inside the frame"
                        break
                if step.opcode == CLOSE:
                    sent_close = True
                poll_frames()
    except Broken:
        pass
    if not sent_close and close is None and case.fail is None:
        try:
            peer.send_raw(b"".join(peer.pieces(Frame(CLOSE, (1000).to_bytes(2, "big")))))
            sent_close = True
        except Broken:
            pass
    if close is None and not wait_for_close(5.0):
        problems.append("no close frame from the endpoint")
    if close is not None and not sent_close:
        try:
            peer.send_raw(b"".join(peer.pieces(Frame(CLOSE, close[:2]))))
        except Broken:
            pass
    if not peer.wait_eof(4.0):
        problems.append("the TCP connection stayed open")
    if received != case.echo:
        problems.append(f"expected {summary(case.echo)}, got {summary(received)}")
    code = int.from_bytes(close[:2], "big") if close and len(close) >= 2 else None
    if close is not None:
        if case.fail is not None:
            if code not in case.fail:
                problems.append(f"closed with {code}, expected one of {sorted(case.fail)}")
        elif case.close is None:
            if code not in (None, 1000):
                problems.append(f"closed with {code}, expected an empty close or 1000")
        elif code not in (case.close, 1000):
            problems.append(f"closed with {code}, expected {case.close}")
    return "; ".join(problems) or None


def summary(frames):
    return [(opcode, len(payload) if len(payload) > 24 else payload) for opcode, payload in frames]


def handshake_as_client(port, target):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    connection = WSConnection(ConnectionType.CLIENT)
    sock.sendall(connection.send(Request(host=f"127.0.0.1:{port}", target=target)))
    while True:
        data = sock.recv(65536)
        if not data:
            raise RuntimeError("closed during the handshake")
        connection.receive_data(data)
        for event in connection.events():
            if isinstance(event, AcceptConnection):
                return sock
            raise RuntimeError(f"handshake refused: {event}")


def handshake_as_server(sock):
    connection = WSConnection(ConnectionType.SERVER)
    while True:
        data = sock.recv(65536)
        if not data:
            raise RuntimeError("closed during the handshake")
        connection.receive_data(data)
        for event in connection.events():
            if isinstance(event, Request):
                sock.sendall(connection.send(AcceptConnection()))
                return event.target
            raise RuntimeError(f"unexpected handshake event: {event}")


def against_server(cases, results):
    with wirepeer.Server("--max-message", str(MAX_MESSAGE), "--ping-interval-ms", "0") as server:
        for case in cases:
            try:
                began = time.monotonic()
                sock = handshake_as_client(server.port, "/ws")
                problem = run_case(case, FramePeer(sock, mask=True), expect_masked=False)
                sock.close()
                if os.environ.get("WS_TIMING"):
                    print(f"server {case.id} {time.monotonic() - began:.3f}")
            except Exception as error:  # noqa: BLE001 - any error fails the case
                problem = f"error: {error}"
            results.append(("server", case, problem))


def against_client(cases, results):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    process = subprocess.Popen(
        [wirepeer.binary(), "client-cases", "--url", f"ws://127.0.0.1:{port}", "--cases",
         str(len(cases)), "--max-message", str(MAX_MESSAGE), "--ping-interval-ms", "0"],
        stdout=subprocess.PIPE, text=True)
    listener.settimeout(10)
    for number, case in enumerate(cases, start=1):
        try:
            sock, _ = listener.accept()
            sock.settimeout(5)
            target = handshake_as_server(sock)
            if target != f"/case/{number}":
                raise RuntimeError(f"the client asked for {target}")
            began = time.monotonic()
            problem = run_case(case, FramePeer(sock, mask=False), expect_masked=True)
            sock.close()
            if os.environ.get("WS_TIMING"):
                print(f"client {case.id} {time.monotonic() - began:.3f}")
        except Exception as error:  # noqa: BLE001
            problem = f"error: {error}"
        results.append(("client", case, problem))
    try:
        output, _ = process.communicate(timeout=10)
        if os.environ.get("WS_TIMING"):
            print(output)
    except subprocess.TimeoutExpired:
        process.kill()
    listener.close()


def main():
    cases = all_cases(MAX_MESSAGE)
    only = sys.argv[1] if len(sys.argv) > 1 else None
    if only:
        wanted = only.split(",")
        cases = [case for case in cases
                 if any(case.id == w or case.id.startswith(w + ".") for w in wanted)]
    results = []
    started = time.monotonic()
    against_server(cases, results)
    against_client(cases, results)
    report = wirepeer.Report("websocket conformance")
    counts = collections.defaultdict(lambda: [0, 0])
    for direction, case, problem in results:
        counts[(direction, case.group)][0 if problem is None else 1] += 1
        report.check(f"{direction} {case.id} ({case.description})", problem is None, problem or "")
    for direction in ("server", "client"):
        for group in GROUP_NAMES:
            passed, failed = counts.get((direction, group), [0, 0])
            if passed or failed:
                print(f"  {direction:6} group {group:>2} {GROUP_NAMES[group]:42} "
                      f"{passed:3} passed, {failed} failed")
    strict = sum(1 for _, case, _ in results if case.group != "L")
    print(f"  Autobahn-style cases per direction: {strict // 2}; "
          f"time {time.monotonic() - started:.1f} s")
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
