"""API.md Part 3, "Forwarding", over the network (on SQLite and on PostgreSQL): a message posted
with forwardOf carries a copy of the current text and media of a message the sender can see,
`forwarded: true` and nothing of where it came from; the media bytes are shared by key and live
while any message carrying them does."""

import hashlib
import os
import uuid

import httpx

from cases_media import post, uploaded
from chatserver import Device, Server


def forward(device, conversation, source_conversation, source_id, client_message_id=None, **extra):
    return device.request("POST", f"/v1/conversations/{conversation}/messages", {
        "clientMessageId": client_message_id or str(uuid.uuid4()),
        "forwardOf": {"conversationId": source_conversation, "clientMessageId": source_id},
        **extra})


def delete(device, conversation, target):
    return device.request("POST", f"/v1/conversations/{conversation}/messages", {
        "clientMessageId": str(uuid.uuid4()), "kind": "delete", "target": target})


def run(report):
    with Server("--dev", "--object-store-port", "0") as server:
        report.start_group("forwarding")
        alice = Device(server, "fwd-alice")
        bob = Device(server, "fwd-bob")
        carol = Device(server, "fwd-carol")
        dave = Device(server, "fwd-dave")
        source = alice.create([bob.user], title="Source")["id"]
        target = bob.create([carol.user], title="Target")["id"]
        elsewhere = carol.create([dave.user], title="Elsewhere")["id"]
        original_id = str(uuid.uuid4())
        original = alice.send(source, "the plan, @fwd-bob", original_id).json()
        alice.request("POST", f"/v1/conversations/{source}/messages", {
            "clientMessageId": str(uuid.uuid4()), "kind": "edit", "target": original_id,
            "text": "the new plan, @fwd-carol"})
        bob.request("POST", f"/v1/conversations/{source}/messages", {
            "clientMessageId": str(uuid.uuid4()), "kind": "reaction", "target": original_id,
            "emoji": "👍"})
        forward_id = str(uuid.uuid4())
        sent = forward(bob, target, source, original_id, forward_id)
        body = sent.json()
        report.check("a forward is 201, a message of the forwarder with the current text",
                     sent.status_code == 201 and body["senderId"] == bob.user
                     and body["text"] == "the new plan, @fwd-carol" and body["forwarded"] is True,
                     sent.text[:300])
        report.check("and nothing of the original: no replyTo, no reactions, no edit, its own id",
                     body["replyTo"] is None and body["reactions"] == [] and not body.get("editedAt")
                     and body["clientMessageId"] == forward_id
                     and source not in sent.text and alice.user not in sent.text, sent.text[:300])
        report.check("its mentions are of the members where it is posted",
                     body["mentions"] == [carol.user], str(body["mentions"]))
        again = forward(bob, target, source, original_id, forward_id)
        report.check("its retry is 200, the same message",
                     again.status_code == 200 and again.json()["sequence"] == body["sequence"],
                     again.text[:200])
        second_id = alice.send(source, "another plan").json()["clientMessageId"]
        report.expect_error("the same clientMessageId forwarding another message is 409",
                            forward(bob, target, source, second_id, forward_id), 409, "conflict")
        served = carol.request("GET", f"/v1/conversations/{target}/messages").json()["items"][-1]
        report.check("a member of the other conversation is served it with forwarded true",
                     served["forwarded"] is True and served["text"] == body["text"], str(served))
        plain = alice.send(source, "not forwarded").json()
        report.check("an ordinary message says forwarded false", plain["forwarded"] is False)
        report.expect_error("forwarding from a conversation the sender was never in is 404",
                            forward(carol, target, source, original_id), 404, "not_found")
        report.expect_error("forwarding a message that does not exist is 422",
                            forward(bob, target, source, str(uuid.uuid4())), 422, "invalid")
        report.expect_error("forwardOf with text too is 400",
                            forward(bob, target, source, original_id, text="mine"), 400, "bad_request")
        report.expect_error("forwardOf with a malformed clientMessageId is 400",
                            forward(bob, target, source, "nope"), 400, "bad_request")
        report.expect_error("forwarding into a conversation the sender is not in is 404",
                            forward(bob, elsewhere, source, original_id), 404, "not_found")
        # A member added later cannot see what came before it joined.
        alice.request("POST", f"/v1/conversations/{source}/members",
                      {"clientMessageId": str(uuid.uuid4()), "add": [dave.user]})
        report.expect_error("forwarding a message outside the sender's visible ranges is 422",
                            forward(dave, elsewhere, source, original_id), 422, "invalid")
        gone_id = alice.send(source, "soon gone").json()["clientMessageId"]
        delete(alice, source, gone_id)
        report.expect_error("forwarding a deleted message is 422",
                            forward(bob, target, source, gone_id), 422, "invalid")
        run_media(report, server, alice, bob, carol, source, target)


def run_media(report, server, alice, bob, carol, source, target):
    photo = os.urandom(30_000)
    sha = hashlib.sha256(photo).hexdigest()
    key = uploaded(server, alice, photo)
    media = {"key": key, "kind": "image", "contentType": "image/jpeg", "byteCount": len(photo),
             "sha256": sha, "width": 800, "height": 600}
    photo_id = str(uuid.uuid4())
    sent = post(alice, source, "a photo", media, photo_id)
    assert sent.status_code == 201, sent.text
    forwarded = forward(bob, target, source, photo_id).json()
    report.check("a forwarded photo carries the same media, by the same key",
                 forwarded.get("media") == media, str(forwarded.get("media")))

    def downloads(device):
        answer = device.request("GET", f"/v1/media/{key}")
        if answer.status_code != 200:
            return answer.status_code
        got = httpx.get(answer.json()["url"], verify=server.verify)
        return hashlib.sha256(got.content).hexdigest() if got.status_code == 200 else got.status_code

    report.check("a member of the forward's conversation only downloads it, with its sha256",
                 downloads(carol) == sha)
    url = carol.request("GET", f"/v1/media/{key}").json()["url"]
    delete(alice, source, photo_id)
    report.check("after the original's delete the forward's photo still downloads, the same bytes",
                 downloads(carol) == sha and downloads(bob) == sha)
    report.expect_error("but not for whom only the deleted original carried it",
                        alice.request("GET", f"/v1/media/{key}"), 404, "not_found")
    delete(bob, target, forwarded["clientMessageId"])
    report.expect_error("after both are deleted nobody may download it",
                        carol.request("GET", f"/v1/media/{key}"), 404, "not_found")
    # The built-in store answers a missing key 404, S3 403 to who may not list: no bytes.
    gone = httpx.get(url, verify=server.verify)
    report.check("and its bytes are gone from the store (the old URL finds nothing)",
                 gone.status_code in (403, 404) and b"<Error>" in gone.content, str(gone.status_code))
