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
