"""API.md Part 2, "Items" and "Edits and deletes": every item of the log has Item's shape, an
edit or delete is an item of its own, only the target's sender may post one, and a delete
erases the text of the message and of its edits from the server's database file."""

import os
import sqlite3
import time
import uuid

from cases_live import Live
from chatserver import Device, error_code, psql

ITEM_FIELDS = {"id", "clientMessageId", "conversationId", "senderId", "sequence", "sentAt", "kind",
               "text", "media", "editedAt", "deleted", "target", "added", "removed", "title"}
# API.md Part 3: a message also carries its reactions; a reaction item its emoji and remove.
MESSAGE_ITEM_FIELDS = ITEM_FIELDS | {"reactions", "replyTo", "mentions", "forwarded"}
REACTION_ITEM_FIELDS = ITEM_FIELDS | {"emoji", "remove"}


def post(device, conversation, body):
    return device.request("POST", f"/v1/conversations/{conversation}/messages", body)


def edit(device, conversation, target, text, key=None):
    return post(device, conversation, {"clientMessageId": key or str(uuid.uuid4()), "kind": "edit",
                                       "target": target, "text": text})


def delete(device, conversation, target, key=None):
    return post(device, conversation, {"clientMessageId": key or str(uuid.uuid4()),
                                       "kind": "delete", "target": target})


def erased(server, timeout=20):
    """Waits until the server says no erasure is owed (`chat_store_erasure_owed 0` in /metrics:
    the pass that merges the search indexes and empties the log after a delete or an edit)."""
    deadline = time.monotonic() + timeout
    with server.client() as client:
        while time.monotonic() < deadline:
            if "\nchat_store_erasure_owed 0\n" in client.get("/metrics").text:
                return True
            time.sleep(0.05)
    return False


def database_files_hold(server, text):
    """Whether the server's database file or its write-ahead log holds `text`, byte for byte."""
    needle = text.encode()
    path = os.path.join(server.data, "chat.sqlite")
    for name in (path, path + "-wal"):
        if os.path.exists(name):
            with open(name, "rb") as handle:
                if needle in handle.read():
                    return True
    return False


def rows_holding(server, text):
    """Rows of the server's messages table whose text holds `text`, read with sqlite3 (psql
    when the server keeps its data in PostgreSQL)."""
    if server.database_url:
        return int(psql(server.database_url,
                        "SELECT count(*) FROM messages WHERE strpos(text, :'v1') > 0", text))
    path = os.path.join(server.data, "chat.sqlite")
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return connection.execute("SELECT count(*) FROM messages WHERE instr(text, ?) > 0",
                                  (text,)).fetchone()[0]
    finally:
        connection.close()


