"""Several chat-server nodes on one PostgreSQL database, and the faults a deployment of them
meets. Every node is the real binary; the database is a real PostgreSQL cluster
(scripts/postgres-local).

  - live events cross nodes: a message, a typing hint and a read receipt posted on one node
    reach sockets on the other;
  - tokens cross nodes: one signing key, refresh tokens rotated on any node, once; a spent one
    presented again revokes its family on every node;
  - push collapse holds across nodes, and a long poll on one node answers a post on the other;
  - 40 concurrent posters spread over two nodes on one conversation, each send retried once
    on the other node with the same clientMessageId: sequences 1…N, no duplicate, each retry
    answered 200 with the message it repeats;
  - kill -9 of one node during a burst: its posters move to the other node and retry what was
    not acknowledged; everything acknowledged is there once, with its sequence, and no hole;
  - a reader following /v1/sync cursors while writers on two nodes post: nothing skipped;
  - a dropped LISTEN connection (pg_terminate_backend): the node closes its sockets when its
    listener is back, and a client that reconnects and catches up from its last sequence has
    every message.

With --relay DIR the nodes relay their live events through the three-server NATS cluster
scripts/nats-local started in DIR (chat-server --relay), and the dropped LISTEN gives way to
NATS's own faults, each during a burst of posts from a node's device to a device on the other
node, and each ending with the receiver holding every acknowledged message once, in sequence
order, and live events crossing again:

  - the NATS server the sender's node is on killed (-9) and started again: the node publishes
    what it posts meanwhile once it is on another server, and the receiver's socket gets it all
    live, never closed (unless the receiver's node was on that server too: it then closes its
    sockets and the receiver catches up);
  - the NATS server the receiver's node is on cut off (SIGSTOP: its connections hang without a
    word): the node notices the unanswered PINGs, moves to another server and closes its
    sockets; the receiver reconnects and catches up from its last sequence;
  - a NATS server that requires TLS (tls://, --relay-ca): events cross; a node that does not
    trust its certificate relays nothing and its log says TLS failed.

    .venv/bin/python Tests/peers/contract/nodes.py --postgres DIR [--relay DIR]
Ends with 'nodes: N passed, N failed' (nodes-nats with --relay).
"""

import os
import re
import socket
import subprocess

import math
import signal
import sys
import threading
import time
import uuid

from websockets.exceptions import ConnectionClosed

import chatserver
from cases_live import Live
from cases_push import Webhook
from chatserver import Certificates, Cluster, Device, Report, psql, wait_for


def metric(node, name):
    """A counter of one node's /metrics (0 when absent)."""
    for line in node.request("GET", "/metrics").text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0


def run_events_cross_nodes(report):
    report.start_group("events cross nodes")
    with Cluster("--dev") as cluster:
        a, b = cluster.nodes
        alice = Device(a, "x-alice")
        bob = Device(b, "x-bob")
        conversation = alice.create(["x-bob"], title="Across")["id"]
        alice_live, bob_live = Live(alice), Live(bob)
        sent = alice.send(conversation, "from node A").json()
        events = bob_live.until(lambda e: e["type"] == "message")
        report.check("a message posted on A reaches a socket on B", events[-1]["message"] == sent,
                     str(events[-1]))
        bob_live.typing(conversation)
        typing = alice_live.until(lambda e: e["type"] == "typing")[-1]
        report.check("a typing hint sent on B reaches a socket on A",
                     typing == {"type": "typing", "conversationId": conversation, "userId": "x-bob"},
                     str(typing))
        bob.mark("read", conversation, sent["sequence"])
        receipt = alice_live.until(
            lambda e: e["type"] == "receipts" and any(m["userId"] == "x-bob" for m in e["members"]))[-1]
        report.check("a read receipt posted on B reaches a socket on A",
                     {"userId": "x-bob", "deliveredUpTo": 1, "readUpTo": 1} in receipt["members"],
                     str(receipt))
        long_text = "é" * 4096
        big = bob.send(conversation, long_text).json()
        event = alice_live.until(lambda e: e["type"] == "message" and e["message"]["id"] == big["id"])[-1]
        report.check("an event too large for a notification crosses too (live_relay)",
                     event["message"]["text"] == long_text)
        report.check("B counts the events it received from A",
                     metric(b, "chat_relay_events_received_total") >= 2)
        alice_live.close()
        bob_live.close()


