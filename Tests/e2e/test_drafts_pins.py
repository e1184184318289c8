"""Drafts and pins as `chat` processes against the real `chat-server` (API.md Part 3): alice
types a draft on her phone while the server is down, and her tablet shows it after both sync;
sending a message from the tablet clears it on the phone; a pin made offline reaches bob with
the message's text, and an 11th pin is a clear error."""

import os

from harness import Device, Results, Server, remove, sign_in_and_create, temporary_folder


def listed(device, chat):
    return next(c for c in device.json("conversations") if c["id"] == chat)


def main():
    results = Results("drafts and pins")
    root = temporary_folder("chat-e2e-drafts-")
    server = Server(os.path.join(root, "server")).start()
    phone = Device(server, "alice", "phone", root)
    tablet = Device(server, "alice", "tablet", root)
    bob = Device(server, "bob", "phone", root)
    state = {}
    try:
        chat = state["chat"] = sign_in_and_create([phone, tablet, bob], phone, "Trip", "bob")
        state["lunch"] = bob.json("send", chat, "lunch at noon?")["clientMessageId"]
        for device in (phone, tablet):
            device.run("sync")

        def draft_offline():
            server.stop()
            saved = phone.json("draft", chat, "yes, at the usual pl", "--reply-to", state["lunch"])
            assert saved["state"] == "queued", saved
            shown = phone.run("conversations", check=False)
            assert shown.returncode == 0, shown.stderr
            server.start()
            phone.run("sync")
            tablet.run("sync")
            draft = listed(tablet, chat).get("draft")
            assert draft == {"text": "yes, at the usual pl", "replyTo": state["lunch"]}, draft
            assert listed(bob, chat).get("draft") is None

        results.check("a draft typed offline on the phone shows on the tablet after both sync",
                      draft_offline)

        def cleared_by_a_send():
            tablet.json("reply", chat, state["lunch"], "yes, at the usual place")
            phone.run("sync")
            assert listed(phone, chat).get("draft") is None, listed(phone, chat)

        results.check("a message sent from the tablet clears the draft on the phone",
                      cleared_by_a_send)

        def pins():
            server.stop()
            pinned = phone.json("pin", chat, state["lunch"])
            assert pinned["state"] == "queued", pinned
            assert [p["clientMessageId"] for p in listed(phone, chat)["pinned"]] == [state["lunch"]]
            server.start()
            phone.run("sync")
            bob.run("sync")
            shown = listed(bob, chat)["pinned"]
            assert [(p["clientMessageId"], p.get("text")) for p in shown] == [
                (state["lunch"], "lunch at noon?")], shown
            for index in range(10):
                key = bob.json("send", chat, f"note {index}")["clientMessageId"]
                if index < 9:
                    bob.json("pin", chat, key)
            phone.run("sync")
            eleventh = phone.run("pin", chat, key, check=False)
            assert eleventh.returncode == 65 and "at most 10" in eleventh.stderr, eleventh.stderr

        results.check("a pin made offline reaches bob with its text; an 11th is a clear error",
                      pins)
    finally:
        server.stop()
        remove(root)
    return results.finish()


if __name__ == "__main__":
    raise SystemExit(main())