def run_edits(report, server):
    report.start_group("edits and deletes")
    alice = Device(server, "items-alice")
    bob = Device(server, "items-bob")
    carol = Device(server, "items-carol")
    conversation = alice.create(["items-bob"], title="Items")["id"]
    bob_live = Live(bob)
    original = str(uuid.uuid4())
    sent = alice.send(conversation, "Meet at the old lighthouse", original).json()
    report.check("a message is an Item of kind message with every field",
                 set(sent) == MESSAGE_ITEM_FIELDS and sent["kind"] == "message"
                 and sent["deleted"] is False and sent["reactions"] == []
                 and sent["editedAt"] is None and sent["target"] is None and sent["added"] == []
                 and sent["removed"] == [] and sent["title"] is None and sent["media"] is None,
                 str(sent))

    edited = edit(alice, conversation, original, "Meet at the new pier")
    item = edited.json()
    report.check("an edit is 201 with an item of its own", edited.status_code == 201 and
                 item["kind"] == "edit" and item["target"] == original and
                 item["text"] == "Meet at the new pier" and item["sequence"] == 2 and
                 set(item) == ITEM_FIELDS, edited.text)
    page = alice.messages(conversation).json()["items"]
    report.check("GET serves the message in its current state, then the edit",
                 [i["kind"] for i in page] == ["message", "edit"] and
                 page[0]["text"] == "Meet at the new pier" and page[0]["editedAt"] == item["sentAt"],
                 str(page))
    listed = next(c for c in alice.request("GET", "/v1/conversations").json()["items"]
                  if c["id"] == conversation)
    report.check("lastMessage is the newest message in its current state; lastSequence counts the edit",
                 listed["lastMessage"]["sequence"] == 1 and
                 listed["lastMessage"]["text"] == "Meet at the new pier" and listed["lastSequence"] == 2,
                 str(listed))
    events = bob_live.until(lambda e: e["type"] == "message" and e["message"]["kind"] == "edit")
    report.check("bob's socket gets the edit item live", events[-1]["message"] == item, str(events[-1]))

    key = str(uuid.uuid4())
    first = edit(alice, conversation, original, "Meet at the pier at ten", key)
    again = edit(alice, conversation, original, "Meet at the pier at ten", key)
    report.check("a retried edit is 200 with the stored item",
                 first.status_code == 201 and again.status_code == 200 and again.json() == first.json(),
                 again.text)
    other = edit(alice, conversation, original, "Another text", key)
    report.check("the same key with another text is 409 conflict",
                 other.status_code == 409 and error_code(other) == "conflict", other.text)

    forbidden = edit(bob, conversation, original, "Hijacked")
    report.check("editing someone else's message is 403 forbidden",
                 forbidden.status_code == 403 and error_code(forbidden) == "forbidden", forbidden.text)
    forbidden = delete(bob, conversation, original)
    report.check("deleting someone else's message is 403 forbidden", forbidden.status_code == 403,
                 forbidden.text)
    outsider = edit(carol, conversation, original, "Hello?")
    report.check("a non-member's edit is 404", outsider.status_code == 404, outsider.text)
    unknown = edit(alice, conversation, str(uuid.uuid4()), "x")
    report.check("an unknown target is 422", unknown.status_code == 422 and
                 error_code(unknown) == "invalid", unknown.text)
    not_message = edit(alice, conversation, item["clientMessageId"], "x")
    report.check("a target that is not a message is 422", not_message.status_code == 422, not_message.text)
    empty = edit(alice, conversation, original, "")
    report.check("an empty edit is 422", empty.status_code == 422, empty.text)
    longest = edit(alice, conversation, original, "é" * 4096)
    too_long = edit(alice, conversation, original, "é" * 4097)
    report.check("an edit holds 1-4,096 Unicode scalars (4,097: 413)",
                 longest.status_code == 201 and too_long.status_code == 413, too_long.text)
    malformed = edit(alice, conversation, "not-a-uuid", "x")
    report.check("a malformed target is 400", malformed.status_code == 400, malformed.text)

    # PostgreSQL keeps dead row versions until VACUUM and its WAL until recycled: on it the
    # promise is the rows' (docs/erasure.md, "On PostgreSQL").
    on_files = server.database_url is None
    if on_files:
        report.check("after the edits, the erasure pass is done", erased(server))
        report.check("before the delete the file holds the edits' texts (the check can see them)",
                     database_files_hold(server, "Meet at the new pier") and
                     database_files_hold(server, "Meet at the pier at ten"))
        report.check("an edit erased the text it replaced from the file",
                     not database_files_hold(server, "old lighthouse"))
    else:
        report.check("before the delete rows hold the edits' texts (the check can see them)",
                     rows_holding(server, "pier") > 0)
    delete_key = str(uuid.uuid4())
    deleted = delete(alice, conversation, original, delete_key)
    tombstone_page = alice.messages(conversation).json()["items"]
    report.check("a delete is 201 with an item of its own and no text",
                 deleted.status_code == 201 and deleted.json()["kind"] == "delete" and
                 deleted.json()["text"] == "" and deleted.json()["target"] == original, deleted.text)
    report.check("the message is a tombstone and its edits lost their text",
                 tombstone_page[0]["deleted"] is True and
                 all(i["text"] == "" for i in tombstone_page), str(tombstone_page))
    report.check("the database has no row holding the deleted texts",
                 rows_holding(server, "lighthouse") == 0 and rows_holding(server, "pier") == 0)
    if on_files:
        report.check("after the delete, the erasure pass is done", erased(server))
        report.check("neither the database file nor its log holds the deleted texts",
                     not database_files_hold(server, "old lighthouse") and
                     not database_files_hold(server, "Meet at the new pier") and
                     not database_files_hold(server, "Meet at the pier at ten"))
    retry = delete(alice, conversation, original, delete_key)
    report.check("a retried delete is 200", retry.status_code == 200 and retry.json() == deleted.json(),
                 retry.text)
    late_edit = edit(alice, conversation, original, "Too late")
    twice = delete(alice, conversation, original)
    report.check("editing or deleting a deleted message is 422",
                 late_edit.status_code == 422 and twice.status_code == 422, late_edit.text + twice.text)
    resent = alice.send(conversation, "Meet at the old lighthouse", original)
    report.check("a retry of the deleted message is 200 with its tombstone",
                 resent.status_code == 200 and resent.json()["deleted"] is True, resent.text)
    bob_live.close()