def run_tokens_cross_nodes(report):
    report.start_group("tokens cross nodes")
    with Cluster("--dev") as cluster:
        a, b = cluster.nodes
        alice = Device(a, "t-alice")
        on_b = b.request("GET", "/v1/conversations", headers=alice.auth)
        report.check("an access token signed on A is accepted on B (one signing key)",
                     on_b.status_code == 200, on_b.text[:200])
        refresh = alice.tokens["refreshToken"]
        rotated = b.request("POST", "/v1/auth/refresh", json={"refreshToken": refresh})
        report.check("a refresh token issued on A is rotated on B", rotated.status_code == 200,
                     rotated.text[:200])
        again = a.request("POST", "/v1/auth/refresh", json={"refreshToken": refresh})
        report.check("and, spent on B, it is refused on A", again.status_code == 401, again.text[:200])
        newer = rotated.json()
        report.check("presented again, it revoked its family: the newer refresh token is refused",
                     b.request("POST", "/v1/auth/refresh",
                               json={"refreshToken": newer["refreshToken"]}).status_code == 401)
        bearer = {"Authorization": f"Bearer {newer['accessToken']}"}
        statuses = chatserver.wait_for(
            lambda: [node.request("GET", "/v1/conversations", headers=bearer).status_code for node in (a, b)],
            lambda found: found == [401, 401])
        report.check("and its access tokens, on both nodes", statuses == [401, 401], str(statuses))
        results = []
        token = Device(a, "t-alice", "tablet").tokens["refreshToken"]
        barrier = threading.Barrier(2)

        def spend(node):
            barrier.wait()
            response = node.request("POST", "/v1/auth/refresh", json={"refreshToken": token})
            results.append((response.status_code, response.json()))

        both = [threading.Thread(target=spend, args=(node,)) for node in (a, b)]
        for thread in both:
            thread.start()
        for thread in both:
            thread.join()
        codes = sorted(code for code, _ in results)
        report.check("one token spent on A and B at once: one rotation, one 401",
                     codes == [200, 401], str(codes))
        won = [body for code, body in results if code == 200]
        report.check("the other's presentation was a reuse: the winner's new token is revoked too",
                     len(won) == 1 and a.request("POST", "/v1/auth/refresh",
                                                 json={"refreshToken": won[0]["refreshToken"]}).status_code == 401)
        alice.close()


