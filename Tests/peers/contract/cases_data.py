"""Conversations, messages (idempotency, no holes under concurrency), paging and receipts."""

import re
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx

from chatserver import Device

RFC3339_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
# API.md Part 2: a message is the Item of kind message, with every field of Item.
MESSAGE_FIELDS = {"id", "clientMessageId", "conversationId", "senderId", "text", "sequence", "sentAt",
                  "kind", "media", "editedAt", "deleted", "target", "added", "removed", "title",
                  # API.md Part 3: a message's reactions, reply, mentions and forwarded flag
                  "reactions", "replyTo", "mentions", "forwarded"}
# API.md Part 2, "Groups that change": the caller's visible ranges, membership and the creator.
CONVERSATION_FIELDS = {"id", "title", "memberIds", "lastSequence", "readUpTo", "createdAt",
                       "visible", "membership", "createdBy",
                       "unreadMentions", "mutedMentions",  # API.md Part 3, "Mentions"
                       "pinned",  # API.md Part 3, "Pins"
                       "draft"}  # API.md Part 3, "Drafts"


def activity(item):
    """API.md: the last message's sentAt, or createdAt when there is none (RFC 3339 sorts as text)."""
    return item["lastMessage"]["sentAt"] if item["lastMessage"] else item["createdAt"]


def newest_first(items):
    times = [activity(item) for item in items]
    return times == sorted(times, reverse=True)


def run_conversations(report, server):
    report.start_group("conversations")
    alice = Device(server, "conv-alice")
    bob = Device(server, "conv-bob")
    created = alice.request("POST", "/v1/conversations",
                            {"title": "Hiking", "memberIds": ["conv-bob", "conv-carol", "conv-bob"]})
    body = created.json()
    report.check("create is 201", created.status_code == 201, created.text)
    report.check("create has exactly the fields of API.md",
                 set(body) == CONVERSATION_FIELDS, str(body))
    report.check("the creator sees everything from 1, as a member",
                 body["visible"] == [[1, None]] and body["membership"] == "member"
                 and body["createdBy"] == "conv-alice", str(body))
    report.check("the caller is a member and memberIds are deduplicated",
                 sorted(body["memberIds"]) == ["conv-alice", "conv-bob", "conv-carol"], str(body["memberIds"]))
    report.check("a new conversation starts at 0",
                 body["lastSequence"] == 0 and body["readUpTo"] == 0)
    report.check("createdAt is RFC 3339 with milliseconds", RFC3339_MS.match(body["createdAt"]) is not None)
    report.check("a member who never signed in is allowed", "conv-carol" in body["memberIds"])
    hiking = body["id"]
    second = alice.create(["conv-bob"], title="Later")["id"]
    alone = alice.create([], title="Notes")["id"]

    listed = alice.request("GET", "/v1/conversations").json()["items"]
    report.check("list shows the caller's conversations", {item["id"] for item in listed} == {hiking, second, alone})
    report.check("list items carry lastMessage null before any message",
                 all(item["lastMessage"] is None for item in listed))
    # Times have millisecond precision: equal ones may come in either order.
    report.check("without messages, newest createdAt first", newest_first(listed),
                 str([(item["title"], activity(item)) for item in listed]))
    alice.send(hiking, "first in hiking")
    listed = alice.request("GET", "/v1/conversations").json()["items"]
    top = next(item for item in listed if item["id"] == hiking)
    report.check("a message makes its conversation the newest activity",
                 newest_first(listed) and activity(top) == activity(listed[0]),
                 str([(item["title"], activity(item)) for item in listed]))
    report.check("lastMessage is the message", top["lastMessage"] and
                 top["lastMessage"]["text"] == "first in hiking" and
                 set(top["lastMessage"]) == MESSAGE_FIELDS, str(top))
    report.check("lastSequence and the sender's readUpTo follow the message",
                 top["lastSequence"] == 1 and top["readUpTo"] == 1, str(top))
    bob_items = {item["id"]: item for item in bob.request("GET", "/v1/conversations").json()["items"]}
    report.check("bob sees only his", set(bob_items) == {hiking, second})
    report.check("bob's readUpTo is his own (0)", bob_items[hiking]["readUpTo"] == 0)

    everything = bob.request("GET", "/v1/sync").json()
    report.check("sync without a cursor: everything", {item["id"] for item in everything["conversations"]}
                 == {hiking, second} and isinstance(everything["cursor"], str))
    cursor = everything["cursor"]
    nothing = bob.request("GET", "/v1/sync", params={"cursor": cursor}).json()
    report.check("sync with the latest cursor: nothing", nothing["conversations"] == [], str(nothing))
    alice.send(second, "news")
    changed = bob.request("GET", "/v1/sync", params={"cursor": cursor}).json()
    report.check("a message shows its conversation in sync", [item["id"] for item in changed["conversations"]]
                 == [second], str(changed))
    cursor = changed["cursor"]
    alice.mark("read", hiking, 1)
    bob.mark("delivered", hiking, 1)
    receipts = bob.request("GET", "/v1/sync", params={"cursor": cursor}).json()
    report.check("a raised receipt shows its conversation in sync",
                 [item["id"] for item in receipts["conversations"]] == [hiking], str(receipts))
    cursor = receipts["cursor"]
    third = alice.create(["conv-bob"], title="Third")["id"]
    fresh = bob.request("GET", "/v1/sync", params={"cursor": cursor}).json()
    report.check("a new conversation shows in sync", [item["id"] for item in fresh["conversations"]] == [third])
    unchanged = bob.request("GET", "/v1/sync", params={"cursor": fresh["cursor"]}).json()
    report.check("a lower receipt changes nothing in sync", unchanged["conversations"] == [] and
                 bob.mark("delivered", hiking, 0).status_code == 204 and
                 bob.request("GET", "/v1/sync", params={"cursor": fresh["cursor"]}).json()["conversations"] == [])

    members = [f"conv-m{index}" for index in range(255)]
    big = alice.request("POST", "/v1/conversations", {"memberIds": members})
    report.check("a group of 256 with the creator is accepted",
                 big.status_code == 201 and len(big.json()["memberIds"]) == 256, big.text[:200])
    alice.close()
    bob.close()


