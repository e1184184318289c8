"""API.md Part 2, "Groups that change": members and title items in the log, who may change what,
the 1–256 limit, idempotent retries, and visibility: a user sees exactly the items written while
it was a member, on every route, in paging and on its sockets from the moment of the change."""

import time
import uuid

from cases_live import Live
from chatserver import Device, error_code


def members(device, conversation, add=(), remove=(), key=None):
    body = {"clientMessageId": key or str(uuid.uuid4())}
    if add:
        body["add"] = list(add)
    if remove:
        body["remove"] = list(remove)
    return device.request("POST", f"/v1/conversations/{conversation}/members", body)


def title(device, conversation, text, key=None):
    return device.request("PATCH", f"/v1/conversations/{conversation}",
                          {"clientMessageId": key or str(uuid.uuid4()), "title": text})


def listed(device, conversation):
    items = device.request("GET", "/v1/conversations").json()["items"]
    return next((item for item in items if item["id"] == conversation), None)


def sequences(device, conversation, **params):
    return [item["sequence"] for item in device.messages(conversation, **params).json()["items"]]


def is_item(conversation, sequence):
    return lambda event: (event["type"] == "message" and event["message"]["conversationId"]
                          == conversation and event["message"]["sequence"] == sequence)


def is_typing(conversation, user):
    return lambda event: (event["type"] == "typing" and event["conversationId"] == conversation
                          and event["userId"] == user)


def about(frame):
    """The conversation a live frame is about."""
    return frame.get("conversationId") or frame.get("message", {}).get("conversationId") \
        or frame.get("conversation", {}).get("id")


