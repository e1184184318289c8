"""API.md Part 2, "Media": uploads (POST /v1/media/uploads, GET …/{key}, POST …/{key}/complete)
against the real binary and its built-in S3-compatible store, the bytes sent with httpx to the
presigned URLs the server answers, as a device sends them."""
import base64
import hashlib
import os
import re
import time
import uuid

import httpx

import chatserver
from chatserver import Device, Server, error_code

MIB = 1024 * 1024


def create(device, kind, byte_count, sha256, content_type="image/jpeg", file_name=None):
    body = {"kind": kind, "contentType": content_type, "byteCount": byte_count, "sha256": sha256}
    if file_name is not None:
        body["fileName"] = file_name
    return device.request("POST", "/v1/media/uploads", body)


def put_part(server, part, data):
    """A part's bytes to its presigned URL, as a device sends them (no token: the URL is it)."""
    return httpx.put(part["url"], content=data[part["offset"]:part["offset"] + part["byteCount"]],
                     verify=server.verify, timeout=30)


def run_without_store(report):
    report.start_group("media off")
    with Server("--dev", "--no-object-store") as server:
        alice = Device(server, "media-off-alice")
        response = create(alice, "image", 10, "0" * 64)
        report.expect_error("a server started with --no-object-store answers 503", response, 503,
                            "unavailable")
    if not chatserver.suite_postgres:
        with Server("--dev") as server:
            alice = Device(server, "media-default-alice")
            photo = os.urandom(1_000)
            response = create(alice, "image", len(photo), hashlib.sha256(photo).hexdigest())
            report.check("a server started with no media option serves media: 201 with a part",
                         response.status_code == 201 and len(response.json()["parts"]) == 1,
                         response.text[:200])


def run_uploads(report):
    with Server("--dev", "--object-store-port", "0") as server:
        alice = Device(server, "media-alice")
        bob = Device(server, "media-bob")
        run_single(report, server, alice, bob)
        run_multipart(report, server, alice)
        run_refusals(report, server, alice)
        run_messages(report, server, alice, bob)


