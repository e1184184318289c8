"""A device that keeps a window of its history, as `chat` processes against the real
`chat-server`: `chat retention` and `chat sync` prune what the window no longer keeps (the
newest and unread stay), the local search says older messages may be on the server, `chat search
--on-server` finds them there in any script, and `chat doctor` reports the database as sound."""

import os
import sqlite3

from harness import Device, Results, Server, remove, sign_in_and_create, temporary_folder


def main():
    results = Results("retention")
    root = temporary_folder("chat-e2e-retention-")
    server = Server(os.path.join(root, "server")).start()
    alice = Device(server, "alice", "phone", root)
    bob = Device(server, "bob", "phone", root)
    state = {}
    try:

        def history():
            chat = state["chat"] = sign_in_and_create([alice, bob], bob, "Years", "alice")
            bob.run("send", chat, "東京で会いましょう")
            for number in range(2, 13):
                bob.run("send", chat, f"update number {number}")
            alice.run("sync")
            alice.run("read", chat)
            held = alice.messages(chat)
            assert [m["sequence"] for m in held] == list(range(1, 13)), held

        results.check("alice holds twelve messages of bob's, read", history)
        chat = state.get("chat", "")

        def bad_setting():
            result = alice.run("retention", "--messages", "0", check=False)
            assert result.returncode == 64, result
            assert "--messages must be 1 or more" in result.stderr, result.stderr
            assert alice.json("retention")["messages"] is None

        results.check("a window of 0 is refused with a clear error; nothing changes", bad_setting)

        def prune():
            setting = alice.json("retention", "--messages", "3")
            assert setting["messages"] == 3, setting
            report = alice.json("sync")
            assert report["prunedItems"] == 9, report
            assert [m["sequence"] for m in alice.messages(chat)] == [10, 11, 12]
            assert alice.json("sync")["prunedItems"] == 0

        results.check("chat sync prunes to the three newest messages, once", prune)

        def local_search():
            found = alice.json("search", "東京")
            assert found["hits"] == [] and found["mayBeIncomplete"] is True, found
            text = alice.run("search", "東京").stdout
            assert "chat search --on-server" in text, text

        results.check("the local search says older messages may be on the server", local_search)

        def server_search():
            found = alice.json("search", "--on-server", "東京")
            assert [hit["sequence"] for hit in found["hits"]] == [1], found
            assert found["hits"][0]["title"] == "Years", found
            assert "[東京]" in found["hits"][0]["snippet"], found

        results.check("chat search --on-server finds the pruned message", server_search)

        def doctor():
            report = alice.json("doctor")
            assert report["integrity"] == "ok", report
            # The device runs the newest migration, whichever it is; the floor below needs v10.
            assert report["schemaVersion"] == report["migrations"][-1], report
            assert "v10-erasure" in report["migrations"], report
            assert report["messages"] == 3 and report["partialHistoryConversations"] == 1, report
            connection = sqlite3.connect(alice.database())
            try:
                floor = connection.execute(
                    "SELECT history_floor FROM conversations WHERE id = ?", (chat,)).fetchone()[0]
            finally:
                connection.close()
            assert floor == 10, floor

        results.check("chat doctor: integrity ok, three messages, history from 10", doctor)
    finally:
        server.stop()
        remove(root)
    return results.finish()


if __name__ == "__main__":
    raise SystemExit(main())
