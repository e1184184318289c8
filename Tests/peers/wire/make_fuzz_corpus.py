"""Writes the fuzzers' seed corpus (fuzz/corpus/) from the robustness and conformance cases.

    python Tests/peers/wire/make_fuzz_corpus.py

The first byte of each input is the harness's configuration byte (see fuzz/*.swift)."""

import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from http_robustness import CASES  # noqa: E402
from ws_cases import Frame, all_cases  # noqa: E402
from ws_conformance import FramePeer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


# Responses for the response parser's fuzzer: every framing, and the malformed cases of
# Tests/WireTests/HTTPResponseParserTests.swift in spirit.
RESPONSES = [
    b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello",
    b"HTTP/1.1 201 Created\r\nDate: Wed, 02 Dec 2026 00:22:00 GMT\r\n"
    b"Content-Type: application/json; charset=utf-8\r\nContent-Length: 11\r\n\r\n{\"a\":\"bc\"}\n",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value\r\nhello\r\n"
    b"1\r\n \r\nA \r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end",
    b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
    b"HTTP/1.1 304 Not Modified\r\nContent-Length: 3\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nokEXTRA",
    b"HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nA: b\r\n folded\r\n\r\n",
    b"HTTP/1.1 101 Switching Protocols\r\n\r\n",
]


def write(folder, data):
    os.makedirs(folder, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(folder, name), "wb") as file:
        file.write(data)


def main():
    http = os.path.join(ROOT, "fuzz", "corpus", "http")
    for _, raw, _ in CASES:
        write(http, b"\x0f" + raw[:4096])
    write(http, b"\x0fGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    write(http, b"\x0fPOST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                b"5;a=b\r\nhello\r\n0\r\nT: 1\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
    response = os.path.join(ROOT, "fuzz", "corpus", "http-response")
    for raw in RESPONSES:
        for config in (0x0f, 0x4f, 0x8f):  # pieces of 16; HEAD; small limits
            write(response, bytes([config]) + raw)
    websocket = os.path.join(ROOT, "fuzz", "corpus", "websocket")
    for case in all_cases(300_000):
        for role_byte, mask in ((0x00, True), (0x01, False)):
            peer = FramePeer(None, mask=mask)
            data = b"".join(b"".join(peer.pieces(step)) for step in case.steps
                            if isinstance(step, Frame) and len(step.payload) <= 2048)
            if data and len(data) <= 4096:
                write(websocket, bytes([role_byte | 0x3c]) + data)


if __name__ == "__main__":
    main()