def run_single(report, server, alice, bob):
    report.start_group("media uploads")
    photo = os.urandom(183_211)
    digest = hashlib.sha256(photo).hexdigest()
    before = time.time()
    response = create(alice, "image", len(photo), digest)
    report.check("an image upload is 201 with a key, an expiry and one part",
                 response.status_code == 201, response.text[:200])
    upload = response.json()
    key = upload["mediaKey"]
    report.check("the key is a UUID", re.fullmatch(r"[0-9a-f-]{36}", key) is not None, key)
    expires = time.mktime(time.strptime(upload["expiresAt"][:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone
    report.check("its URLs live 15 minutes", abs(expires - before - 900) < 60, upload["expiresAt"])
    parts = upload["parts"]
    report.check("up to 8 MiB is one part: all the bytes from offset 0",
                 [(p["number"], p["offset"], p["byteCount"]) for p in parts] == [(1, 0, len(photo))])
    status = alice.request("GET", f"/v1/media/uploads/{key}").json()
    report.check("before any byte the store has nothing",
                 status["complete"] is False and status["received"] == [] and len(status["parts"]) == 1)
    incomplete = alice.request("POST", f"/v1/media/uploads/{key}/complete", {"parts": []})
    report.expect_error("completing before the bytes are there is 422", incomplete, 422, "invalid")
    sent = put_part(server, parts[0], photo)
    report.check("the bytes go to the presigned URL with no token", sent.status_code == 200, sent.text[:200])
    status = alice.request("GET", f"/v1/media/uploads/{key}").json()
    report.check("then the store has part 1, with its ETag",
                 status["received"] == [{"number": 1, "etag": sent.headers.get("ETag")}], str(status["received"]))
    report.expect_error("another user's upload is 404",
                        bob.request("GET", f"/v1/media/uploads/{key}"), 404, "not_found")
    report.expect_error("nor can another user complete it",
                        bob.request("POST", f"/v1/media/uploads/{key}/complete", {"parts": []}), 404, "not_found")
    done = alice.request("POST", f"/v1/media/uploads/{key}/complete", {"parts": []})
    report.check("complete is 200 when size and SHA-256 match",
                 done.status_code == 200 and done.json() == {"mediaKey": key, "complete": True}, done.text[:200])
    again = alice.request("POST", f"/v1/media/uploads/{key}/complete", {"parts": []})
    report.check("completing again is 200 (a retry after a lost answer)",
                 again.status_code == 200 and again.json()["complete"] is True)
    status = alice.request("GET", f"/v1/media/uploads/{key}").json()
    report.check("a complete upload reports complete, with no parts left to send",
                 status["complete"] is True and status["parts"] == [])


def run_multipart(report, server, alice):
    report.start_group("media multipart")
    document = os.urandom(17 * MIB + 321)
    response = create(alice, "file", len(document), hashlib.sha256(document).hexdigest(),
                      content_type="application/pdf", file_name="Quarterly report (final).pdf")
    report.check("a 17 MiB file is 201", response.status_code == 201, response.text[:200])
    upload = response.json()
    key = upload["mediaKey"]
    parts = upload["parts"]
    report.check("above 8 MiB the parts are 8 MiB each, the last one the rest",
                 [(p["number"], p["offset"], p["byteCount"]) for p in parts]
                 == [(1, 0, 8 * MIB), (2, 8 * MIB, 8 * MIB), (3, 16 * MIB, MIB + 321)])
    etags = {}
    for part in (parts[0], parts[2]):
        etags[part["number"]] = put_part(server, part, document).headers.get("ETag")
    status = alice.request("GET", f"/v1/media/uploads/{key}").json()
    report.check("after a kill the device learns which parts the store has (1 and 3)",
                 sorted(p["number"] for p in status["received"]) == [1, 3] and len(status["parts"]) == 3)
    wrong = alice.request("POST", f"/v1/media/uploads/{key}/complete",
                          {"parts": [{"number": n, "etag": etags[n]} for n in (1, 3)] + [{"number": 2, "etag": etags[1]}]})
    report.expect_error("parts that cannot be put together are 422", wrong, 422, "invalid")
    etags[2] = put_part(server, parts[1], document).headers.get("ETag")
    done = alice.request("POST", f"/v1/media/uploads/{key}/complete",
                         {"parts": [{"number": n, "etag": etags[n]} for n in (1, 2, 3)]})
    report.check("with every part sent, complete is 200", done.status_code == 200, done.text[:300])


def run_refusals(report, server, alice, own_store=True):
    report.start_group("media refusals")
    data = os.urandom(1000)
    digest = hashlib.sha256(data).hexdigest()
    other = hashlib.sha256(b"other bytes").hexdigest()
    upload = create(alice, "image", len(data), other).json()
    put_part(server, upload["parts"][0], data)
    response = alice.request("POST", f"/v1/media/uploads/{upload['mediaKey']}/complete", {"parts": []})
    report.expect_error("bytes whose SHA-256 is not the one declared are 422", response, 422, "invalid")
    report.expect_error("and the upload is dropped (the device starts a new one)",
                        alice.request("GET", f"/v1/media/uploads/{upload['mediaKey']}"), 404, "not_found")
    upload = create(alice, "image", len(data) + 1, digest).json()
    put_part(server, {**upload["parts"][0], "byteCount": len(data)}, data)
    response = alice.request("POST", f"/v1/media/uploads/{upload['mediaKey']}/complete", {"parts": []})
    report.expect_error("bytes of another size are 422", response, 422, "invalid")

    report.expect_error("an image over 8 MiB is 413", create(alice, "image", 8 * MIB + 1, digest), 413, "too_large")
    report.expect_error("413 comes before 422 (a GIF of 20 MiB)",
                        create(alice, "image", 20 * MIB, digest, content_type="image/gif"), 413, "too_large")
    if own_store:  # the built-in store's own limit (another store has its own)
        big = create(alice, "file", 9 * MIB, digest, content_type="application/pdf").json()
        oversized = httpx.put(big["parts"][0]["url"], content=os.urandom(8 * MIB + 1),
                              verify=server.verify, timeout=60)
        report.check("the store refuses a part over 8 MiB (413)", oversized.status_code == 413,
                     str(oversized.status_code))
    report.expect_error("a file over 100 MiB is 413",
                        create(alice, "file", 100 * MIB + 1, digest, content_type="application/pdf"),
                        413, "too_large")
    report.expect_error("an image that is not JPEG or PNG is 422",
                        create(alice, "image", 10, digest, content_type="image/gif"), 422, "invalid")
    report.expect_error("a SHA-256 that is not 64 hex digits is 400",
                        create(alice, "image", 10, digest[:63]), 400, "bad_request")
    report.expect_error("an empty upload is 422 (a size out of range)", create(alice, "image", 0, digest),
                        422, "invalid")
    report.expect_error("a malformed SHA-256 is 400 before an empty size's 422",
                        create(alice, "image", 0, digest[:63]), 400, "bad_request")
    report.expect_error("a file name on an image is 400",
                        create(alice, "image", 10, digest, file_name="a.jpg"), 400, "bad_request")
    report.expect_error("a file name with a slash is 400",
                        create(alice, "file", 10, digest, content_type="text/plain", file_name="../a"),
                        400, "bad_request")
    report.expect_error("a file name over 255 bytes is 400",
                        create(alice, "file", 10, digest, content_type="text/plain", file_name="é" * 128),
                        400, "bad_request")
    report.expect_error("an unknown kind is 400",
                        alice.request("POST", "/v1/media/uploads",
                                      {"kind": "video", "contentType": "video/mp4", "byteCount": 10, "sha256": digest}),
                        400, "bad_request")
    report.expect_error("an unknown key is 404",
                        alice.request("GET", "/v1/media/uploads/01a229f1-b875-7000-9621-edfefd7b1fb5"), 404, "not_found")
    report.expect_error("a malformed key is 400", alice.request("GET", "/v1/media/uploads/nope"), 400, "bad_request")
    response = server.request("POST", "/v1/media/uploads",
                              json={"kind": "image", "contentType": "image/jpeg", "byteCount": 10, "sha256": digest})
    report.check("without a token it is 401", response.status_code == 401 and error_code(response) == "unauthorized")


def uploaded(server, device, data, kind="image", content_type="image/jpeg", file_name=None, parts=None):
    """A completed upload of `data`; its key (and its parts appended to `parts`, if given)."""
    upload = create(device, kind, len(data), hashlib.sha256(data).hexdigest(), content_type, file_name).json()
    for part in upload["parts"]:
        put_part(server, part, data)
    done = device.request("POST", f"/v1/media/uploads/{upload['mediaKey']}/complete", {"parts": []})
    assert done.status_code == 200, done.text
    if parts is not None:
        parts += upload["parts"]
    return upload["mediaKey"]


def post(device, conversation, text, media, client_message_id=None, **extra):
    return device.request("POST", f"/v1/conversations/{conversation}/messages",
                          {"clientMessageId": client_message_id or str(uuid.uuid4()), "text": text,
                           "media": media, **extra})


def run_messages(report, server, alice, bob):
    report.start_group("media messages")
    carol = Device(server, "media-carol")
    dave = Device(server, "media-dave")
    photo = os.urandom(50_000)
    thumbnail = base64.b64encode(os.urandom(9_000)).decode()
    put_urls = []
    key = uploaded(server, alice, photo, parts=put_urls)
    media = {"key": key, "kind": "image", "contentType": "image/jpeg", "byteCount": len(photo),
             "sha256": hashlib.sha256(photo).hexdigest(), "width": 1600, "height": 1200,
             "thumbnail": thumbnail}
    chat = alice.create([bob.user], title="Photos")["id"]
    report.expect_error("before a message carries it, nobody may download it (its uploader neither)",
                        alice.request("GET", f"/v1/media/{key}"), 404, "not_found")
    first_id = str(uuid.uuid4())
    sent = post(alice, chat, "", media, first_id)
    report.check("a message with media and an empty caption is 201, carrying the media",
                 sent.status_code == 201 and sent.json().get("media") == media, sent.text[:300])
    again = post(alice, chat, "", media, first_id)
    report.check("its retry is 200, the same message", again.status_code == 200
                 and again.json()["sequence"] == sent.json()["sequence"])
    page = bob.request("GET", f"/v1/conversations/{chat}/messages").json()["items"]
    report.check("the recipient gets the thumbnail inline", page[-1].get("media", {}).get("thumbnail") == thumbnail)
    download = bob.request("GET", f"/v1/media/{key}")
    report.check("the recipient is given a URL, the size and the content type",
                 download.status_code == 200 and download.json()["byteCount"] == len(photo)
                 and download.json()["contentType"] == "image/jpeg", download.text[:200])
    url = download.json()["url"]
    got = httpx.get(url, verify=server.verify)
    report.check("the URL gives the bytes, whose SHA-256 is the sender's",
                 got.status_code == 200 and hashlib.sha256(got.content).hexdigest() == media["sha256"])
    ranged = httpx.get(url, headers={"Range": "bytes=40000-"}, verify=server.verify)
    report.check("and honours Range, to resume a download",
                 ranged.status_code == 206 and ranged.content == photo[40000:])
    # The upload's PUT URL lives 15 minutes: once the bytes are checked it must change nothing.
    httpx.put(put_urls[0]["url"], content=b"<script>swapped</script>", verify=server.verify,
              headers={"Content-Type": "text/html"})
    again = httpx.get(bob.request("GET", f"/v1/media/{key}").json()["url"], verify=server.verify)
    report.check("bytes PUT again to the upload's URL after completion change nothing downloaded",
                 again.content == photo)
    report.check("a download says the content type the server recorded, and nosniff where the store can",
                 again.headers.get("content-type") == "image/jpeg", again.headers.get("content-type"))
    changed = post(alice, chat, "", {**media, "thumbnail": base64.b64encode(b"other").decode()}, first_id)
    report.expect_error("the same clientMessageId with other media is 409", changed, 409, "conflict")
    report.expect_error("a user who is not a member gets 404",
                        carol.request("GET", f"/v1/media/{key}"), 404, "not_found")
    alice.request("POST", f"/v1/conversations/{chat}/members",
                  {"clientMessageId": str(uuid.uuid4()), "add": [dave.user]})
    report.expect_error("a member added later gets 404 for media sent before it joined",
                        dave.request("GET", f"/v1/media/{key}"), 404, "not_found")

    report.expect_error("the same media in a second message is 422",
                        post(alice, chat, "again", media), 422, "invalid")
    other_key = uploaded(server, alice, b"another photo")
    other = {**media, "key": other_key, "byteCount": len(b"another photo"),
             "sha256": hashlib.sha256(b"another photo").hexdigest()}
    report.expect_error("another user's upload is 422", post(bob, chat, "", other), 422, "invalid")
    report.expect_error("media described otherwise than uploaded is 422",
                        post(alice, chat, "", {**other, "byteCount": 14}), 422, "invalid")
    pending = create(alice, "image", 10, hashlib.sha256(b"0123456789").hexdigest()).json()["mediaKey"]
    report.expect_error("an upload not completed is 422",
                        post(alice, chat, "", {**other, "key": pending, "byteCount": 10,
                                               "sha256": hashlib.sha256(b"0123456789").hexdigest()}),
                        422, "invalid")
    report.expect_error("a thumbnail over 10,240 bytes is 422",
                        post(alice, chat, "", {**other, "thumbnail": base64.b64encode(os.urandom(10_241)).decode()}),
                        422, "invalid")
    report.expect_error("a thumbnail that is not base64 is 400",
                        post(alice, chat, "", {**other, "thumbnail": "not base64!"}), 400, "bad_request")
    report.expect_error("an image without its dimensions is 400",
                        post(alice, chat, "", {k: v for k, v in other.items() if k != "width"}), 400, "bad_request")
    report.expect_error("an edit carries no media",
                        alice.request("POST", f"/v1/conversations/{chat}/messages",
                                      {"clientMessageId": str(uuid.uuid4()), "kind": "edit", "target": first_id,
                                       "text": "x", "media": other}), 400, "bad_request")
    edit = alice.request("POST", f"/v1/conversations/{chat}/messages",
                         {"clientMessageId": str(uuid.uuid4()), "kind": "edit", "target": first_id, "text": ""})
    report.check("an empty edit of a message with media is 201 (the caption goes)", edit.status_code == 201, edit.text[:200])

    delete = alice.request("POST", f"/v1/conversations/{chat}/messages",
                           {"clientMessageId": str(uuid.uuid4()), "kind": "delete", "target": first_id})
    report.check("deleting the message is 201", delete.status_code == 201)
    report.expect_error("then nobody may download its media", bob.request("GET", f"/v1/media/{key}"), 404, "not_found")
    # S3 answers a missing key 403 to a caller who may not list the bucket (moto does), 404
    # otherwise (the built-in store): either way, no bytes.
    gone = httpx.get(url, verify=server.verify)
    report.check("and the bytes are gone from the store (the old URL finds nothing)",
                 gone.status_code in (403, 404) and b"<Error>" in gone.content, str(gone.status_code))
    page = bob.request("GET", f"/v1/conversations/{chat}/messages").json()["items"]
    deleted = [item for item in page if item["clientMessageId"] == first_id][0]
    report.check("the tombstone carries no media", deleted.get("media") is None and deleted["deleted"] is True)
