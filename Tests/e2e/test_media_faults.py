"""Uploads and downloads through a proxy that cuts their connections at random byte positions:
`chat-server` hands out presigned URLs on the proxy's address (`--object-store-public-url`), so
every `PUT` of a part and every ranged `GET` of a photo, a 20 MB document and four small ones
crosses it. Each
cut forwards part of a request (or all of it and part of its response) and ends the connection
with a FIN or a reset. No `chat` process may crash (exit status 0 or 75, never a signal); once
the proxy stops cutting and the devices sync, each media message is on the receiver exactly
once, its downloaded bytes match the sender's sha256, and the store's part log shows no upload
that started over (a part whose response was cut is found by asking the server, not sent again).
CHAT_MEDIA_CUTS sets how many cuts (16) and CHAT_SEED the positions."""

import hashlib
import os
import random

from fault_proxy import Cut, FaultProxy
from harness import Device, Results, Server, free_port, remove, temporary_folder
from test_media import part_log, png, restarted, sha256, write

CUTS = int(os.environ.get("CHAT_MEDIA_CUTS", "16"))


def exit_ok(result, what):
    assert result.returncode in (0, 75), f"{what} exited {result.returncode}: {result.stderr}"


def main():
    results = Results("media faults")
    seed = int(os.environ.get("CHAT_SEED", "14"))
    rng = random.Random(seed)
    root = temporary_folder("chat-e2e-media-faults-")
    log_path = os.path.join(root, "server.log")
    store_port = free_port()
    proxy = FaultProxy(store_port, wants_cut=lambda request: request[:4] in (b"PUT ", b"GET "))
    server = Server(
        os.path.join(root, "server"),
        extra=["--object-store-port", str(store_port), "--object-store-public-url", proxy.url,
               "--log", log_path]).start()
    alice = Device(server, "alice", "phone", root)
    bob = Device(server, "bob", "phone", root)
    # Request cuts anywhere in a part of up to 8 MiB (head included), response cuts in the
    # store's short answers.
    plan = [Cut("request", rng.randrange(0, 8 * 1024 * 1024), rng.choice(["FIN", "RST"]))
            if rng.random() < 0.6 else
            Cut("response", rng.randrange(0, 300), rng.choice(["FIN", "RST"]))
            for _ in range(CUTS)]
    print(f"  seed {seed}, {CUTS} cuts: "
          + ", ".join(str(cut) for cut in plan[:4]) + ", …", flush=True)
    try:
        for device in (alice, bob):
            device.run("login")
        chat = alice.json("create", "--title", "Faults", "--members", "bob")["id"]
        photo = write(os.path.join(root, "photo.png"), png(1700, 1100))
        document_bytes = rng.randbytes(20_000_000)
        document = write(os.path.join(root, "scan.pdf"), document_bytes)
        small = [(write(os.path.join(root, f"note{n}.txt"), rng.randbytes(100_000)), "--file")
                 for n in range(4)]
        proxy.start_cutting(plan)
        sent = []

        def sends_survive():
            for path, flag in ((photo, "--photo"), (document, "--file"), *small):
                result = alice.run("send", chat, "--json", flag, path, check=False)
                exit_ok(result, "send")
            for _ in range(3 * CUTS):
                result = alice.run("sync", check=False)
                exit_ok(result, "sync")
                if result.returncode == 0:
                    break
            used = proxy.next_cut
            print(f"    {used} of the {CUTS} cuts struck uploads", flush=True)
            assert used > 0, "no upload was cut"
            proxy.stop_cutting()
            for _ in range(3):
                if alice.run("sync", check=False).returncode == 0:
                    break
            mine = [m for m in alice.messages(chat) if m.get("media")]
            assert [m["send"] for m in mine] == ["sent"] * 6, [m["send"] for m in mine]
            sent.extend(m["clientMessageId"] for m in mine[:2])

        results.check("sends and syncs through the cuts end with all six sent", sends_survive)

        def downloads_survive():
            bob.run("sync")
            theirs = [m for m in bob.messages(chat) if m.get("media")]
            mine = [m["clientMessageId"] for m in alice.messages(chat) if m.get("media")]
            assert [m["clientMessageId"] for m in theirs] == mine, "each once, in order"
            theirs = theirs[:2]
            proxy.start_cutting([Cut("response", rng.randrange(300, 4_000_000),
                                     rng.choice(["FIN", "RST"])) for _ in range(4)])
            paths = {}
            for message in theirs:
                for _ in range(8):
                    result = bob.run("download", chat, message["clientMessageId"], check=False)
                    exit_ok(result, "download")
                    if result.returncode == 0:
                        paths[message["clientMessageId"]] = result.stdout.strip()
                        break
            proxy.stop_cutting()
            assert len(paths) == 2, "both downloaded"
            mine = {m["clientMessageId"]: m for m in alice.messages(chat)}
            photo_path = mine[sent[0]]["media"]["localPath"]
            assert sha256(paths[sent[0]]) == sha256(photo_path), "the photo differs"
            assert hashlib.sha256(document_bytes).hexdigest() == sha256(paths[sent[1]])

        results.check("downloads cut mid-response resume and match the sha256", downloads_survive)

        def no_upload_restarted():
            stored = part_log(log_path)
            again = restarted(stored)
            assert not again, f"uploads that sent stored parts again: {again}"
            in_flight = sum(1 for count in stored.values() if count > 1)
            print(f"    {len(stored)} parts stored; {in_flight} twice (in flight at a cut)",
                  flush=True)

        results.check("the store's part log: no upload sent stored parts again",
                      no_upload_restarted)
    finally:
        server.stop()
        proxy.close()
        remove(root)
    results.finish()


if __name__ == "__main__":
    main()