def run_concurrent_posters(report, posters=40, each=5):
    report.start_group("concurrent posters")
    with Cluster("--dev", "--rate-limit", "off") as cluster:
        owner = Device(cluster.nodes[0], "cp-owner")
        users = [f"cp-{n}" for n in range(posters)]
        conversation = owner.create(users[:255], title="Posters")["id"]
        results = []
        lock = threading.Lock()
        barrier = threading.Barrier(posters)

        def post(index):
            here = cluster.nodes[index % 2]
            there = cluster.nodes[(index + 1) % 2]
            device = Device(here, users[index])
            other = Device(there, users[index], device="retry")
            barrier.wait()
            for n in range(each):
                key = str(uuid.uuid4())
                first = device.send(conversation, f"{index}/{n}", key)
                again = other.send(conversation, f"{index}/{n}", key)
                with lock:
                    results.append((key, first.status_code, first.json(), again.status_code, again.json()))
            device.close()
            other.close()

        threads = [threading.Thread(target=post, args=(index,)) for index in range(posters)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        stored = owner.all_messages(conversation)
        total = posters * each
        report.check(f"{posters} posters on two nodes: every send 201",
                     all(status == 201 for _, status, _, _, _ in results) and len(results) == total)
        report.check("each retry on the other node is 200 with the same message",
                     all(again_status == 200 and again == first for _, _, first, again_status, again in results))
        report.check(f"sequences 1…{total}, no hole",
                     [item["sequence"] for item in stored] == list(range(1, total + 1)),
                     f"{len(stored)} stored")
        report.check("no duplicate: one message per clientMessageId",
                     sorted(item["clientMessageId"] for item in stored) == sorted(key for key, *_ in results))
        owner.close()


def run_kill_one_node(report, posters=6):
    report.start_group("kill -9 one node")
    with Cluster("--dev", "--rate-limit", "off") as cluster:
        a, b = cluster.nodes
        owner = Device(b, "k9-owner")
        users = [f"k9-{n}" for n in range(posters)]
        conversation = owner.create(users, title="Kill")["id"]
        acknowledged = {}  # key -> (sequence, text)
        in_flight = {}  # poster -> (key, text) not acknowledged when its node died
        lock = threading.Lock()
        stop = threading.Event()
        started = threading.Barrier(posters + 1)

        def post(index):
            node = a if index % 2 == 0 else b
            device = Device(node, users[index])
            started.wait()
            n = 0
            while not stop.is_set():
                key, text = str(uuid.uuid4()), f"{index}/{n}"
                n += 1
                try:
                    response = device.send(conversation, text, key)
                except Exception:  # noqa: BLE001 (the node died under the request)
                    with lock:
                        in_flight[index] = (key, text)
                    break
                if response.status_code != 201:
                    with lock:
                        in_flight[index] = (key, text)
                    break
                with lock:
                    acknowledged[key] = (response.json()["sequence"], text)
            device.close()
            # Its node is gone (or the burst is over): the other node takes the retry.
            if index in in_flight:
                survivor = Device(b, users[index], device="moved")
                key, text = in_flight[index]
                retried = survivor.send(conversation, text, key)
                with lock:
                    if retried.status_code in (200, 201):
                        acknowledged[key] = (retried.json()["sequence"], text)
                        del in_flight[index]
                survivor.close()

        threads = [threading.Thread(target=post, args=(index,)) for index in range(posters)]
        for thread in threads:
            thread.start()
        started.wait()
        # Until A has acknowledged a fair share of the burst.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(acknowledged) < 60:
            time.sleep(0.01)
        a.kill()
        # B's posters keep going a little after A died.
        goal = len(acknowledged) + 30
        while time.monotonic() < deadline and len(acknowledged) < goal:
            time.sleep(0.01)
        stop.set()
        for thread in threads:
            thread.join()
        stored = {item["clientMessageId"]: (item["sequence"], item["text"])
                  for item in owner.all_messages(conversation)}
        report.check("A was killed during the burst and its posters moved to B",
                     a.process.returncode == -signal.SIGKILL and not in_flight, str(in_flight))
        report.check(f"every acknowledged send is there with its sequence ({len(acknowledged)})",
                     all(stored.get(key) == value for key, value in acknowledged.items()))
        report.check("nothing else is stored", set(stored) == set(acknowledged),
                     f"{len(stored)} stored, {len(acknowledged)} acknowledged")
        report.check("sequences 1…N, no hole",
                     sorted(sequence for sequence, _ in stored.values()) == list(range(1, len(stored) + 1)))
        owner.close()


def run_sync_cursors(report, writers=8, conversations=400):
    """A reader following /v1/sync cursors while writers on two nodes each post one message
    to each of many conversations, side by side: once they stop, one more sync with the
    reader's last cursor has brought every conversation's one change. Each conversation
    changes once here, so a skipped change stays skipped (with a counter taken before the
    commit, a reader can pass a change that commits later with a lower number)."""
    report.start_group("sync cursors")
    with Cluster("--dev", "--rate-limit", "off") as cluster:
        reader = Device(cluster.nodes[0], "sc-reader")
        owners = [Device(cluster.nodes[n % 2], f"sc-w{n}") for n in range(writers)]
        chats = [owners[n % writers].create(["sc-reader"], title=f"S{n}")["id"]
                 for n in range(conversations)]
        seen = {}

        def read(body):
            for item in body["conversations"]:
                seen[item["id"]] = max(seen.get(item["id"], 0), item["lastSequence"])
            return body["cursor"]

        cursor = read(reader.request("GET", "/v1/sync").json())
        done = threading.Event()

        def write(index):
            for n, chat in enumerate(chats):
                if n % writers == index:
                    owners[index].send(chat, "one change")

        threads = [threading.Thread(target=write, args=(index,)) for index in range(writers)]
        for thread in threads:
            thread.start()
        threading.Thread(target=lambda: ([t.join() for t in threads], done.set())).start()
        rounds = 0
        while not done.is_set():
            cursor = read(reader.request("GET", "/v1/sync", params={"cursor": cursor}).json())
            rounds += 1
        cursor = read(reader.request("GET", "/v1/sync", params={"cursor": cursor}).json())
        stale = [chat for chat in chats if seen.get(chat) != 1]
        report.check(f"{rounds} syncs during {conversations} sends on two nodes: the cursors "
                     "brought every conversation's change", not stale and rounds > 1,
                     f"{len(stale)} skipped")
        again = reader.request("GET", "/v1/sync", params={"cursor": cursor}).json()
        report.check("and a sync with the cursor after that brings nothing",
                     again["conversations"] == [], str(again)[:300])


def run_push_and_long_poll_across_nodes(report, messages=20):
    """Push collapse is the database's, not a node's: a burst posted through both nodes reaches
    an offline device as one push at once and then at most one per 2 s, whichever node's
    dispatcher sends it. A long poll held on one node answers when a message is posted on the
    other."""
    report.start_group("push and long poll across nodes")
    webhook = Webhook()
    try:
        with Cluster("--dev", "--rate-limit", "off", "--push-webhook", webhook.url) as cluster:
            a, b = cluster.nodes
            alice_a = Device(a, "pl-alice")
            alice_b = Device(b, "pl-alice", device="tablet")
            bob = Device(b, "pl-bob")
            registered = bob.request("PUT", "/v1/devices/me/push",
                                     {"provider": "webhook", "token": "tok-pl-bob"})
            group = alice_a.create(["pl-bob"], title="Across")["id"]
            started = time.monotonic()
            sent = [(alice_a if n % 2 == 0 else alice_b).send(group, f"burst {n}").json()
                    for n in range(messages)]
            burst = time.monotonic() - started
            pushes = webhook.wait_sequence("tok-pl-bob", sent[-1]["sequence"], timeout=15)
            gaps = [later.at - earlier.at for earlier, later in zip(pushes, pushes[1:])]
            report.check(f"{messages} messages through both nodes in {burst:.2f} s: "
                         f"{len(pushes)} pushes, the last with the newest",
                         registered.status_code in (200, 204) and bool(pushes)
                         and pushes[-1].sequence == sent[-1]["sequence"]
                         and len(pushes) <= 2 + math.ceil(burst / 2), str([p.sequence for p in pushes]))
            report.check(f"consecutive pushes at least 1.8 s apart across nodes "
                         f"({', '.join(f'{gap:.2f}' for gap in gaps)})", all(gap >= 1.8 for gap in gaps))

            carol = Device(b, "pl-carol")
            chat = alice_a.create(["pl-carol"], title="Poll")["id"]
            cursor = carol.request("GET", "/v1/sync").json()["cursor"]
            answer = {}

            def hold():
                held = time.monotonic()
                answer["body"] = carol.request("GET", "/v1/sync", params={"cursor": cursor, "wait": "20"}).json()
                answer["seconds"] = time.monotonic() - held

            poll = threading.Thread(target=hold)
            poll.start()
            # Posted once the poll is held on B (its gauge), from A.
            deadline = time.monotonic() + 10
            while metric(b, "chat_long_polls_held") < 1 and time.monotonic() < deadline:
                time.sleep(0.02)
            alice_a.send(chat, "wake up")
            poll.join()
            body = answer.get("body", {})
            report.check("a long poll held on B answers a message posted on A",
                         any(item["id"] == chat for item in body.get("conversations", []))
                         and answer.get("seconds", 99) < 10, str(answer)[:300])
    finally:
        webhook.close()


def run_dropped_listen(report):
    report.start_group("dropped LISTEN")
    with Cluster("--dev") as cluster:
        a, b = cluster.nodes
        alice = Device(a, "dl-alice")
        bob = Device(b, "dl-bob")
        conversation = alice.create(["dl-bob"], title="Dropped")["id"]
        bob_live = Live(bob)
        first = alice.send(conversation, "before the cut").json()
        bob_live.until(lambda e: e["type"] == "message" and e["message"]["id"] == first["id"])
        # Every node's listener (this cluster's and others'): PostgreSQL ends their connections.
        ended = psql(cluster.database_url,
                     "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                     "WHERE query = 'LISTEN chat_live' AND datname = current_database()")
        report.check("the nodes' LISTEN connections were cut", int(ended) == 2, ended)
        # B's listener comes back and closes B's sockets: the client reconnects, catches up.
        try:
            bob_live.until(lambda e: False, timeout=20)
            closed = False
        except ConnectionClosed:
            closed = True
        except TimeoutError:
            closed = False
        report.check("once its listener is back, B closes its sockets", closed and
                     metric(b, "chat_relay_resumes_total") == 1)
        second = alice.send(conversation, "after the cut").json()
        caught_up = bob.messages(conversation, after=first["sequence"]).json()["items"]
        report.check("a client that catches up from its last sequence has every message",
                     [item["id"] for item in caught_up] == [second["id"]], str(caught_up))
        again = Live(bob)
        third = alice.send(conversation, "live again").json()
        event = again.until(lambda e: e["type"] == "message")[-1]
        report.check("after the reconnect, events cross nodes again", event["message"] == third,
                     str(event))
        again.close()


# The NATS cluster's folder (scripts/nats-local), with --relay.
nats_dir = None


def nats_local(*arguments):
    subprocess.run([os.path.join(chatserver.ROOT, "scripts", "nats-local"), arguments[0], nats_dir,
                    *[str(argument) for argument in arguments[1:]]], check=True)


def nats_server_of(node):
    """Which of the cluster's servers (1, 2, 3) `node` is connected to now: its log's last
    relay_connected."""
    connected = re.findall(r"event=relay_connected .*server=(\S+)", node.read_log())
    urls = open(os.path.join(nats_dir, "urls")).read().strip().split(",")
    return urls.index(connected[-1]) + 1


def run_nats_fault(report, name, fault, heal, on_sender):
    """A burst from alice on node A to bob's socket on node B, with `fault` done to the NATS
    server of A (`on_sender`) or of B part way through and `heal` after."""
    report.start_group(name)
    with Cluster("--dev", "--rate-limit", "off") as cluster:
        a, b = cluster.nodes
        failed = report.failed
        try:
            run_nats_fault_on(report, name, a, b, fault, heal, on_sender)
        except Exception:
            failed = -1
            raise
        finally:
            if report.failed > failed:  # What each node's relay did, to tell why.
                for label, node in (("A", a), ("B", b)):
                    for line in node.read_log().splitlines():
                        if "relay_" in line or "live_" in line:
                            print(f"  node {label}: {line}", flush=True)


def run_nats_fault_on(report, name, a, b, fault, heal, on_sender):
    """The burst of `run_nats_fault` on the nodes `a` (alice's) and `b` (bob's)."""
    alice, bob = Device(a, f"{name[:4]}-alice"), Device(b, f"{name[:4]}-bob")
    conversation = alice.create([bob.user], title=name)["id"]
    bob_live = Live(bob)
    first = alice.send(conversation, "before").json()
    bob_live.until(lambda e: e["type"] == "message" and e["message"]["id"] == first["id"])
    moved = a if on_sender else b
    resumes = metric(moved, "chat_relay_resumes_total")
    target = nats_server_of(moved)
    # The nodes may share a server (each starts at a random one of the three).
    receiver_loses = nats_server_of(b) == target
    acknowledged = [first]
    for n in range(120):
        if n == 40:
            fault(target)
        response = alice.send(conversation, f"burst {n}")
        if response.status_code != 201:
            report.check("every send of the burst is acknowledged", False, str(response.status_code))
            break
        acknowledged.append(response.json())
        time.sleep(0.02)
    heal(target, moved)
    # Bob: what his socket got, then (if it was closed) a catch-up from his last sequence.
    live = [first]
    last = acknowledged[-1]["id"]
    outcome = receive_messages(bob_live, live, lambda e: e["type"] == "message" and
                               e["message"]["id"] == last, timeout=30)
    if outcome == "matched" and receiver_loses:
        # A server let go again may hand the messages it held to the node's new
        # subscription before the reconnect's resume: the resume still closes the socket.
        outcome = receive_messages(bob_live, live, lambda e: False, timeout=10)
    closed = outcome == "closed"
    live_ids = [item["id"] for item in live]
    report.check("the socket never repeated a message", len(set(live_ids)) == len(live_ids),
                 f"{len(live_ids)} events, {len(set(live_ids))} distinct")
    # The client holds what came up to a hole, and catches up from there.
    held = []
    for item in live:
        if item["sequence"] != len(held) + 1:
            break
        held.append(item)
    while closed:
        page = bob.messages(conversation, after=held[-1]["sequence"]).json()
        held += page["items"]
        if not page["hasMore"]:
            break
    wanted = [item["id"] for item in acknowledged]
    got = [item["id"] for item in held]
    report.check(f"bob holds every acknowledged message once, in order ({len(wanted)})",
                 got == wanted, f"{len(got)} held, {len(set(got))} distinct, {len(wanted)} sent")
    report.check("the node moved to another NATS server and said it resumed",
                 wait_for(lambda: metric(moved, "chat_relay_resumes_total"),
                          lambda count: count > resumes) > resumes)
    if receiver_loses:
        report.check("bob's node closed his socket once it was back: he caught up", closed)
    else:
        report.check("bob's node kept its server: his socket got it all live, never closed",
                     not closed)
    # Live again. The messages a server let go late and the sender's newer ones (through its
    # new server) may come interleaved, which reads as a gap: one more resume, which closes
    # the new socket too (nothing is lost: the client catches up). Its next socket gets the
    # events live.
    again = Live(bob) if closed else bob_live
    crossed, detail = False, ""
    for attempt in range(3):
        live = alice.send(conversation, f"live again {attempt}").json()
        try:  # Its own event: a late message of the burst may come first.
            event = again.until(lambda e: e["type"] == "message" and
                                e["message"]["id"] == live["id"], timeout=10)[-1]
        except ConnectionClosed:
            again = Live(bob)
            continue
        crossed, detail = event["message"] == live, str(event)
        break
    report.check("live events cross the nodes again", crossed, detail)
    again.close()


def receive_messages(live, into, stop, timeout):
    """Appends the messages of `live`'s events to `into` until an event matches `stop`
    ("matched"), the socket is closed ("closed"), or `timeout` seconds pass ("timeout")."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            event = live.next(max(0.01, deadline - time.monotonic()))
        except ConnectionClosed:
            return "closed"
        except TimeoutError:
            return "timeout"
        if event["type"] == "message":
            into.append(event["message"])
        if stop(event):
            return "matched"


def run_nats_server_killed(report):
    run_nats_fault(report, "nats server killed", lambda n: nats_local("kill", n),
                   lambda n, _: nats_local("start-one", n), on_sender=True)


def run_nats_server_cut(report):
    def heal(n, node):
        # Once the node has left the cut server (or after 20 s), the server goes on.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and nats_server_of(node) == n:
            time.sleep(0.1)
        nats_local("uncut", n)

    run_nats_fault(report, "nats server cut off", lambda n: nats_local("cut", n), heal,
                   on_sender=False)


def run_nats_over_tls(report):
    """Two nodes relaying through a NATS server that requires TLS (tls://, --relay-ca): events
    cross; a node that does not trust the server's certificate relays nothing, and says why."""
    report.start_group("nats over tls")
    certificates = Certificates()
    port = free_port()
    server = subprocess.Popen(
        ["nats-server", "-a", "127.0.0.1", "-p", str(port), "--tls", "--tlscert",
         certificates.path("server.pem"), "--tlskey", certificates.path("server.key")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: socket_answers(port), bool, timeout=10)
        relay = ["--relay", f"tls://127.0.0.1:{port}"]
        with Cluster("--dev", *relay, "--relay-ca", certificates.path("ca.pem")) as cluster:
            a, b = cluster.nodes
            alice, bob = Device(a, "nt-alice"), Device(b, "nt-bob")
            conversation = alice.create(["nt-bob"], title="TLS")["id"]
            bob_live = Live(bob)
            sent = alice.send(conversation, "across, through TLS").json()
            event = bob_live.until(lambda e: e["type"] == "message")[-1]
            report.check("a message posted on A reaches a socket on B through tls://",
                         event["message"] == sent, str(event))
            bob_live.close()
        wrong = ["--relay-ca", certificates.path("selfsigned.pem")]
        with Cluster("--dev", *relay, *wrong) as cluster:
            a, b = cluster.nodes
            alice, bob = Device(a, "nu-alice"), Device(b, "nu-bob")
            conversation = alice.create(["nu-bob"], title="Untrusted")["id"]
            bob_live = Live(bob)
            alice.send(conversation, "not across")
            try:
                bob_live.until(lambda e: e["type"] == "message", timeout=3)
                crossed = True
            except TimeoutError:
                crossed = False
            report.check("a node that does not trust the certificate relays nothing", not crossed)
            report.check("and its log says TLS failed",
                         "event=relay_disconnected" in a.read_log() and "TLS" in a.read_log())
            bob_live.close()
    finally:
        server.kill()
        server.wait()
        certificates.remove()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def socket_answers(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def main(arguments):
    global nats_dir
    if "--postgres" not in arguments:
        sys.exit("nodes.py --postgres DIR (a cluster scripts/postgres-local started)")
    chatserver.serve_postgres(arguments[arguments.index("--postgres") + 1])
    faults = [run_dropped_listen]
    name = "nodes"
    if "--relay" in arguments:
        nats_dir = arguments[arguments.index("--relay") + 1]
        chatserver.serve_relay(nats_dir)
        faults = [run_nats_server_killed, run_nats_server_cut, run_nats_over_tls]
        name = "nodes-nats"
    report = Report(name)
    started = time.monotonic()
    for run in (run_events_cross_nodes, run_tokens_cross_nodes, run_push_and_long_poll_across_nodes,
                run_concurrent_posters, run_kill_one_node, run_sync_cursors, *faults):
        try:
            run(report)
        except Exception as error:  # noqa: BLE001
            report.check(f"{run.__name__} ran to the end", False, f"{type(error).__name__}: {error}")
            import traceback
            traceback.print_exc()
    print(f"({time.monotonic() - started:.1f} s)")
    return report.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
