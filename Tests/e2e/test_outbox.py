"""The outbox you can see, as `chat` processes against the real `chat-server`: a message written
while the server is down is listed with its attempts and last error, survives the process, is
sent by `chat outbox retry --all` once the server is back; one discarded never reaches it; bad
input is a clear error."""

import os

from harness import Device, Results, Server, remove, sign_in_and_create, temporary_folder


def main():
    results = Results("outbox")
    root = temporary_folder("chat-e2e-outbox-")
    server = Server(os.path.join(root, "server")).start()
    alice = Device(server, "alice", "phone", root)
    bob = Device(server, "bob", "phone", root)
    state = {}
    try:
        chat = state["chat"] = sign_in_and_create([alice, bob], alice, "Outbox", "bob")

        def while_down():
            server.stop()
            kept = alice.json("send", chat, "kept for later")
            dropped = alice.json("send", chat, "never mind")
            assert kept["state"] == dropped["state"] == "queued", (kept, dropped)
            state["kept"], state["dropped"] = kept["clientMessageId"], dropped["clientMessageId"]
            entries = alice.json("outbox")
            assert [e["clientMessageId"] for e in entries] == [state["kept"], state["dropped"]]
            assert entries[0]["state"] == "waiting" and entries[0]["title"] == "Outbox", entries
            assert entries[0]["attempts"] >= 1 and entries[0]["lastError"] == "offline", entries
            assert "2 message(s) waiting" in alice.run("outbox").stdout

        results.check("messages written while the server is down are listed with attempts",
                      while_down)

        def discard():
            left = alice.json("outbox", "discard", state["dropped"])
            assert [e["clientMessageId"] for e in left] == [state["kept"]], left

        results.check("chat outbox discard removes one", discard)

        def bad_input():
            for args, words in [(("retry",), "retry takes a clientMessageId or --all"),
                                (("discard", "nope"), "is not a clientMessageId"),
                                (("send",), "unknown action 'send'")]:
                result = alice.run("outbox", *args, check=False)
                assert result.returncode == 64 and words in result.stderr, (args, result.stderr)

        results.check("bad actions and ids are refused with a clear error", bad_input)

        def retry_all():
            server.start()
            assert alice.json("outbox", "retry", "--all") == []
            bob.run("sync")
            texts = [m["text"] for m in bob.messages(chat)]
            assert texts == ["kept for later"], texts

        results.check("once the server is back, retry --all sends what waits; the discarded "
                      "one never arrives", retry_all)
    finally:
        server.stop()
        remove(root)
    return results.finish()


if __name__ == "__main__":
    raise SystemExit(main())
