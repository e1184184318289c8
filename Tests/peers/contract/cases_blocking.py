"""API.md Part 3, "Blocking", over the network (on SQLite and on PostgreSQL):
PUT/DELETE/GET /v1/users/me/blocked; in a one-to-one conversation with someone who blocked
the caller, the caller's posts are 403 and its typing dropped; groups unchanged; the list in
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
    report.check("the blocker still posts", alice.send(direct, "bye").status_code == 201)
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