def react(device, conversation, target, emoji, remove=None, key=None):
    body = {"clientMessageId": key or str(uuid.uuid4()), "kind": "reaction", "target": target,
            "emoji": emoji}
    if remove is not None:
        body["remove"] = remove
    return post(device, conversation, body)


def run_reactions(report, server):
    """API.md Part 3, "Reactions", over the network (on SQLite and on PostgreSQL)."""
    report.start_group("reactions")
    alice = Device(server, "react-alice")
    bob = Device(server, "react-bob")
    conversation = alice.create(["react-bob"], title="Reactions")["id"]
    bob_live = Live(bob)
    message = str(uuid.uuid4())
    alice.send(conversation, "Lunch at one?", message)

    def reactions():
        page = bob.messages(conversation).json()["items"]
        return next(i for i in page if i["clientMessageId"] == message)["reactions"]

    thumbs = react(bob, conversation, message, "👍")
    item = thumbs.json()
    report.check("a reaction is 201 with an item of its own",
                 thumbs.status_code == 201 and set(item) == REACTION_ITEM_FIELDS
                 and item["kind"] == "reaction" and item["emoji"] == "👍" and item["remove"] is False
                 and item["target"] == message and item["text"] == "" and item["sequence"] == 2,
                 thumbs.text)
    react(alice, conversation, message, "❤️")
    react(alice, conversation, message, "👍")
    report.check("the message carries its reactions, each emoji in the order it first came",
                 reactions() == [{"emoji": "👍", "userIds": ["react-bob", "react-alice"]},
                                 {"emoji": "❤️", "userIds": ["react-alice"]}], str(reactions()))
    events = bob_live.until(lambda e: e["type"] == "message" and e["message"]["kind"] == "reaction")
    report.check("a reaction goes live as an item", events[-1]["message"]["emoji"] in ("👍", "❤️"),
                 str(events[-1]))

    again = react(bob, conversation, message, "👍")
    absent = react(bob, conversation, message, "❤️", remove=True)
    report.check("a reaction that changes nothing is 422 (adding one I have, removing one I have not)",
                 again.status_code == 422 and error_code(again) == "invalid"
                 and absent.status_code == 422, f"{again.text} {absent.text}")
    back = react(bob, conversation, message, "👍", remove=True)
    report.check("taking one back is 201 with remove true, and the message loses it",
                 back.status_code == 201 and back.json()["remove"] is True
                 and reactions()[0]["userIds"] == ["react-alice"], back.text)

    key = str(uuid.uuid4())
    first = react(bob, conversation, message, "🎉", key=key)
    retry = react(bob, conversation, message, "🎉", key=key)
    other = react(bob, conversation, message, "🎈", key=key)
    report.check("a retried reaction is 200 with the stored item; the key with another emoji is 409",
                 first.status_code == 201 and retry.status_code == 200 and retry.json() == first.json()
                 and other.status_code == 409, f"{retry.text} {other.text}")

    two = react(bob, conversation, message, "👍👍")
    word = react(bob, conversation, message, "ok")
    long = react(bob, conversation, message, "👍" + "\u0301" * 14)
    longer = react(bob, conversation, message, "👍\ufe0f" + "\u0301" * 13)
    report.check("emoji is one grapheme of at most 32 UTF-8 bytes with an emoji in it (else 422)",
                 two.status_code == 422 and word.status_code == 422 and long.status_code == 201
                 and longer.status_code == 422, f"{two.status_code} {word.status_code} "
                 f"{long.status_code} {longer.status_code}")

    many = str(uuid.uuid4())
    alice.send(conversation, "Pick a face", many)
    faces = [chr(code) for code in range(0x1F600, 0x1F615)]
    statuses = [react(bob, conversation, many, face).status_code for face in faces[:20]]
    report.check("a message takes 20 distinct emoji and the 21st is 422",
                 statuses == [201] * 20
                 and react(alice, conversation, many, faces[20]).status_code == 422
                 and react(alice, conversation, many, faces[0]).status_code == 201, str(statuses))

    listed = next(c for c in alice.request("GET", "/v1/conversations").json()["items"]
                  if c["id"] == conversation)
    report.check("a reaction is no new activity: lastMessage stays the newest message",
                 listed["lastMessage"]["clientMessageId"] == many
                 and listed["lastSequence"] > listed["lastMessage"]["sequence"], str(listed))

    deleted = delete(alice, conversation, message)
    late = react(bob, conversation, message, "😢")
    report.check("a delete takes the message's reactions with it, and it takes no more",
                 deleted.status_code == 201 and reactions() == [] and late.status_code == 422,
                 late.text)
    carol = Device(server, "react-carol")
    report.check("a non-member's reaction is 404", react(carol, conversation, many, "👍").status_code == 404)
    bob_live.close()


