"""API.md Part 3, "Blocking", over the network (on SQLite and on PostgreSQL):
PUT/DELETE/GET /v1/users/me/blocked; in a one-to-one conversation with someone who blocked
the caller, the caller's posts are 403, its typing dropped and no receipts pass between the two;
groups unchanged; the list in
/v1/sync when it changed, and a `blocked` event on the user's own sockets."""

import uuid

from cases_live import Live
from chatserver import Device, error_code


def blocked(device):
    return device.request("GET", "/v1/users/me/blocked")


def run(report, server):
    report.start_group("blocking")
    alice = Device(server, "block-alice")
    tablet = Device(server, "block-alice", "tablet")
    bob = Device(server, "block-bob")
    carol = Device(server, "block-carol")
    direct = alice.create(["block-bob"], title="Direct")["id"]
    group = alice.create(["block-bob", "block-carol"], title="Group")["id"]
    report.check("no one is blocked at first", blocked(alice).json() == {"userIds": []})
    cursor = tablet.request("GET", "/v1/sync").json()["cursor"]
    tablet_live = Live(tablet)
    sent_before = str(uuid.uuid4())
    first = bob.send(direct, "sent before the block", sent_before)
    put = alice.request("PUT", "/v1/users/me/blocked/block-bob")
    report.check("a block is 204, and the list says so",
                 put.status_code == 204 and blocked(alice).json() == {"userIds": ["block-bob"]})
    event = tablet_live.until(lambda e: e["type"] == "blocked")[-1]
    report.check("the user's other device hears the whole list",
                 event == {"type": "blocked", "userIds": ["block-bob"]}, str(event))
    synced = tablet.request("GET", "/v1/sync", params={"cursor": cursor}).json()
    report.check("/v1/sync answers the list when it changed since the cursor",
                 synced.get("blocked") == ["block-bob"], str(synced))
    again = tablet.request("GET", "/v1/sync", params={"cursor": synced["cursor"]}).json()
    report.check("and leaves it out when it did not", "blocked" not in again, str(again))
    refused = bob.send(direct, "hello?")
    report.check("the blocked user's post in the one-to-one conversation is 403",
                 refused.status_code == 403 and error_code(refused) == "forbidden", refused.text)
    retried = bob.send(direct, "sent before the block", sent_before)
    report.check("a retry of a post accepted before the block is still its stored item (200)",
                 first.status_code == 201 and retried.status_code == 200
                 and retried.json()["sequence"] == first.json()["sequence"], retried.text)
    report.check("in a group a block changes nothing on the server",
                 bob.send(group, "hi all").status_code == 201)
    # No receipts between the two while the block holds, either way; each member's own devices
    # still hear its numbers. The blocked user's own socket hears its read first (a frame goes
    # to all its recipients at once); the blocker's post after it is the sentinel on the
    # blocker's socket, whose events come in order.
    bob_live = Live(bob)
    report.check("the blocker still posts", alice.send(direct, "are you there").status_code == 201)
    last = bob.messages(direct).json()["items"][-1]["sequence"]
    bob.request("POST", f"/v1/conversations/{direct}/read", {"upToSequence": last})

    def receipts_of(user, events):
        return [e for e in events if e["type"] == "receipts" and e["conversationId"] == direct
                and any(m["userId"] == user for m in e["members"])]

    own = bob_live.until(lambda e: bool(receipts_of(bob.user, [e])))
    report.check("the blocked user's own devices still hear its read", bool(own))
    alice.send(direct, "bye")
    tablet_live.until(lambda e: e["type"] == "message" and e["conversationId"] == direct)
    seen = tablet_live.until(lambda e: e["type"] == "message" and e["conversationId"] == direct)
    report.check("the blocked user's read receipt does not reach the blocker's devices",
                 not receipts_of(bob.user, seen), str(receipts_of(bob.user, seen)))
    seen = bob_live.until(lambda e: e["type"] == "message" and e["conversationId"] == direct)
    report.check("nor the blocker's numbers (its post raises them) the blocked user's",
                 not receipts_of(alice.user, own + seen), str(receipts_of(alice.user, own + seen)))
    bob_live.close()
    delete = alice.request("DELETE", "/v1/users/me/blocked/block-bob")
    report.check("an unblock is 204 and the blocked user posts again",
                 delete.status_code == 204 and blocked(alice).json() == {"userIds": []}
                 and bob.send(direct, "hello again").status_code == 201)
    bad = alice.request("PUT", "/v1/users/me/blocked/Not Valid")
    report.check("a malformed user id is 400", bad.status_code == 400, bad.text)
    itself = alice.request("PUT", "/v1/users/me/blocked/block-alice")
    report.check("blocking oneself is 422", itself.status_code == 422, itself.text)
    tablet_live.close()
    carol.close()