def run_messages(report, server):
    report.start_group("messages")
    alice = Device(server, "msg-alice")
    bob = Device(server, "msg-bob")
    conversation = alice.create(["msg-bob"])["id"]
    key = str(uuid.uuid4())
    first = alice.send(conversation, "On my way", key)
    message = first.json()
    report.check("first send 201", first.status_code == 201, first.text)
    report.check("the Message has exactly the fields of API.md's Item", set(message) == MESSAGE_FIELDS, str(message))
    report.check("the Message echoes what was sent", message["clientMessageId"] == key and
                 message["text"] == "On my way" and message["senderId"] == "msg-alice" and
                 message["conversationId"] == conversation and message["sequence"] == 1, str(message))
    report.check("sentAt is RFC 3339 with milliseconds", RFC3339_MS.match(message["sentAt"]) is not None)
    report.check("JSON answers say application/json; charset=utf-8",
                 first.headers.get("content-type") == "application/json; charset=utf-8",
                 first.headers.get("content-type"))
    again = alice.send(conversation, "On my way", key)
    report.check("the same send again is 200", again.status_code == 200, again.text)
    report.check("the retry answers the stored message (same id, sequence, sentAt)", again.json() == message,
                 again.text)
    report.check("conflict: same key, other text is 409",
                 alice.send(conversation, "On my way!", key).status_code == 409)
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    normal_key = str(uuid.uuid4())
    alice.send(conversation, composed, normal_key)
    report.check("no Unicode normalisation: é vs e+◌́ is a 409",
                 alice.send(conversation, decomposed, normal_key).status_code == 409)
    shared = str(uuid.uuid4())
    mine = alice.send(conversation, "same key", shared)
    theirs = bob.send(conversation, "same key", shared)
    report.check("two senders with the same key get two messages",
                 mine.status_code == 201 and theirs.status_code == 201 and
                 mine.json()["id"] != theirs.json()["id"] and
                 theirs.json()["sequence"] == mine.json()["sequence"] + 1, f"{mine.text} {theirs.text}")
    other = alice.create(["msg-bob"])["id"]
    elsewhere = alice.send(other, "same key", shared)
    report.check("the same key in another conversation is a new message",
                 elsewhere.status_code == 201 and elsewhere.json()["sequence"] == 1, elsewhere.text)
    stored = alice.messages(conversation).json()["items"]
    report.check("the history holds each message once, in sequence order",
                 [item["sequence"] for item in stored] == list(range(1, len(stored) + 1)) and len(stored) == 4,
                 str([item["sequence"] for item in stored]))
    receipts = alice.receipts(conversation).json()
    mine_now = next(member for member in receipts["members"] if member["userId"] == "msg-alice")
    report.check("posting raises the sender's own delivered and read to the new sequence",
                 mine_now["deliveredUpTo"] == 3 and mine_now["readUpTo"] == 3, str(receipts))

    limit_text = "é" * 4096  # 4,096 scalars, 8,192 bytes
    report.check("4,096 scalars is accepted", alice.send(conversation, limit_text).status_code == 201)
    combining = "e\u0301" * 2049  # 2,049 characters, 4,098 scalars
    report.check("the limit counts scalars, not characters",
                 alice.send(conversation, combining).status_code == 413)
    emoji = "👍🏽" * 2048  # 2,048 characters, 4,096 scalars
    report.check("4,096 scalars of emoji is accepted", alice.send(conversation, emoji).status_code == 201)
    alice.close()
    bob.close()