def run_mentions(report, server):
    """API.md Part 3, "Mentions": what the server finds in a text, and `unreadMentions`."""
    report.start_group("mentions")
    alice = Device(server, "ment-alice")
    bob = Device(server, "ment-bob")
    carol = Device(server, "ment-carol")
    conversation = alice.create(["ment-bob", "ment-carol"], title="Mentions")["id"]

    def sent(text):
        return alice.send(conversation, text, str(uuid.uuid4())).json()

    def unread(device):
        return next(c for c in device.request("GET", "/v1/conversations").json()["items"]
                    if c["id"] == conversation)["unreadMentions"]

    named = sent("@ment-carol and @ment-bob, lunch? @ment-carol")
    report.check("members named after an @ are mentioned once each, in the order of first mention",
                 named["mentions"] == ["ment-carol", "ment-bob"], str(named))
    report.check("an @ inside an address, a non-member and the sender are not mentions",
                 sent("mail x@ment-bob.com, @dave, @ment-alice")["mentions"] == [])
    report.check("trailing dots are not part of the name", sent("thanks @ment-bob.")["mentions"] == ["ment-bob"])
    report.check("unreadMentions counts the caller's unread messages that mention it",
                 unread(bob) == 2 and unread(carol) == 1 and unread(alice) == 0,
                 f"{unread(bob)} {unread(carol)} {unread(alice)}")
    plain = str(uuid.uuid4())
    alice.send(conversation, "no one here", plain)
    edited = edit(alice, conversation, plain, "now @ment-carol")
    page = carol.messages(conversation).json()["items"]
    report.check("an edit recomputes the message's mentions",
                 edited.status_code == 201
                 and next(i for i in page if i["clientMessageId"] == plain)["mentions"] == ["ment-carol"]
                 and unread(carol) == 2, str(page[-2:]))
    delete(alice, conversation, named["clientMessageId"])
    report.check("a deleted message mentions nobody and is not counted",
                 unread(carol) == 1 and unread(bob) == 1, f"{unread(carol)} {unread(bob)}")
    last = carol.messages(conversation).json()["items"][-1]["sequence"]
    carol.request("POST", f"/v1/conversations/{conversation}/read", {"upToSequence": last})
    report.check("reading clears them", unread(carol) == 0, str(unread(carol)))


