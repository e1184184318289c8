"""A photo and a PDF from one `chat` to another through the real `chat-server` and its built-in
S3-compatible store; then `chat send --file` of a 40 MB document killed with SIGKILL at random
moments, and `chat sync` killed too, until the outbox is empty. Afterwards every media message
exists exactly once on the server and at the receiver, the bytes the receiver downloads match
the sender's sha256, and the store's part log (the server's `object_store.request` lines) shows
that no upload started over: a resumed upload sent only what the store did not have (at most
the one part in flight when its process died, which the store was still writing)."""

import hashlib
import json
import os
import random
import signal
import struct
import subprocess
import time
import zlib

from harness import Device, Results, Server, free_port, remove, temporary_folder, wait_for

KILLS = int(os.environ.get("CHAT_MEDIA_KILLS", "14"))
BIG = 40 * 1024 * 1024


def png(width, height):
    """An RGB PNG of a colour gradient, made here."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            rows += bytes((x * 255 // width, y * 255 // height, (x + y) % 256))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def write(path, data):
    with open(path, "wb") as file:
        file.write(data)
    return path


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for piece in iter(lambda: file.read(1 << 20), b""):
            digest.update(piece)
    return digest.hexdigest()


def part_log(path):
    """(upload, part) → how many times the store answered 200 to its PUT."""
    stored = {}
    with open(path, encoding="utf-8", errors="replace") as log:
        for line in log:
            if "event=object_store.request" not in line:
                continue
            fields = dict(item.split("=", 1) for item in line.split() if "=" in item)
            if fields.get("method") == "PUT" and fields.get("status") == "200" and "part" in fields:
                key = (fields["upload"], int(fields["part"]))
                stored[key] = stored.get(key, 0) + 1
    return stored


def restarted(stored):
    """The uploads that sent parts the store already held again: more than one of their parts
    stored twice. One part stored twice is the part in flight when its process was killed (or
    its connection cut) after the store had the whole body: the store was still writing it when
    the next process asked which parts it holds. An upload that starts over from the first part
    stores every part before the cut again."""
    again = {}
    for (upload, part), count in stored.items():
        if count > 1:
            again.setdefault(upload, []).append(part)
    return {upload: sorted(parts) for upload, parts in again.items() if len(parts) > 1}


def main():
    results = Results("media")
    seed = int(os.environ.get("CHAT_SEED", str(int(time.time()))))
    rng = random.Random(seed)
    print(f"  seed {seed}, {KILLS} kills of a 40 MB send", flush=True)
    root = temporary_folder("chat-e2e-media-")
    log_path = os.path.join(root, "server.log")
    server = Server(
        os.path.join(root, "server"),
        extra=["--object-store-port", str(free_port()), "--log", log_path]).start()
    alice = Device(server, "alice", "phone", root)
    bob = Device(server, "bob", "phone", root)
    try:
        for device in (alice, bob):
            device.run("login")
        chat = alice.json("create", "--title", "Media", "--members", "bob")["id"]
        photo_path = write(os.path.join(root, "view.png"), png(1800, 1200))
        pdf_bytes = b"%PDF-1.4\n" + rng.randbytes(3_000_000) + b"\n%%EOF\n"
        pdf_path = write(os.path.join(root, "report.pdf"), pdf_bytes)

        sent = {}

        def send_photo_and_pdf():
            photo = alice.json("send", chat, "the view", "--photo", photo_path)
            pdf = alice.json("send", chat, "--file", pdf_path)
            assert photo["state"] == "sent" and pdf["state"] == "sent", (photo, pdf)
            sent["photo"], sent["pdf"] = photo["clientMessageId"], pdf["clientMessageId"]

        results.check("alice sends a photo and a PDF", send_photo_and_pdf)

        def bob_gets_both():
            bob.run("sync")
            held = {m["clientMessageId"]: m for m in bob.messages(chat)}
            photo, pdf = held[sent["photo"]], held[sent["pdf"]]
            assert photo["text"] == "the view" and photo["media"]["kind"] == "image", photo
            assert photo["media"]["width"] == 1600 and photo["media"]["height"] == 1067, photo
            assert 0 < photo["media"]["thumbnailBytes"] <= 10_240, photo
            assert photo["media"].get("localPath") is None, photo
            assert pdf["media"]["fileName"] == "report.pdf", pdf
            assert pdf["media"]["contentType"] == "application/pdf", pdf
            out = os.path.join(root, "bob-report.pdf")
            bob.run("download", chat, sent["pdf"], "--out", out)
            assert open(out, "rb").read() == pdf_bytes, "the PDF's bytes differ"
            mine = {m["clientMessageId"]: m for m in alice.messages(chat)}
            alices_photo = mine[sent["photo"]]["media"]["localPath"]
            bobs_photo = bob.run("download", chat, sent["photo"]).stdout.strip()
            assert open(bobs_photo, "rb").read() == open(alices_photo, "rb").read()
            assert os.stat(bobs_photo).st_mode & 0o777 == 0o600

        results.check("bob gets both, thumbnail inline, bytes on demand", bob_gets_both)

        def setting_kept():
            assert bob.json("auto-download")["autoDownload"] == "never"
            assert bob.json("auto-download", "always")["autoDownload"] == "always"
            assert bob.json("auto-download")["autoDownload"] == "always"
            refused = bob.run("auto-download", "sometimes", check=False)
            assert refused.returncode == 64 and "always, unmetered, never" in refused.stderr

        results.check("the automatic-download setting is kept on the device", setting_kept)

        big_path = write(os.path.join(root, "big.bin"), rng.randbytes(BIG))
        big_sha = sha256(big_path)
        landed = {"send": 0, "sync": 0}

        def killed_sends():
            for round_ in range(KILLS):
                command = ("send", chat, f"big {round_}", "--file", big_path) if round_ % 2 == 0 \
                    else ("sync",)
                process = subprocess.Popen(
                    alice.args(*command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    process.wait(timeout=rng.uniform(0.1, 1.2))
                except subprocess.TimeoutExpired:
                    process.send_signal(signal.SIGKILL)
                    process.wait()
                    landed[command[0]] += 1
            for _ in range(5):
                if alice.run("sync", check=False).returncode == 0:
                    return
            raise AssertionError("the outbox did not empty after five syncs")

        results.check(f"kill -9 of sends and syncs of a 40 MB file ({KILLS} tries)", killed_sends)
        print(f"    {landed['send']} sends and {landed['sync']} syncs killed mid-way", flush=True)

        def each_once_and_whole():
            mine = [m for m in alice.messages(chat) if m["text"].startswith("big ")]
            assert all(m["send"] == "sent" for m in mine), [
                (m["send"], m.get("failure")) if m["send"] != "sent" else m["send"] for m in mine]
            bob.run("sync")
            theirs = [m for m in bob.messages(chat) if m["text"].startswith("big ")]
            ids = [m["clientMessageId"] for m in theirs]
            assert len(ids) == len(set(ids)), "a media message arrived twice"
            assert sorted(ids) == sorted(m["clientMessageId"] for m in mine), "sets differ"
            for message in theirs:
                path = bob.run("download", chat, message["clientMessageId"]).stdout.strip()
                assert sha256(path) == big_sha, "downloaded bytes differ from the sender's"
            print(f"    {len(ids)} 40 MB messages, each once, each sha256 matching", flush=True)

        results.check("each media message once, its bytes whole", each_once_and_whole)

        def no_upload_restarted():
            # The server writes its log on a thread of its own: the lines of the last parts
            # may land a moment after the sync that sent them returned.
            stored = wait_for("the store's part log", lambda: part_log(log_path))
            again = restarted(stored)
            assert not again, f"uploads that sent stored parts again: {again}"
            uploads = {upload for upload, _ in stored}
            in_flight = sum(1 for count in stored.values() if count > 1)
            print(f"    {len(uploads)} multipart uploads, {len(stored)} parts; {in_flight} part(s) "
                  "stored twice, each the one in flight at a kill", flush=True)

        results.check("the store's part log: no upload sent stored parts again",
                      no_upload_restarted)
    finally:
        server.stop()
        remove(root)
    results.finish()


if __name__ == "__main__":
    main()
