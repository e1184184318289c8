"""Crash test: kill -9 the server during a burst of sends, restart it on the same data folder,
and check that nothing acknowledged was lost.

Each round: several clients send as fast as they are answered into a few shared conversations;
after a random delay the server gets SIGKILL. Every client remembers what was acknowledged
(clientMessageId → sequence) and the one send that was in flight when the connection died.
After a restart on the same folder:
  - every acknowledged message is there, with its acknowledged sequence and text;
  - each conversation's sequences are exactly 1...N (no hole, no repeat);
  - each client retries its unacknowledged send once with the same clientMessageId and text,
    and ends with exactly one message for it (201 if it had not been committed, 200 if it had).
  - tokens signed before the crash still work (the signing key is on disk).

    .venv/bin/python Tests/peers/contract/crash.py [--rounds 20] [--clients 6]
Ends with 'crash: N passed, N failed'.
"""

import argparse
import os
import random
import shutil
import sys
import tempfile
import threading
import time
import uuid

import httpx

from chatserver import Report, Server, all_messages


class Client(threading.Thread):
    """Sends until its connection fails; records what was acknowledged and what was not."""

    def __init__(self, server, token, user, conversations, seed):
        super().__init__(daemon=True)
        self.http = httpx.Client(base_url=server.url, timeout=10,
                                 headers={"Authorization": f"Bearer {token}"})
        self.user = user
        self.conversations = conversations
        self.random = random.Random(seed)
        self.acknowledged = {}  # clientMessageId -> (conversation, sequence, text)
        self.unacknowledged = None  # (conversation, clientMessageId, text) in flight at the crash
        self.unexpected = []
        self.started = threading.Event()

    def run(self):
        index = 0
        while True:
            conversation = self.random.choice(self.conversations)
            key = str(uuid.uuid4())
            text = f"{self.user} {index} {uuid.uuid4().hex[:6]}"
            try:
                response = self.http.post(f"/v1/conversations/{conversation}/messages",
                                          json={"clientMessageId": key, "text": text})
            except httpx.HTTPError:
                self.unacknowledged = (conversation, key, text)
                return
            if response.status_code == 201:
                self.acknowledged[key] = (conversation, response.json()["sequence"], text)
                if len(self.acknowledged) >= 5:
                    self.started.set()
            else:
                self.unexpected.append(response.status_code)
            index += 1


def sign_in(server, user):
    response = httpx.post(server.url + "/v1/auth/dev-login", json={"userId": user, "deviceId": "crash"})
    return response.json()["accessToken"]


def crash_round(report, number, folder, clients_count, rng):
    data = os.path.join(folder, f"round-{number}")
    users = [f"crash-{index}" for index in range(clients_count)]
    server = Server("--dev", "--rate-limit", "off", "--log", "off", data=data).start()
    tokens = {user: sign_in(server, user) for user in users}
    owner = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {tokens[users[0]]}"}, timeout=10)
    conversations = [owner.post("/v1/conversations", json={"title": f"c{index}", "memberIds": users[1:]}).json()["id"]
                     for index in range(3)]
    owner.close()
    clients = [Client(server, tokens[user], user, conversations, rng.random()) for user in users]
    for client in clients:
        client.start()
    for client in clients:
        client.started.wait(timeout=30)
    # Every client has had sends acknowledged; kill at a random moment of the burst.
    time.sleep(rng.uniform(0.0, 0.3))
    server.kill()
    for client in clients:
        client.join(timeout=30)
    acknowledged = sum(len(client.acknowledged) for client in clients)
    in_flight = sum(client.unacknowledged is not None for client in clients)

    restarted = Server("--dev", "--rate-limit", "off", "--log", "off", data=data).start()
    try:
        reader = httpx.Client(base_url=restarted.url, timeout=10,
                              headers={"Authorization": f"Bearer {tokens[users[0]]}"})
        probe = reader.get("/v1/conversations")
        report.check(f"round {number}: a token from before the crash still works", probe.status_code == 200,
                     probe.text)
        stored = {conversation: all_messages(reader, conversation) for conversation in conversations}
        holes = [conversation for conversation, items in stored.items()
                 if [item["sequence"] for item in items] != list(range(1, len(items) + 1))]
        report.check(f"round {number}: sequences 1...N with no hole in every conversation", not holes,
                     str({c: [i["sequence"] for i in stored[c]][:20] for c in holes}))
        by_key = {(item["senderId"], item["clientMessageId"]): item for items in stored.values() for item in items}
        lost = [(client.user, key) for client in clients for key, (conversation, sequence, text)
                in client.acknowledged.items()
                if not (item := by_key.get((client.user, key))) or item["sequence"] != sequence
                or item["text"] != text or item["conversationId"] != conversation]
        report.check(f"round {number}: all {acknowledged} acknowledged messages kept with their sequence",
                     not lost, f"lost or changed: {lost[:5]}")
        retried_ok = True
        details = []
        for client in clients:
            if client.unacknowledged is None:
                continue
            conversation, key, text = client.unacknowledged
            http = httpx.Client(base_url=restarted.url, timeout=10,
                                headers={"Authorization": f"Bearer {tokens[client.user]}"})
            first = http.post(f"/v1/conversations/{conversation}/messages", json={"clientMessageId": key, "text": text})
            second = http.post(f"/v1/conversations/{conversation}/messages", json={"clientMessageId": key, "text": text})
            copies = [item for item in all_messages(http, conversation)
                      if item["senderId"] == client.user and item["clientMessageId"] == key]
            ok = (first.status_code in (200, 201) and second.status_code == 200 and len(copies) == 1
                  and copies[0]["sequence"] == first.json()["sequence"] == second.json()["sequence"])
            details.append(first.status_code)
            retried_ok = retried_ok and ok
            http.close()
        report.check(f"round {number}: each of {in_flight} unacknowledged sends, retried, is one message",
                     retried_ok, str(details))
        after = {conversation: [item["sequence"] for item in all_messages(reader, conversation)]
                 for conversation in conversations}
        report.check(f"round {number}: still no hole after the retries",
                     all(sequences == list(range(1, len(sequences) + 1)) for sequences in after.values()))
        report.check(f"round {number}: no unexpected status during the burst",
                     not any(client.unexpected for client in clients),
                     str([client.unexpected for client in clients]))
        reader.close()
        print(f"  round {number}: {acknowledged} acknowledged, {in_flight} in flight at the kill "
              f"({details.count(200)} of them had been committed)", flush=True)
    finally:
        restarted.cleanup()
        server.cleanup()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--seed", type=int, default=None)
    arguments = parser.parse_args()
    seed = arguments.seed if arguments.seed is not None else random.randrange(1 << 30)
    print(f"crash: {arguments.rounds} rounds, {arguments.clients} clients, seed {seed}", flush=True)
    rng = random.Random(seed)
    report = Report("crash")
    report.start_group("crash")
    folder = tempfile.mkdtemp(prefix="chat-crash-")
    try:
        for number in range(1, arguments.rounds + 1):
            try:
                crash_round(report, number, folder, arguments.clients, rng)
            except Exception as error:  # noqa: BLE001
                report.check(f"round {number} ran to the end", False, f"{type(error).__name__}: {error}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
