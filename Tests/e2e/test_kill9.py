"""SIGKILL `chat send`, `chat edit`, `chat delete` and `chat listen` processes at random
moments, again and again. Every message whose `send` returned must then be on every device
exactly once, with the same text and deleted state everywhere: the last edit that returned, a
delete that returned; and every database must pass `PRAGMA integrity_check`."""

import json
import os
import random
import sqlite3
import subprocess
import sys
import time

from harness import Device, Results, Server, remove, temporary_folder, wait_for

KILLS = int(os.environ.get("CHAT_KILLS", "50"))


def main():
    results = Results("kill -9")
    seed = int(os.environ.get("CHAT_SEED", str(int(time.time()))))
    rng = random.Random(seed)
    print(f"  seed {seed}, {KILLS} kills", flush=True)
    root = temporary_folder("chat-e2e-kill9-")
    # Fifty processes of two users, then each device's outbox drained at once, burst past the
    # default per-user budget (100, 20/s): a 429 leaves rows waiting and `chat sync` exits 75,
    # nothing lost, as designed (the contract's rate-limit group proves the limit). Seed
    # 1796660017 met it. This test is about kills, so its server allows the burst.
    server = Server(os.path.join(root, "server"), extra=["--rate-limit", "1000,200"]).start()
    alice = Device(server, "alice", "phone", root)
    tablet = Device(server, "alice", "ipad", root)
    bob = Device(server, "bob", "phone", root)
    devices = [alice, tablet, bob]
    returned = []  # client message IDs whose send command returned
    mine = {device.device + device.user: [] for device in devices}  # returned, per device
    expected = {}  # message ID -> the text its last returned edit gave it ("" once deleted)
    uncertain = set()  # messages with a killed edit or delete: they may or may not have it
    kills = {"send": 0, "edit": 0, "delete": 0, "listen": 0}
    try:
        for device in devices:
            device.run("login")
        chat = alice.json("create", "--title", "Kills", "--members", "bob")["id"]
        for device in devices:
            device.run("sync")

        def kill_loop():
            count = 0
            while count < KILLS:
                device = rng.choice(devices)
                own = [m for m in mine[device.device + device.user] if expected.get(m) != ""]
                roll = rng.random()
                target = rng.choice(own) if own else None
                if roll < 0.55 or (roll < 0.75 and target is None):
                    process = subprocess.Popen(
                        device.args("send", chat, f"k{count}", "--json"),
                        stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL,
                        text=True,
                    )
                    kind = "send"
                elif roll < 0.75:
                    kind = "edit" if roll < 0.7 else "delete"
                    text = f"k{count} edited"
                    command = ("edit", chat, target, text) if kind == "edit" else \
                        ("delete", chat, target)
                    process = subprocess.Popen(
                        device.args(*command, "--json"),
                        stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL,
                        text=True,
                    )
                else:
                    process = subprocess.Popen(
                        device.args("listen"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                    )
                    kind = "listen"
                delay = rng.uniform(0.0, 0.4)
                try:
                    output, _ = process.communicate(timeout=delay) if kind != "listen" \
                        else (None, None)
                    if kind == "send" and process.returncode == 0:
                        returned.append(json.loads(output)["clientMessageId"])
                        mine[device.device + device.user].append(returned[-1])
                        continue
                    if kind in ("edit", "delete"):
                        # Refused (exit 65) only when a killed delete did land first.
                        assert process.returncode == 0 or target in uncertain, \
                            f"{kind} exited {process.returncode}"
                        if process.returncode == 0:
                            expected[target] = text if kind == "edit" else ""
                        continue
                except subprocess.TimeoutExpired:
                    pass
                if kind == "listen":
                    time.sleep(delay)  # let it run a random while: this is the fault, not a wait
                process.kill()
                process.communicate()
                if kind in ("edit", "delete"):
                    uncertain.add(target)
                kills[kind] += 1
                count += 1

        results.check(f"{KILLS} processes killed at random moments", kill_loop)
        print(f"  killed {kills['send']} sends, {kills['edit']} edits, {kills['delete']} "
              f"deletes and {kills['listen']} listeners; {len(returned)} sends and "
              f"{len(expected)} changes returned", flush=True)

        def outbox_after_the_kills():
            # What the killed processes left unsent is listed once each, as waiting (a row
            # killed mid-post counts as started and is retried with its ID, never held).
            for device in devices:
                entries = device.json("outbox")
                ids = [entry["clientMessageId"] for entry in entries]
                assert len(ids) == len(set(ids)), "an outbox row is listed twice"
                assert all(entry["state"] == "waiting" for entry in entries), entries

        results.check("chat outbox lists what the kills left unsent, once each", outbox_after_the_kills)

        def exactly_once_everywhere():
            for device in devices:
                device.run("sync")
            for device in devices:
                device.run("sync")
            views = [device.messages(chat) for device in devices]
            keys = [[(m["sequence"], m["clientMessageId"], m["text"], m["deleted"]) for m in view]
                    for view in views]
            assert keys[0] == keys[1] == keys[2], "the devices disagree"
            for message in views[0]:
                want = expected.get(message["clientMessageId"])
                if want is None or message["clientMessageId"] in uncertain:
                    continue
                assert message["text"] == want, f"{message['text']!r}, expected {want!r}"
                assert message["deleted"] == (want == ""), "a delete that returned is not applied"
            ids = [m["clientMessageId"] for m in views[0]]
            assert len(ids) == len(set(ids)), "a message is doubled"
            missing = set(returned) - set(ids)
            assert not missing, f"{len(missing)} returned sends are missing"
            sequences = [m["sequence"] for m in views[0]]
            if not expected and not uncertain:
                assert sequences == list(range(1, len(sequences) + 1)), "holes in the sequences"
            else:  # edits and deletes hold sequences of their own, between the messages
                assert sequences == sorted(set(sequences)), "sequences out of order"
            assert all(m["send"] == "sent" for view in views for m in view), "left unsent"
            assert all(device.json("outbox") == [] for device in devices), "the outbox is not empty"

        results.check("every returned send is on every device exactly once", exactly_once_everywhere)

        def integrity():
            for device in devices:
                connection = sqlite3.connect(device.database())
                assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
                connection.close()

        results.check("PRAGMA integrity_check is ok on every database", integrity)
    finally:
        server.stop()
        if results.failed:
            print(f"  kept {root} for inspection (seed {seed})", flush=True)
        else:
            remove(root)
    results.finish()


if __name__ == "__main__":
    main()