def run_replies(report, server):
    """API.md Part 3, "Replies, and opening at a message"."""
    report.start_group("replies")
    alice = Device(server, "reply-alice")
    bob = Device(server, "reply-bob")
    conversation = alice.create(["reply-bob"], title="Replies")["id"]
    question = str(uuid.uuid4())
    alice.send(conversation, "Lunch at one? " + "é" * 120, question)
    answer = post(bob, conversation, {"clientMessageId": str(uuid.uuid4()), "text": "Yes",
                                      "replyTo": question})
    quote = (answer.json().get("replyTo") or {}).get("quote") or {}
    report.check("a reply is 201 with replyTo and a quote of the first 100 Unicode scalars",
                 answer.status_code == 201 and answer.json()["replyTo"]["clientMessageId"] == question
                 and quote.get("senderId") == "reply-alice" and quote.get("sequence") == 1
                 and len(quote.get("text", "")) == 100 and quote.get("deleted") is False
                 and quote.get("mediaKind") is None, answer.text)
    edit(alice, conversation, question, "Lunch at two?")
    page = bob.messages(conversation).json()["items"]
    report.check("the quote shows the target's current text",
                 page[1]["replyTo"]["quote"]["text"] == "Lunch at two?", str(page[1]))
    alice.request("POST", f"/v1/conversations/{conversation}/members",
                  {"clientMessageId": str(uuid.uuid4()), "add": ["reply-dave"]})
    dave = Device(server, "reply-dave")
    late = post(alice, conversation, {"clientMessageId": str(uuid.uuid4()), "text": "Dave?",
                                      "replyTo": question})
    seen = dave.messages(conversation).json()["items"][-1]
    report.check("a reader who cannot see the target gets the reply with quote null",
                 late.status_code == 201 and seen["replyTo"] == {"clientMessageId": question, "quote": None},
                 str(seen))
    refused = post(dave, conversation, {"clientMessageId": str(uuid.uuid4()), "text": "?",
                                        "replyTo": question})
    report.check("a reply to a message the sender cannot see is 422", refused.status_code == 422, refused.text)
    delete(alice, conversation, question)
    page = bob.messages(conversation).json()["items"]
    quoted = next(i for i in page if i["sequence"] == 2)["replyTo"]["quote"]
    report.check("a deleted target's quote says deleted, with no text",
                 quoted["deleted"] is True and quoted["text"] == "", str(quoted))

    for n in range(10):
        alice.send(conversation, f"filler {n}")
    around = bob.messages(conversation, around=8, limit=4)
    body = around.json()
    report.check("around answers the item, then one older and one newer, with hasMoreBefore/After",
                 around.status_code == 200 and [i["sequence"] for i in body["items"]] == [6, 7, 8, 9]
                 and body["hasMoreBefore"] is True and body["hasMoreAfter"] is True and body["hasMore"] is True,
                 around.text)
    newest = body_of(bob.messages(conversation, around=1000, limit=3))
    report.check("around past the end fills from the older side",
                 newest["hasMoreAfter"] is False and len(newest["items"]) == 3, str(newest))
    both = bob.messages(conversation, around=3, before=5)
    report.check("around with before or after is 422", both.status_code == 422, both.text)


def body_of(response):
    return response.json()