def run_concurrency(report, server, senders=40, each=10):
    """40 users post at once into one group: every acknowledged message is stored once with the
    sequence it was acknowledged with, and the sequences are 1...N with no hole."""
    report.start_group("concurrency")
    users = [f"many-{index}" for index in range(senders)]
    owner = Device(server, users[0])
    conversation = owner.create(users[1:], title="Everyone")["id"]
    devices = [owner] + [Device(server, user) for user in users[1:]]
    barrier = threading.Barrier(senders)
    acknowledged = {}
    lock = threading.Lock()

    def post(device):
        barrier.wait()
        results = []
        for index in range(each):
            key = str(uuid.uuid4())
            response = device.send(conversation, f"{device.user} #{index}", key)
            results.append((response.status_code, key, response.json().get("sequence")))
        with lock:
            acknowledged[device.user] = results

    with ThreadPoolExecutor(max_workers=senders) as pool:
        list(pool.map(post, devices))
    statuses = [status for results in acknowledged.values() for status, _, _ in results]
    report.check(f"all {senders * each} concurrent sends are 201", statuses.count(201) == senders * each,
                 str({status: statuses.count(status) for status in set(statuses)}))
    items = owner.all_messages(conversation)
    sequences = [item["sequence"] for item in items]
    report.check("sequences are 1...N with no hole and no repeat", sequences == list(range(1, senders * each + 1)),
                 f"{len(sequences)} messages")
    by_key = {item["clientMessageId"]: item["sequence"] for item in items}
    report.check("every acknowledged message is stored with its acknowledged sequence",
                 all(by_key.get(key) == sequence for results in acknowledged.values()
                     for _, key, sequence in results))
    ordered = all([sequence for _, _, sequence in results] == sorted(sequence for _, _, sequence in results)
                  for results in acknowledged.values())
    report.check("each sender's messages keep the order it sent them in", ordered)
    for device in devices:
        device.close()


