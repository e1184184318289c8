"""Forwarding as `chat` processes against the real `chat-server` and its built-in object store
(API.md Part 3): alice sends a photo to bob; bob forwards it, while the server is down, into
his conversation with carol; after alice deletes the original, carol's device downloads the
forwarded photo and its sha256 is alice's; once bob deletes the forward too, nobody may
download it."""

import hashlib
import os

from harness import Device, Results, Server, free_port, remove, sign_in_and_create, temporary_folder
from test_media import png, write


def sha256_of(path):
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def held(device, chat):
    return {m["clientMessageId"]: m for m in device.messages(chat)}


def main():
    results = Results("forwarding")
    root = temporary_folder("chat-e2e-forwarding-")
    server = Server(os.path.join(root, "server"),
                    extra=["--object-store-port", str(free_port())]).start()
    alice = Device(server, "alice", "phone", root)
    bob = Device(server, "bob", "phone", root)
    carol = Device(server, "carol", "phone", root)
    state = {}
    try:
        state["ab"] = sign_in_and_create([alice, bob, carol], alice, "Photos", "bob")
        state["bc"] = sign_in_and_create([alice, bob, carol], bob, "Friends", "carol")
        photo_path = write(os.path.join(root, "view.png"), png(900, 600))
        sent = alice.json("send", state["ab"], "the view", "--photo", photo_path)
        assert sent["state"] == "sent", sent
        state["photo"] = sent["clientMessageId"]
        state["sha"] = sha256_of(held(alice, state["ab"])[state["photo"]]["media"]["localPath"])
        bob.run("sync")

        def forward_offline():
            server.stop()
            queued = bob.json("forward", state["ab"], state["photo"], state["bc"])
            assert queued["state"] == "queued", queued
            state["forward"] = queued["clientMessageId"]
            mine = held(bob, state["bc"])[state["forward"]]
            assert mine["forwarded"] and mine["text"] == "the view", mine
            assert mine["media"]["kind"] == "image", mine
            server.start()
            bob.run("sync")
            assert held(bob, state["bc"])[state["forward"]]["send"] == "sent"

        results.check("bob forwards the photo while the server is down; it goes at the next sync",
                      forward_offline)

        def downloads_after_the_original_is_deleted():
            alice.run("delete", state["ab"], state["photo"])
            carol.run("sync")
            shown = held(carol, state["bc"])[state["forward"]]
            assert shown["forwarded"] and shown["senderId"] == "bob", shown
            assert "alice" not in str(shown) and state["ab"] not in str(shown), shown
            path = carol.run("download", state["bc"], state["forward"]).stdout.strip()
            assert sha256_of(path) == state["sha"], "the forwarded photo's bytes differ"

        results.check("after alice deletes the original, carol downloads the forward with its sha256",
                      downloads_after_the_original_is_deleted)

        def gone_after_both():
            bob.run("delete", state["bc"], state["forward"])
            dave = Device(server, "carol", "tablet", root)
            dave.run("login")
            dave.run("sync")
            failed = dave.run("download", state["bc"], state["forward"], check=False)
            assert failed.returncode != 0, failed.stdout

        results.check("once the forward is deleted too, the photo cannot be downloaded",
                      gone_after_both)
    finally:
        server.stop()
        remove(root)
    return results.finish()


if __name__ == "__main__":
    raise SystemExit(main())