def run(report, server):
    report.start_group("groups")
    alice = Device(server, "grp-alice")
    bob = Device(server, "grp-bob")
    carol = Device(server, "grp-carol")
    dave = Device(server, "grp-dave")
    eve = Device(server, "grp-eve")
    group = alice.create(["grp-bob", "grp-carol"], title="Hike")["id"]
    # A conversation bob stays in: its items are the sentinels that prove bob's socket got
    # nothing of the group before them.
    side = alice.create(["grp-bob"], title="Side")["id"]
    for text in ("one", "two"):
        alice.send(group, text)

    # Adding: the item, its retry, a key reused.
    dave_live = Live(dave)
    key = str(uuid.uuid4())
    added = members(alice, group, add=["grp-dave"], key=key)
    item = added.json()
    report.check("adding a member is 201 with a members item",
                 added.status_code == 201 and item["kind"] == "members"
                 and item["added"] == ["grp-dave"] and item["removed"] == [] and item["text"] == ""
                 and item["sequence"] == 3, added.text)
    joined = item["sequence"]
    retry = members(alice, group, add=["grp-dave"], key=key)
    report.check("the same members request again is 200 with the stored item",
                 retry.status_code == 200 and retry.json() == item, retry.text)
    reused = members(alice, group, add=["grp-eve"], key=key)
    report.check("the key with another request is 409",
                 reused.status_code == 409 and error_code(reused) == "conflict", reused.text)

    # The added member's socket: the conversation first, then the item that added it.
    events = dave_live.until(is_item(group, joined))
    report.check("an added member's socket gets the conversation, then the members item",
                 [event["type"] for event in events] == ["conversation", "message"]
                 and events[0]["conversation"]["id"] == group, str(events))
    seen = listed(dave, group)
    report.check("the added member's item: visible from the members item, a member",
                 seen is not None and seen["visible"] == [[joined, None]]
                 and seen["membership"] == "member" and "grp-dave" in seen["memberIds"]
                 and seen["createdBy"] == "grp-alice" and seen["lastMessage"] is None,
                 str(seen))
    report.check("a user added at J pages nothing below J",
                 sequences(dave, group, after=0) == [joined]
                 and sequences(dave, group) == [joined]
                 and sequences(dave, group, before=joined) == [], str(sequences(dave, group)))
    message = alice.send(group, "welcome dave").json()
    report.check("the added member's socket gets what follows",
                 bool(dave_live.until(is_item(group, message["sequence"]))))

    # Removing: only with the right; the removed member's socket gets the item, then nothing.
    denied = members(carol, group, remove=["grp-dave"])
    report.check("removing another member without the right is 403",
                 denied.status_code == 403 and error_code(denied) == "forbidden", denied.text)
    bob_live = Live(bob)
    alice_live = Live(alice)
    removed = members(alice, group, remove=["grp-bob"])
    removal = removed.json()["sequence"]
    report.check("the creator removes a member: 201", removed.status_code == 201
                 and removed.json()["removed"] == ["grp-bob"], removed.text)
    alice.send(side, "side news")
    alice.send(group, "after bob left")
    order = [item["id"] for item in bob.request("GET", "/v1/conversations").json()["items"]]
    report.check("a former member's list orders by the activity it saw, not what came later",
                 order.index(side) < order.index(group), str(order))
    alice_live.typing(group)
    # alice's typing in the side conversation reaches bob after everything above (one socket
    # of hers, handled in order): what bob's socket got before it is all it got of the group.
    alice_live.typing(side)
    frames = bob_live.until(is_typing(side, "grp-alice"))[:-1]
    # Before the item, the socket may still carry what was owed to bob as a member (alice's
    # coalesced receipts of her last send are flushed a moment later, as they may be).
    of_group = [(f["type"], f.get("message", {}).get("sequence")) for f in frames
                if about(f) == group]
    at = of_group.index(("message", removal)) if ("message", removal) in of_group else None
    report.check("a removed member's socket gets the members item, then nothing of the group",
                 at is not None and of_group[at:] == [("message", removal)]
                 and all(kind == "receipts" or (sequence or 0) < removal
                         for kind, sequence in of_group[:at]), str(frames))
    report.check("a removed member posts nothing: 403",
                 error_code(bob.send(group, "still here?")) == "forbidden")
    report.check("a removed member sends no receipts: 403",
                 error_code(bob.mark("read", group, 1)) == "forbidden"
                 and error_code(bob.receipts(group)) == "forbidden")
    report.check("a removed member changes no members and no title: 403",
                 error_code(members(bob, group, add=["grp-eve"])) == "forbidden"
                 and error_code(title(bob, group, "mine now")) == "forbidden")
    gone = listed(bob, group)
    report.check("a removed member keeps the conversation: removed, visible up to the removal",
                 gone is not None and gone["membership"] == "removed"
                 and gone["visible"] == [[1, removal]] and gone["lastSequence"] == removal
                 and gone["lastMessage"]["text"] == "welcome dave", str(gone))
    report.check("a removed member reads what it saw, and nothing after",
                 sequences(bob, group, after=0) == list(range(1, removal + 1)),
                 str(sequences(bob, group, after=0)))
    report.check("a user who was never a member gets 404",
                 error_code(members(eve, group, add=["grp-eve"])) == "not_found"
                 and error_code(eve.messages(group)) == "not_found")
    bob_live.typing(group)
    bob_live.typing(side)
    typed = alice_live.until(is_typing(side, "grp-bob"))[:-1]
    report.check("a removed member's typing is not relayed",
                 [f for f in typed if f["type"] == "typing" and about(f) == group] == [],
                 str(typed))

    # Removed and added again: two ranges.
    back = members(carol, group, add=["grp-bob"]).json()["sequence"]
    again = listed(bob, group)
    report.check("removed and added again sees two ranges",
                 again["visible"] == [[1, removal], [back, None]]
                 and again["membership"] == "member", str(again))
    report.check("paging skips the gap between the ranges",
                 sequences(bob, group, after=0) == list(range(1, removal + 1)) + [back],
                 str(sequences(bob, group, after=0)))

    # The 422s and 400s.
    report.check("adding a member who is in changes nothing: 422",
                 error_code(members(alice, group, add=["grp-carol"])) == "invalid")
    report.check("removing a user who is not in changes nothing: 422",
                 error_code(members(alice, group, remove=["grp-eve"])) == "invalid")
    report.check("a request with no change is 422", error_code(members(alice, group)) == "invalid")
    report.check("a malformed user id is 400",
                 error_code(members(alice, group, add=["Not Valid"])) == "bad_request")
    report.check("adding and removing one user is 400",
                 error_code(members(alice, group, add=["grp-eve"], remove=["grp-eve"]))
                 == "bad_request")
    big = alice.create([f"grp-m{n}" for n in range(255)], title="Full")["id"]
    full = members(alice, big, add=["grp-eve"])
    report.check("past 256 members is 422", full.status_code == 422, full.text)
    alone = alice.create([], title="Alone")["id"]
    report.check("the last member cannot leave: 422",
                 error_code(members(alice, alone, remove=["grp-alice"])) == "invalid")

    # Titles.
    key = str(uuid.uuid4())
    renamed = title(carol, group, "Sunday hike", key)
    report.check("any member changes the title: 201 with a title item",
                 renamed.status_code == 201 and renamed.json()["kind"] == "title"
                 and renamed.json()["title"] == "Sunday hike", renamed.text)
    report.check("the title retried is 200", title(carol, group, "Sunday hike", key).status_code
                 == 200)
    report.check("the title key with another title is 409",
                 title(carol, group, "Monday hike", key).status_code == 409)
    report.check("the list shows the new title", listed(dave, group)["title"] == "Sunday hike")
    report.check("an empty title is 422", error_code(title(carol, group, "")) == "invalid")
    report.check("a title of 201 characters is 422",
                 error_code(title(carol, group, "x" * 201)) == "invalid")
    report.check("a user who was never a member changes no title: 404",
                 error_code(title(eve, group, "x")) == "not_found")

    # Leaving, and the right passing on.
    key = str(uuid.uuid4())
    left = members(alice, group, remove=["grp-alice"], key=key)
    report.check("anyone may leave: 201", left.status_code == 201, left.text)
    report.check("who left says left", listed(alice, group)["membership"] == "left")
    again = members(alice, group, remove=["grp-alice"], key=key)
    report.check("leaving retried after the lost answer is 200, not 403",
                 again.status_code == 200 and again.json() == left.json(), again.text)
    report.check("a former member's new title is 403 before its length is looked at",
                 error_code(title(alice, group, "")) == "forbidden")
    before = listed(alice, group)
    title(carol, group, "Without alice")
    members(carol, group, add=["grp-eve"])
    after = listed(alice, group)
    report.check("a former member sees the title and members of when it left, not later ones",
                 after["title"] == "Sunday hike" == before["title"]
                 and after["memberIds"] == before["memberIds"]
                 and "grp-eve" not in after["memberIds"] and "grp-alice" not in after["memberIds"],
                 str(after))
    # The creator is gone: carol has been in longest (since 1; bob came back later).
    report.check("the right passes to the member in longest",
                 members(carol, group, remove=["grp-dave"]).status_code == 201
                 and error_code(members(bob, group, remove=["grp-carol"])) == "forbidden")
    for live in (dave_live, bob_live, alice_live):
        live.close()


