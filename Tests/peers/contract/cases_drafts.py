"""API.md Part 3, "Drafts, on every device of the user", over the network (on SQLite and on
PostgreSQL): a draft per user and conversation, saved on the version the device last had (0
before the first save) and answered with the next; any other base is 409 with the server's
draft; it reaches the user's other devices through /v1/sync and a conversation event on their
sockets, never anyone else."""

import uuid

from cases_groups import members
from cases_live import Live
from chatserver import Device, error_code

DRAFT_FIELDS = {"text", "replyTo", "version", "updatedAt"}


def save(device, conversation, text, base, reply_to=None):
    return device.request("PUT", f"/v1/conversations/{conversation}/draft",
                          {"text": text, "replyTo": reply_to, "baseVersion": base})


def draft_of(device, conversation):
    listed = device.request("GET", "/v1/conversations").json()["items"]
    item = next(c for c in listed if c["id"] == conversation)
    return item["draft"] if "draft" in item else "absent"


def run(report, server):
    report.start_group("drafts")
    phone = Device(server, "draft-alice")
    tablet = Device(server, "draft-alice", "tablet")
    bob = Device(server, "draft-bob")
    conversation = phone.create(["draft-bob"], title="Drafts")["id"]
    report.check("there is no draft before the first save (draft null)",
                 draft_of(phone, conversation) is None, str(draft_of(phone, conversation)))
    cursor = tablet.request("GET", "/v1/sync").json()["cursor"]
    tablet_live = Live(tablet)
    answered = str(uuid.uuid4())
    bob.send(conversation, "Dinner at eight?", answered)

    first = save(phone, conversation, "Sounds g", 0, reply_to=answered)
    report.check("the first save, on version 0, is 200 with version 1 and updatedAt",
                 first.status_code == 200 and set(first.json()) == {"version", "updatedAt"}
                 and first.json()["version"] == 1, first.text)
    event = tablet_live.until(lambda e: e["type"] == "conversation"
                              and (e["conversation"].get("draft") or {}).get("version") == 1)[-1]
    report.check("the user's other device hears of it in a conversation event",
                 event["conversation"]["draft"]["text"] == "Sounds g"
                 and event["conversation"]["draft"]["replyTo"] == answered, str(event))
    synced = tablet.request("GET", "/v1/sync", params={"cursor": cursor}).json()
    drafts = [c.get("draft") for c in synced["conversations"] if c["id"] == conversation]
    report.check("/v1/sync brings it to the other device, whole",
                 len(drafts) == 1 and set(drafts[0]) == DRAFT_FIELDS
                 and drafts[0]["text"] == "Sounds g" and drafts[0]["version"] == 1, str(synced))

    second = save(tablet, conversation, "Sounds good", 1, reply_to=answered)
    report.check("a save on the server's version answers the next",
                 second.status_code == 200 and second.json()["version"] == 2, second.text)
    stale = save(phone, conversation, "Sounds great", 1, reply_to=answered)
    body = stale.json() if stale.status_code == 409 else {}
    report.check("a save on an older version is 409 with the server's draft in the body",
                 stale.status_code == 409 and error_code(stale) == "conflict"
                 and body.get("draft", {}).get("text") == "Sounds good"
                 and body["draft"]["version"] == 2 and body["draft"]["replyTo"] == answered
                 and set(body["draft"]) == DRAFT_FIELDS, stale.text)
    ahead = save(phone, conversation, "Sounds great", 7)
    report.check("a save on a version the server never had is 409 too",
                 ahead.status_code == 409 and ahead.json()["draft"]["version"] == 2, ahead.text)
    report.check("the refused saves changed nothing",
                 draft_of(phone, conversation)["text"] == "Sounds good"
                 and draft_of(phone, conversation)["version"] == 2)

    report.check("a draft is never visible to another user",
                 draft_of(bob, conversation) is None, str(draft_of(bob, conversation)))
    bob_live = Live(bob)
    save(phone, conversation, "Sounds good!", 2, reply_to=answered)
    tablet_live.until(lambda e: e["type"] == "conversation"
                      and (e["conversation"].get("draft") or {}).get("version") == 3)
    bob.send(conversation, "Marker")
    heard = bob_live.until(lambda e: e["type"] == "message" and e["message"]["text"] == "Marker")
    report.check("nor heard on another user's sockets",
                 not [e for e in heard if e["type"] == "conversation"], str(heard))
    bob_live.close()

    cleared = save(phone, conversation, "", 3)
    report.check("\"\" with replyTo null clears it: the draft keeps its version, empty",
                 cleared.status_code == 200 and cleared.json()["version"] == 4
                 and draft_of(tablet, conversation)["text"] == ""
                 and draft_of(tablet, conversation)["replyTo"] is None
                 and draft_of(tablet, conversation)["version"] == 4, cleared.text)

    long_text = save(phone, conversation, "x" * 4097, 4)
    report.check("a text over 4,096 scalars is 413", long_text.status_code == 413, long_text.text)
    scalars = save(phone, conversation, "é" * 4096, 4)
    report.check("4,096 scalars are taken", scalars.status_code == 200, scalars.text)
    bad_reply = save(phone, conversation, "hi", 5, reply_to="not-a-uuid")
    no_base = phone.request("PUT", f"/v1/conversations/{conversation}/draft", {"text": "hi"})
    negative = save(phone, conversation, "hi", -1)
    report.check("a replyTo that is not a UUID, or no baseVersion, is 400; a negative one 422",
                 bad_reply.status_code == 400 and no_base.status_code == 400
                 and negative.status_code == 422,
                 f"{bad_reply.text} {no_base.text} {negative.text}")
    eve = Device(server, "draft-eve")
    report.check("a user who is not a member gets 404",
                 error_code(save(eve, conversation, "hi", 0)) == "not_found")
    members(phone, conversation, remove=["draft-alice"])
    report.check("a former member's save is 403",
                 save(phone, conversation, "hi", 5).status_code == 403)
    tablet_live.close()
