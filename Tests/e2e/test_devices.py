"""Two devices of one user and a second user, as separate `chat` processes with their own
databases, against the real `chat-server`: every message exactly once, the same order on every
database and on the server, also across a server outage."""

import json
import os

from harness import (Device, Results, Server, remove, same_order_everywhere, sign_in_and_create,
                     temporary_folder)


def main():
    results = Results("devices")
    root = temporary_folder("chat-e2e-devices-")
    server = Server(os.path.join(root, "server")).start()
    phone = Device(server, "alice", "phone", root)
    tablet = Device(server, "alice", "ipad", root)
    bob = Device(server, "bob", "phone", root)
    devices = [phone, tablet, bob]
    state = {}
    try:

        def sign_in():
            state["chat"] = sign_in_and_create(devices, phone, "Trip", "bob")

        results.check("three devices sign in; one creates a conversation", sign_in)
        chat = state.get("chat", "")

        def online_sends():
            for round in range(3):
                for device in devices:
                    sent = device.json("send", chat, f"{device.user}/{device.device} #{round}")
                    assert sent["state"] == "sent", sent

        results.check("sends from all three while online are accepted", online_sends)

        def unsynced_conversation():
            carol = Device(server, "carol", "phone", root)
            carol.run("login")
            group = phone.json("create", "--title", "New", "--members", "bob,carol")["id"]
            sent = carol.json("send", group, "first words in a group I never synced")
            assert sent["state"] == "sent", sent
            unknown = carol.run("send", "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a09", "x", check=False)
            assert unknown.returncode == 66 and "not found" in unknown.stderr, unknown.stderr

        results.check("a send to a conversation the device never synced syncs, then sends; an "
                      "unknown one is not found", unsynced_conversation)

        def outage():
            server.stop()
            queued = tablet.json("send", chat, "written while the server was down")
            assert queued["state"] == "queued", queued
            state["queued"] = queued["clientMessageId"]
            code = tablet.run("sync", check=False).returncode
            assert code == 75, f"sync exited {code}, expected 75 (server unreachable)"
            server.start()
            report = tablet.json("sync")
            assert report["outboxRemaining"] == 0, report

        results.check("a send while the server is down is delivered after a restart", outage)

        def same_everywhere():
            views = same_order_everywhere(devices, chat)
            ids = [m["clientMessageId"] for m in views[0]]
            assert len(ids) == 10, f"{len(ids)} messages"
            assert state["queued"] in ids
            assert all(m["send"] == "sent" for view in views for m in view)

        results.check("every message exactly once, same order on all three", same_everywhere)

        def edits_and_deletes():
            mine = [m for m in phone.messages(chat) if m["senderId"] == "alice"]
            edited_id, deleted_id = mine[0]["clientMessageId"], mine[1]["clientMessageId"]
            edited = phone.json("edit", chat, edited_id, "edited on the phone")
            assert edited["state"] == "sent" and edited["message"].get("editedAt"), edited
            server.stop()
            # Written, edited and deleted while the server is down: it never reaches it.
            unsent = tablet.json("send", chat, "a draft about the zqxnineoneplan")["clientMessageId"]
            changed = tablet.json("edit", chat, unsent, "a draft about the zqxnineeightplan")
            assert changed["message"]["text"] == "a draft about the zqxnineeightplan", changed
            assert changed["message"].get("editedAt") is None, "changed before it was ever sent"
            gone = tablet.json("delete", chat, unsent)
            assert gone["message"] is None, gone
            # A message the server holds: a tombstone here at once, queued for the server.
            deleted_text = mine[1]["text"]
            queued = tablet.json("delete", chat, deleted_id)
            assert queued["state"] == "queued" and queued["message"]["deleted"], queued
            server.start()
            assert tablet.json("sync")["outboxRemaining"] == 0
            for device in devices:
                device.run("sync")
            for device in devices:
                view = {m["clientMessageId"]: m for m in device.messages(chat)}
                label = f"{device.user}/{device.device}"
                assert view[edited_id]["text"] == "edited on the phone", label
                assert view[edited_id].get("editedAt"), label
                assert view[deleted_id]["deleted"] and view[deleted_id]["text"] == "", label
                assert unsent not in view, label
                words = deleted_text.replace("/", " ").replace("#", "")
                assert not device.json("search", words)["hits"], f"{label} still finds {words!r}"
            # No database file, the server's or a device's, holds the deleted or unsent words
            # (words no id or key can contain by chance: hex digits alone could).
            server.wait_for_erasure()
            for folder, _, files in os.walk(root):
                for name in files:
                    with open(os.path.join(folder, name), "rb") as file:
                        data = file.read()
                    for words in (deleted_text, "zqxnineoneplan", "zqxnineeightplan"):
                        assert words.encode() not in data, f"{name} still holds {words!r}"

        results.check("edits and deletes, online and while the server is down, agree everywhere "
                      "and leave no deleted text in any file", edits_and_deletes)

        def groups_that_change():
            added = phone.json("members", chat, "--add", "carol")
            assert added["memberIds"] == ["alice", "bob", "carol"], added
            renamed = tablet.json("title", chat, "Trip to the coast")
            assert renamed["title"] == "Trip to the coast", renamed
            left = bob.json("leave", chat)
            assert left["membership"] == "left" and "bob" not in left["memberIds"], left
            refused = bob.run("send", chat, "am I still here?", check=False)
            assert refused.returncode == 65 and "you left this conversation" in refused.stderr, \
                refused.stderr
            phone.json("send", chat, "after bob left")
            for device in devices:
                device.run("sync")
            for device in (phone, tablet):
                listed = {c["id"]: c for c in device.json("conversations")}[chat]
                assert listed["title"] == "Trip to the coast", listed
                assert listed["memberIds"] == ["alice", "carol"], listed
            texts = [m["text"] for m in bob.messages(chat)]
            assert "after bob left" not in texts, "bob got a message after he left"
            last = bob.messages(chat)[-1]
            assert last["kind"] == "members" and last["removed"] == ["bob"], last
            assert "after bob left" in [m["text"] for m in tablet.messages(chat)]

        results.check("members added, a title, a member who leaves reads what he saw and no "
                      "more", groups_that_change)

        if server.tls:
            def untrusted():
                # It trusts the system's store only, where the run's CA is not.
                stranger = Device(server, "carol", "phone", root, trusts_server=False)
                result = stranger.run("login", check=False)
                assert result.returncode == 76, f"exit {result.returncode}: {result.stderr}"
                assert "cannot trust the server: TLS: the peer's certificate is not trusted" in \
                    result.stderr, result.stderr

            results.check("a device that does not trust the CA gets exit 76 and the reason",
                          untrusted)
    finally:
        server.stop()
        remove(root)
    results.finish()


if __name__ == "__main__":
    main()
