"""Blocking as `chat` processes against the real `chat-server` (API.md Part 3): alice blocks bob
on her phone and her tablet learns it; the tablet shows bob's group message as "Blocked message"
while their one-to-one conversation shows his; bob's message to alice is refused with a clear
error until she unblocks him; blocking without the server is a clear error that changes
nothing."""

import os

from harness import Device, Results, Server, remove, sign_in_and_create, temporary_folder


def main():
    results = Results("blocking")
    root = temporary_folder("chat-e2e-blocking-")
    server = Server(os.path.join(root, "server")).start()
    phone = Device(server, "alice", "phone", root)
    tablet = Device(server, "alice", "tablet", root)
    bob = Device(server, "bob", "phone", root)
    carol = Device(server, "carol", "phone", root)
    everyone = [phone, tablet, bob, carol]
    state = {}
    try:
        state["chat"] = sign_in_and_create(everyone, phone, "Bob", "bob")
        state["group"] = sign_in_and_create(everyone, phone, "Trip", "bob,carol")
        bob.json("send", state["group"], "hello all")
        bob.json("send", state["chat"], "hello alice")

        def block_reaches_the_tablet():
            shown = phone.run("block", "bob")
            assert shown.stdout.strip() == "Blocked bob.", shown.stdout
            listed = tablet.json("blocked")
            assert listed == {"userIds": ["bob"]}, listed
            group = tablet.json("messages", state["group"])
            assert [(m["text"], m["senderBlocked"]) for m in group if m["kind"] == "message"] == [
                ("hello all", True)], group
            lines = tablet.run("messages", state["group"]).stdout
            assert "Blocked message" in lines and "hello all" not in lines, lines
            chat = tablet.json("messages", state["chat"])
            assert [(m["text"], m["senderBlocked"]) for m in chat if m["kind"] == "message"] == [
                ("hello alice", False)], chat

        results.check("a block on the phone reaches the tablet, which hides bob in the group only",
                      block_reaches_the_tablet)

        def refused_until_unblocked():
            refused = bob.run("send", state["chat"], "are you there?", check=False)
            assert refused.returncode == 65 and "blocked you" in refused.stdout, (
                refused.returncode, refused.stdout)
            assert bob.json("send", state["group"], "anyone?")["state"] == "sent"
            tablet.run("unblock", "bob")
            phone.run("sync")
            assert phone.json("blocked") == {"userIds": []}
            assert bob.json("send", state["chat"], "now?")["state"] == "sent"

        results.check("bob's message to alice is refused, clearly, until she unblocks him",
                      refused_until_unblocked)

        def offline_changes_nothing():
            server.stop()
            failed = phone.run("block", "carol", check=False)
            assert failed.returncode == 75 and "cannot be reached" in failed.stderr, (
                failed.returncode, failed.stderr)
            assert phone.json("blocked") == {"userIds": []}
            server.start()

        results.check("blocking without the server is a clear error that changes nothing",
                      offline_changes_nothing)
    finally:
        server.stop()
        remove(root)
    return results.finish()


if __name__ == "__main__":
    raise SystemExit(main())
