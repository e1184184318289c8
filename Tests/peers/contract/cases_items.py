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
                 set(sent) == ITEM_FIELDS and sent["kind"] == "message" and sent["deleted"] is False
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
