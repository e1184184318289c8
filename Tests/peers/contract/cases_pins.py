"""API.md Part 3, "Pins", over the network (on SQLite and on PostgreSQL): a pin is an item of
its own; at most 10 pinned messages; pinning a pinned message or unpinning one that is not is
422; only a message of the conversation the caller can see, not deleted; a delete unpins; the
conversation item's `pinned`, newest pin first, only what the caller can see."""

import uuid

from cases_groups import members
from cases_items import ITEM_FIELDS, delete, post
from chatserver import Device, error_code

PIN_ITEM_FIELDS = ITEM_FIELDS | {"remove"}


def pin(device, conversation, target, remove=False, key=None):
    return post(device, conversation, {"clientMessageId": key or str(uuid.uuid4()), "kind": "pin",
                                       "target": target, "remove": remove})


def pinned(device, conversation):
    listed = device.request("GET", "/v1/conversations").json()["items"]
    return next(c for c in listed if c["id"] == conversation).get("pinned")


def run(report, server):
    report.start_group("pins")
    alice = Device(server, "pin-alice")
    bob = Device(server, "pin-bob")
    conversation = alice.create(["pin-bob"], title="Pins")["id"]
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    alice.send(conversation, "The address is 12 Rue Oberkampf", first)
    bob.send(conversation, "Tickets are in my bag", second)

    created = pin(bob, conversation, first)
    item = created.json()
    report.check("a pin is 201 with an item of its own (kind pin, target, remove false, no text)",
                 created.status_code == 201 and set(item) == PIN_ITEM_FIELDS
                 and item["kind"] == "pin" and item["target"] == first and item["remove"] is False
                 and item["text"] == "" and item["sequence"] == 3, created.text)
    pin(alice, conversation, second)
    report.check("the conversation lists its pinned messages, newest pin first",
                 pinned(alice, conversation) == [{"clientMessageId": second, "sequence": 2},
                                                 {"clientMessageId": first, "sequence": 1}]
                 and pinned(bob, conversation) == pinned(alice, conversation),
                 str(pinned(alice, conversation)))

    again = pin(alice, conversation, first)
    absent_key = str(uuid.uuid4())
    alice.send(conversation, "Not pinned", absent_key)
    absent = pin(alice, conversation, absent_key, remove=True)
    report.check("pinning a pinned message, or unpinning one that is not, is 422",
                 again.status_code == 422 and error_code(again) == "invalid"
                 and absent.status_code == 422, f"{again.text} {absent.text}")
    unpinned = pin(bob, conversation, second, remove=True)
    report.check("unpinning is 201 with remove true, and the message leaves pinned",
                 unpinned.status_code == 201 and unpinned.json()["remove"] is True
                 and pinned(alice, conversation) == [{"clientMessageId": first, "sequence": 1}],
                 unpinned.text)

    key = str(uuid.uuid4())
    retried = [pin(alice, conversation, second, key=key) for _ in range(2)]
    other = pin(alice, conversation, second, remove=True, key=key)
    report.check("a retried pin is 200 with the stored item; the key with remove changed is 409",
                 retried[0].status_code == 201 and retried[1].status_code == 200
                 and retried[1].json() == retried[0].json() and other.status_code == 409,
                 f"{retried[1].text} {other.text}")

    more = []
    for index in range(9):
        key = str(uuid.uuid4())
        alice.send(conversation, f"Note {index}", key)
        more.append(key)
    statuses = [pin(bob, conversation, key).status_code for key in more]
    report.check("a conversation takes 10 pinned messages and the 11th is 422",
                 statuses == [201] * 8 + [422] and len(pinned(bob, conversation)) == 10,
                 str(statuses))

    listed = next(c for c in alice.request("GET", "/v1/conversations").json()["items"]
                  if c["id"] == conversation)
    report.check("a pin is no new activity: lastMessage stays the newest message",
                 listed["lastMessage"]["clientMessageId"] == more[-1]
                 and listed["lastSequence"] > listed["lastMessage"]["sequence"], str(listed))

    deleted = delete(alice, conversation, first)
    report.check("a delete unpins its message, and a deleted message cannot be pinned",
                 deleted.status_code == 201
                 and first not in [p["clientMessageId"] for p in pinned(bob, conversation)]
                 and pin(bob, conversation, first).status_code == 422, str(pinned(bob, conversation)))
    stranger = pin(bob, conversation, str(uuid.uuid4()))
    report.check("a target that is no message of this conversation is 422",
                 stranger.status_code == 422, stranger.text)

    members(alice, conversation, add=["pin-carol"])
    carol = Device(server, "pin-carol")
    report.check("a member added later sees no pin of a message from before it joined",
                 pinned(carol, conversation) == [], str(pinned(carol, conversation)))
    hidden = pin(carol, conversation, more[0], remove=True)
    report.check("unpinning a message the caller cannot see is 422", hidden.status_code == 422,
                 hidden.text)
    dave = Device(server, "pin-dave")
    report.check("a non-member's pin is 404", pin(dave, conversation, more[0]).status_code == 404)
    bad = post(alice, conversation, {"clientMessageId": str(uuid.uuid4()), "kind": "pin",
                                     "target": "not-a-uuid"})
    emoji = post(alice, conversation, {"clientMessageId": str(uuid.uuid4()), "kind": "pin",
                                       "target": more[0], "emoji": "👍"})
    report.check("a pin without a UUID target, or with emoji, is 400",
                 bad.status_code == 400 and emoji.status_code == 400, f"{bad.text} {emoji.text}")