def run_paging(report, server):
    report.start_group("paging")
    alice = Device(server, "page-alice")
    conversation = alice.create(["page-bob"])["id"]
    for index in range(25):
        alice.send(conversation, f"m{index + 1}")

    def page(**params):
        body = alice.messages(conversation, **params).json()
        return [item["sequence"] for item in body["items"]], body["hasMore"]

    cases = [
        ("newest page", {"limit": 10}, (list(range(16, 26)), True)),
        ("default limit is 50: all 25", {}, (list(range(1, 26)), False)),
        ("before=16", {"before": 16, "limit": 10}, (list(range(6, 16)), True)),
        ("before=6 reaches the start", {"before": 6, "limit": 10}, (list(range(1, 6)), False)),
        ("before=11 exactly 10 left", {"before": 11, "limit": 10}, (list(range(1, 11)), False)),
        ("before=1: nothing older", {"before": 1}, ([], False)),
        ("after=0", {"after": 0, "limit": 10}, (list(range(1, 11)), True)),
        ("after=15 exactly 10 left", {"after": 15, "limit": 10}, (list(range(16, 26)), False)),
        ("after=20", {"after": 20, "limit": 10}, (list(range(21, 26)), False)),
        ("after=25: nothing newer", {"after": 25}, ([], False)),
        ("after beyond the end", {"after": 1000}, ([], False)),
        ("limit=1 newest", {"limit": 1}, ([25], True)),
        ("limit=200", {"limit": 200}, (list(range(1, 26)), False)),
        ("before beyond the end", {"before": 1000, "limit": 5}, (list(range(21, 26)), True)),
    ]
    for label, params, expected in cases:
        got = page(**params)
        report.check(f"{label}: items ascending, hasMore right", got == expected, f"got {got}")
    walked = []
    before = None
    while True:
        params = {"limit": 7} if before is None else {"limit": 7, "before": before}
        sequences, more = page(**params)
        walked = sequences + walked
        if not more:
            break
        before = sequences[0]
    report.check("walking back with before= visits every message once", walked == list(range(1, 26)))
    alice.close()


def run_receipts(report, server):
    report.start_group("receipts")
    alice = Device(server, "rc-alice")
    phone = Device(server, "rc-bob", "phone")
    tablet = Device(server, "rc-bob", "tablet")
    carol = Device(server, "rc-carol")
    group = alice.create(["rc-bob", "rc-carol"])["id"]
    for index in range(5):
        alice.send(group, f"g{index}")

    def numbers(device, conversation=group):
        body = device.receipts(conversation).json()
        members = {member["userId"]: (member["deliveredUpTo"], member["readUpTo"]) for member in body["members"]}
        return (body["deliveredUpTo"], body["readUpTo"]), members

    top, members = numbers(alice)
    report.check("members lists everyone, the caller included", set(members) == {"rc-alice", "rc-bob", "rc-carol"})
    report.check("nothing delivered yet: top-level 0/0", top == (0, 0), str(top))
    report.check("204 for delivered", phone.mark("delivered", group, 3).status_code == 204)
    report.check("top-level is the lowest over the others", numbers(alice)[0] == (0, 0))
    carol.mark("delivered", group, 2)
    report.check("lowest over the others: min(3, 2)", numbers(alice)[0] == (2, 0), str(numbers(alice)))
    report.check("read implies delivered", tablet.mark("read", group, 4).status_code == 204 and
                 numbers(alice)[1]["rc-bob"] == (4, 4), str(numbers(alice)[1]))
    report.check("per user, not per device: the phone sees the tablet's read",
                 numbers(phone)[1]["rc-bob"] == (4, 4))
    report.check("a lower number is accepted and changes nothing",
                 phone.mark("read", group, 1).status_code == 204 and phone.mark("delivered", group, 2).status_code
                 == 204 and numbers(alice)[1]["rc-bob"] == (4, 4))
    report.check("0 is accepted and changes nothing", carol.mark("read", group, 0).status_code == 204 and
                 numbers(alice)[1]["rc-carol"] == (2, 0))
    report.check("up to lastSequence is accepted", carol.mark("read", group, 5).status_code == 204)
    report.check("above lastSequence is 422", carol.mark("read", group, 6).status_code == 422)
    report.check("top-level for alice: lowest of bob 4/4 and carol 5/5",
                 numbers(alice)[0] == (4, 4), str(numbers(alice)))
    report.check("bob's ticks are over alice and carol",
                 numbers(phone)[0] == (5, 5), str(numbers(phone)))
    direct = alice.create(["rc-carol"])["id"]
    alice.send(direct, "hi")
    carol.mark("delivered", direct, 1)
    report.check("one-to-one: the other person's numbers", numbers(alice, direct)[0] == (1, 0))
    report.check("one-to-one from the other side", numbers(carol, direct)[0] == (1, 1))
    alone = alice.create([])["id"]
    alice.send(alone, "note 1")
    alice.send(alone, "note 2")
    report.check("no other member: lastSequence", numbers(alice, alone)[0] == (2, 2), str(numbers(alice, alone)))
    for device in (alice, phone, tablet, carol):
        device.close()