def mute(device, conversation, until):
    return device.request("PUT", f"/v1/conversations/{conversation}/mute", {"until": until})


def run_mute(report, server):
    """API.md Part 2, "Mute": per user, every device; the conversation item carries the caller's
    own `mutedUntil`, in /v1/sync and as a conversation event on the caller's sockets."""
    report.start_group("mute")
    alice = Device(server, "mute-alice")
    tablet = Device(server, "mute-alice", "tablet")
    bob = Device(server, "mute-bob")
    eve = Device(server, "mute-eve")
    conversation = alice.create(["mute-bob"], title="Noisy")["id"]
    cursor = alice.request("GET", "/v1/sync").json()["cursor"]
    tablet_live = Live(tablet)
    until = "2026-12-24T08:00:00.000Z"
    muted = mute(alice, conversation, until)
    report.check("muting until a time is 204", muted.status_code == 204, muted.text)
    event = tablet_live.until(lambda e: e["type"] == "conversation")[-1]
    report.check("the caller's other device hears of it",
                 event["conversation"]["mutedUntil"] == until, str(event))
    changed = alice.request("GET", "/v1/sync", params={"cursor": cursor}).json()
    report.check("/v1/sync brings the change",
                 [c["mutedUntil"] for c in changed["conversations"]] == [until], str(changed))
    report.check("it is the caller's alone",
                 listed(bob, conversation).get("mutedUntil") is None)
    report.check("forever is 204 and says forever",
                 mute(alice, conversation, "forever").status_code == 204
                 and listed(alice, conversation)["mutedUntil"] == "forever")
    report.check("null unmutes",
                 mute(alice, conversation, None).status_code == 204
                 and listed(alice, conversation).get("mutedUntil") is None)
    report.check("a time that is not RFC 3339 is 400",
                 error_code(mute(alice, conversation, "next week")) == "bad_request")
    report.check("no until is 400",
                 error_code(alice.request("PUT", f"/v1/conversations/{conversation}/mute", {}))
                 == "bad_request")
    report.check("a user who is not a member gets 404",
                 error_code(mute(eve, conversation, "forever")) == "not_found")
    tablet_live.close()


def run_receipts_burst(report, server):
    """API.md Part 2, "Read by N": each socket gets at most one `receipts` event per
    conversation per 250 ms, carrying every member whose numbers changed in that window. The
    issue's case: a group of 256, whose 255 other members read a burst; the sender's socket
    gets at most 4 frames a second (and one for the window the burst starts in)."""
    report.start_group("receipts burst")
    alice = Device(server, "burst-alice")
    readers = [Device(server, f"burst-r{n}") for n in range(255)]
    created = alice.create([reader.user for reader in readers], title="Burst")
    group = created["id"]
    report.check("the group holds 256 members", len(created["memberIds"]) == 256,
                 str(len(created["memberIds"])))
    alice.send(group, "everyone read this")
    live = Live(alice)
    started = time.monotonic()
    for reader in readers:
        reader.mark("read", group, 1)
    elapsed = time.monotonic() - started
    frames, seen = [], set()
    while seen != {reader.user for reader in readers}:
        frame = live.next()
        if frame["type"] == "receipts" and frame["conversationId"] == group:
            frames.append(frame)
            seen |= {member["userId"] for member in frame["members"] if member["readUpTo"] >= 1}
    # Each node coalesces the receipts posted to it: with several nodes, one frame per 250 ms
    # from each.
    nodes = len(getattr(server, "nodes", [server]))
    allowed = (2 + int(elapsed / 0.25)) * nodes
    report.check(f"{len(readers)} members reading reach the sender as {len(frames)} frames "
                 f"(at most {allowed} in {elapsed:.2f} s: one per 250 ms per node)",
                 len(frames) <= allowed and len(frames) < len(readers), str(len(frames)))
    report.check("each frame carries every member whose numbers changed in its window",
                 sum(len(frame["members"]) for frame in frames) >= len(readers))
    live.close()
