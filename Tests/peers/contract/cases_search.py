"""API.md Part 2, "Search older messages on the server": GET /v1/search finds every term of q in
what the caller can see (a former member: what it saw), newest first, deleted messages never,
in pages; every script is found (the table of Tests/Fixtures/search/cases.json, the same the
device's store is tested with); bad input is a clear error."""

import json
import os
import uuid

from cases_groups import members
from cases_items import delete
from chatserver import Device, error_code

CASES = os.path.join(os.path.dirname(__file__), "..", "..", "Fixtures", "search", "cases.json")


def search(device, q, **params):
    return device.request("GET", "/v1/search", params={"q": q, **params})


def found(device, q, conversation=None, **params):
    """The sequences of the hits (only those in `conversation` when given), newest first."""
    response = search(device, q, **params)
    if response.status_code != 200:
        return f"{response.status_code} {response.text}"
    return [hit["item"]["sequence"] for hit in response.json()["items"]
            if conversation is None or hit["conversationId"] == conversation]


def run(report, server):
    report.start_group("search")
    table = json.load(open(CASES, encoding="utf-8"))
    alice = Device(server, "srch-alice")
    bob = Device(server, "srch-bob")
    carol = Device(server, "srch-carol")
    chat = alice.create(["srch-bob"], title="Scripts")["id"]
    for text in table["messages"]:
        assert alice.send(chat, text).status_code == 201
    for case in table["cases"]:
        report.check(f"search {case['query']!r}: {case['why']}",
                     found(bob, case["query"], chat) == case["expect"],
                     f"{found(bob, case['query'], chat)} != {case['expect']}")

    hit = search(bob, "trail").json()["items"][0]
    report.check("a hit is conversationId, the item, and a snippet with the match in [ ]",
                 hit["conversationId"] == chat and hit["item"]["kind"] == "message"
                 and hit["item"]["text"] == table["messages"][5]
                 and "[trailhead]" in hit["snippet"], json.dumps(hit, ensure_ascii=False))
    report.check("a user who is not a member finds nothing of the conversation",
                 found(carol, "trail") == [], str(found(carol, "trail")))

    # A former member finds what it saw, not what came after it left.
    group = alice.create(["srch-bob", "srch-carol"], title="Lighthouse trip")["id"]
    alice.send(group, "lighthouse at dawn")
    assert members(alice, group, remove=["srch-carol"]).status_code == 201
    alice.send(group, "lighthouse at dusk")
    report.check("a former member finds what it saw and nothing after it left",
                 found(carol, "lighthouse") == [1], str(found(carol, "lighthouse")))
    report.check("a member finds both, newest first",
                 found(bob, "lighthouse") == [3, 1], str(found(bob, "lighthouse")))

    # Deleted never; an edit is found by its new text only.
    key = str(uuid.uuid4())
    alice.send(group, "the secret cove", client_message_id=key)
    report.check("a message is found", found(bob, "cove") == [4], str(found(bob, "cove")))
    assert delete(alice, group, key).status_code == 201
    report.check("a deleted message is never found", found(bob, "cove") == [],
                 str(found(bob, "cove")))

    # Pages: newest first, each page older than the last, no hit twice.
    paged = alice.create(["srch-bob"], title="Pages")["id"]
    for number in range(5):
        alice.send(paged, f"pagination sample {number}")
    first = search(bob, "pagination", limit=2).json()
    second = search(bob, "pagination", limit=2, before=first["nextCursor"]).json()
    third = search(bob, "pagination", limit=2, before=second["nextCursor"]).json()
    pages = [[hit["item"]["sequence"] for hit in page["items"]] for page in (first, second, third)]
    report.check("pages of 2 walk back 5 hits newest first, the last with no nextCursor",
                 pages == [[5, 4], [3, 2], [1]] and third["nextCursor"] is None
                 and first["nextCursor"] is not None, f"{pages} {third.get('nextCursor')}")
    report.check("the last word is a prefix; `*` makes any word one",
                 found(bob, "pagination sampl", paged) == [5, 4, 3, 2, 1]
                 and found(bob, "pagin samp") == []
                 and found(bob, "pagin* samp") == [5, 4, 3, 2, 1],
                 str(found(bob, "pagin* samp")))

    # Bad input.
    missing = bob.request("GET", "/v1/search")
    report.check("no q is 400", missing.status_code == 400 and error_code(missing) == "bad_request",
                 missing.text)
    empty = search(bob, "")
    report.check("an empty q is 422 (1–200 characters)",
                 empty.status_code == 422 and error_code(empty) == "invalid", empty.text)
    long = search(bob, "a" * 201)
    report.check("a q over 200 characters is 422",
                 long.status_code == 422 and error_code(long) == "invalid", long.text)
    nothing = search(bob, "*** ?")
    report.check("a q with nothing to search is 422",
                 nothing.status_code == 422 and error_code(nothing) == "invalid", nothing.text)
    limit = search(bob, "trail", limit=0)
    report.check("limit 0 is 422", limit.status_code == 422, limit.text)
    cursor = search(bob, "trail", before="not-a-cursor")
    report.check("a cursor the server did not give is 400",
                 cursor.status_code == 400 and error_code(cursor) == "bad_request", cursor.text)
    syntax = found(bob, 'NEAR(trail "nine") OR col:x')
    report.check("FTS syntax in q is words, not parsed", syntax == [], str(syntax))
    anonymous = bob.http.get("/v1/search", params={"q": "trail"})
    report.check("no token is 401", anonymous.status_code == 401, anonymous.text)
