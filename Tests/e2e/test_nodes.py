"""Three `chat` devices on two `chat-server` nodes of one PostgreSQL database (a throwaway
cluster, scripts/postgres-local): alice's phone on node A, her tablet and bob on node B. What
one node accepts reaches devices on the other live, receipts included; sends from all three
end in the same order on every device with no duplicate; and when node A is killed (SIGKILL)
during a burst of sends from the phone, the phone moves to node B and loses nothing: every
send that returned is on every device exactly once, in one order."""

import json
import os
import signal
import subprocess
import threading

from harness import (Device, Listener, Results, Server, postgres_local, remove,
                     same_order_everywhere, sign_in_and_create, temporary_folder, wait_for)


def main():
    results = Results("nodes")
    root = temporary_folder("chat-e2e-nodes-")
    # A folder of its own (the cluster's owner, not root, must reach it).
    started = dict(line.split("=", 1) for line in postgres_local("start").split())
    pg, url = started["CHAT_PG_DIR"], started["CHAT_DATABASE_URL"]
    a = Server(os.path.join(root, "a"), extra=["--database", url]).start()
    b = Server(os.path.join(root, "b"), extra=["--database", url]).start()
    phone = Device(a, "alice", "phone", root)
    tablet = Device(b, "alice", "ipad", root)
    bob = Device(b, "bob", "phone", root)
    devices = [phone, tablet, bob]
    state = {}
    listener = None
    try:

        def sign_in():
            state["chat"] = sign_in_and_create(devices, phone, "Two nodes", "bob")

        results.check("three devices sign in on two nodes; one creates a conversation",
                      sign_in)
        chat = state.get("chat", "")

        def live_across_nodes():
            nonlocal listener
            listener = Listener(phone)
            sent = bob.json("send", chat, "from bob on node B")
            message = sent["clientMessageId"]
            wait_for("the phone on A to hear bob's message from B",
                     lambda: listener.receipt_states(message))
            mine = phone.json("send", chat, "from alice on node A")["clientMessageId"]
            bob.run("sync")
            bob.run("read", chat)
            wait_for("the phone on A to see bob's read receipt, posted on B",
                     lambda: "read" in listener.receipt_states(mine))

        results.check("a message and a read receipt posted on B reach the phone's `chat listen` "
                      "on A", live_across_nodes)

        def concurrent_sends():
            def burst(device):
                for n in range(5):
                    sent = device.json("send", chat, f"{device.user}/{device.device} #{n}")
                    assert sent["state"] == "sent", sent

            threads = [threading.Thread(target=burst, args=(device,)) for device in devices]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()

        results.check("the three send at once, through both nodes", concurrent_sends)

        def same_everywhere(expected=None):
            views = same_order_everywhere(devices, chat)
            ids = [m["clientMessageId"] for m in views[0]]
            if expected is not None:
                missing = set(expected) - set(ids)
                assert not missing, f"{len(missing)} returned sends missing"

        results.check("every message once, the same order on all three devices", same_everywhere)

        def kill_a_during_a_burst():
            if listener:
                listener.stop()
            returned = []
            for n in range(12):
                process = subprocess.Popen(phone.args("send", chat, f"burst #{n}", "--json"),
                                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                           text=True)
                if n == 6:
                    # While that send is on its way (or just before: both must lose nothing).
                    a.stop(signal.SIGKILL)
                output, _ = process.communicate(timeout=60)
                if process.returncode == 0:
                    returned.append(json.loads(output)["clientMessageId"])
            assert len(returned) == 12, f"{len(returned)} of 12 sends returned"
            # The phone moves to the node still up; what waits in its outbox goes there.
            phone.server = b
            report = phone.json("sync")
            assert report["outboxRemaining"] == 0, report
            same_everywhere(returned)

        results.check("node A killed during a burst: the phone moves to B, every send that "
                      "returned is on every device once", kill_a_during_a_burst)
    finally:
        if listener:
            listener.stop()
        for server in (a, b):
            server.stop()
        postgres_local("stop", pg)
        remove(root)
    return results.finish()


if __name__ == "__main__":
    raise SystemExit(main())
