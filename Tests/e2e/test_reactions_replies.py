"""Reactions and replies as `chat` processes against the real `chat-server` (API.md Part 3):
alice reacts and replies while the server is down (a toggle and its undo send nothing), her
`chat sync` is killed (SIGKILL) once mid-way, and after the next one bob has each reaction once
and the reply with its quote; an edit of the answered message shows in the quote on both
devices; bad input is a clear error."""

import os
import random
import signal
import subprocess
import time

from harness import Device, Results, Server, remove, sign_in_and_create, temporary_folder


def find(messages, message_id):
    return next(m for m in messages if m["clientMessageId"] == message_id)


def main():
    results = Results("reactions and replies")
    seed = int(os.environ.get("CHAT_SEED", str(int(time.time()))))
    rng = random.Random(seed)
    print(f"  seed {seed}", flush=True)
    root = temporary_folder("chat-e2e-part3-")
    server = Server(os.path.join(root, "server")).start()
    alice = Device(server, "alice", "phone", root)
    bob = Device(server, "bob", "phone", root)
    state = {}
    try:
        chat = state["chat"] = sign_in_and_create([alice, bob], alice, "Lunch", "bob")
        state["lunch"] = bob.json("send", chat, "lunch at noon?")["clientMessageId"]
        alice.run("sync")

        def offline():
            server.stop()
            lunch = state["lunch"]
            assert alice.json("react", chat, lunch, "👍")["state"] == "queued"
            reply = alice.json("reply", chat, lunch, "yes, at the usual place")
            assert reply["state"] == "queued", reply
            state["reply"] = reply["clientMessageId"]
            # A toggle and its undo while unsent: nothing waits for them.
            alice.json("react", chat, lunch, "🎉")
            alice.json("react", chat, lunch, "🎉", "--remove")
            entries = alice.json("outbox")
            assert [(e["kind"], e["text"]) for e in entries] == [
                ("reaction", "👍"), ("message", "yes, at the usual place")], entries
            shown = alice.messages(chat)
            assert find(shown, lunch)["reactions"] == [
                {"emoji": "👍", "count": 1, "mine": True}], shown
            quote = find(shown, state["reply"])["replyTo"]
            assert quote["clientMessageId"] == lunch, quote
            assert quote["quote"]["senderId"] == "bob", quote
            assert quote["quote"]["text"] == "lunch at noon?", quote

        results.check("offline, a reaction and a reply show at once and wait in the outbox",
                      offline)

        def killed_then_synced():
            server.start()
            process = subprocess.Popen(
                alice.args("sync"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.0, 0.3))  # a random moment to kill at, not a wait
            process.send_signal(signal.SIGKILL)
            process.wait()
            alice.run("sync")
            assert alice.json("outbox") == []
            bob.run("sync")
            shown = bob.messages(chat)
            assert find(shown, state["lunch"])["reactions"] == [
                {"emoji": "👍", "count": 1, "mine": False}], shown
            reply = find(shown, state["reply"])
            assert reply["text"] == "yes, at the usual place", reply
            assert reply["replyTo"]["quote"]["text"] == "lunch at noon?", reply
            assert [m["text"] for m in shown] == ["lunch at noon?", "yes, at the usual place"]

        results.check("after a sync killed mid-way and another, bob has the reaction once "
                      "and the reply with its quote", killed_then_synced)

        def edited_quote():
            bob.run("edit", chat, state["lunch"], "lunch at one?")
            bob.run("react", chat, state["reply"], "❤️")
            alice.run("sync")
            for device in (alice, bob):
                shown = device.messages(chat)
                reply = find(shown, state["reply"])
                assert reply["replyTo"]["quote"]["text"] == "lunch at one?", (device.user, reply)
                assert [r["emoji"] for r in reply["reactions"]] == ["❤️"], reply
            mine = find(alice.messages(chat), state["reply"])["reactions"][0]
            assert mine == {"emoji": "❤️", "count": 1, "mine": False}, mine

        results.check("an edit of the answered message shows in the quote on both devices",
                      edited_quote)

        def bad_input():
            lunch = state["lunch"]
            result = alice.run("react", chat, lunch, "ok", check=False)
            assert result.returncode == 65 and "one emoji" in result.stderr, result.stderr
            result = alice.run("react", chat, lunch, check=False)
            assert result.returncode == 64, result.stderr
            unknown = "01900000-0000-7000-8000-00000000beef"
            result = alice.run("reply", chat, unknown, "what?", check=False)
            assert result.returncode == 66 and "no message" in result.stderr, result.stderr
            result = alice.run("reply", chat, "not-an-id", "what?", check=False)
            assert result.returncode == 64 and "clientMessageId" in result.stderr, result.stderr

        results.check("bad input is a clear error", bad_input)
    finally:
        server.stop()
        remove(root)
    return results.finish()


if __name__ == "__main__":
    raise SystemExit(main())
