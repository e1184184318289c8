"""The built-in S3-compatible object store of chat-server against boto3/botocore, an independent
S3 client, and httpx on presigned URLs.

    .venv/bin/python Tests/peers/s3/store_peers.py        (after `swift build --product chat-server`)

Starts the real binary with `--object-store-port 0` (a temporary data folder), computes the
store's secret as the server does (HMAC-SHA256 of the data folder's signing-key and
"object-store", hex), and checks single and multipart uploads, ranged and whole reads, the
errors S3 clients expect, every refusal of a request not signed right, the files on disk, and
that objects and the secret outlive a restart. Ends with 'N passed, N failed'.
"""
import datetime
import hashlib
import hmac
import os
import re
import stat
import sys
from unittest import mock

import boto3
import httpx
from botocore.config import Config
from botocore.exceptions import ClientError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "contract"))
from chatserver import Device, Report, Server  # noqa: E402

BUCKET = "chat-media"
MIB = 1024 * 1024


def store_url(server):
    """The object store's URL, from the lines chat-server prints at start."""
    for _ in range(10):
        line = server.process.stdout.readline().decode().strip()
        match = re.match(r"object store listening on (https?://127\.0\.0\.1:\d+) ", line)
        if match:
            return match.group(1)
    raise RuntimeError("chat-server did not print its object store's address")


def secret_of(server):
    with open(os.path.join(server.data, "signing-key"), "rb") as file:
        return hmac.new(file.read(), b"object-store", hashlib.sha256).hexdigest()


def client(url, secret, access_key="chat-server", **config):
    return boto3.client(
        "s3", endpoint_url=url, region_name="us-east-1", aws_access_key_id=access_key,
        aws_secret_access_key=secret,
        config=Config(signature_version="s3v4", s3={"addressing_style": "path"},
                      retries={"max_attempts": 1}, **config))


def error_of(call):
    """(HTTP status, S3 error code) of a call expected to fail."""
    try:
        call()
    except ClientError as error:
        return error.response["ResponseMetadata"]["HTTPStatusCode"], error.response["Error"]["Code"]
    return 200, None


def xml_code(response):
    match = re.search(r"<Code>([^<]+)</Code>", response.text)
    return response.status_code, match.group(1) if match else None


def run_objects(report, s3):
    report.start_group("objects")
    body = b"hello, object store"
    put = s3.put_object(Bucket=BUCKET, Key="media/a b/ü.txt", Body=body, ContentType="text/plain")
    report.check("PutObject answers the body's MD5 as its ETag",
                 put["ETag"] == f'"{hashlib.md5(body).hexdigest()}"', put["ETag"])
    got = s3.get_object(Bucket=BUCKET, Key="media/a b/ü.txt")
    report.check("GetObject gives the bytes, their length and the content type",
                 got["Body"].read() == body and got["ContentLength"] == len(body)
                 and got["ContentType"] == "text/plain")
    head = s3.head_object(Bucket=BUCKET, Key="media/a b/ü.txt")
    report.check("HeadObject gives the length and the ETag, no body",
                 head["ContentLength"] == len(body) and head["ETag"] == put["ETag"])
    for spec, expected, content_range in [
        ("bytes=7-12", body[7:13], f"bytes 7-12/{len(body)}"),
        ("bytes=7-", body[7:], f"bytes 7-{len(body) - 1}/{len(body)}"),
        ("bytes=-5", body[-5:], f"bytes {len(body) - 5}-{len(body) - 1}/{len(body)}"),
        ("bytes=10-1000", body[10:], f"bytes 10-{len(body) - 1}/{len(body)}"),
    ]:
        ranged = s3.get_object(Bucket=BUCKET, Key="media/a b/ü.txt", Range=spec)
        report.check(f"Range {spec} is a 206 with its bytes and Content-Range",
                     ranged["ResponseMetadata"]["HTTPStatusCode"] == 206
                     and ranged["Body"].read() == expected and ranged["ContentRange"] == content_range,
                     ranged.get("ContentRange"))
    report.check("a range past the end is 416 InvalidRange",
                 error_of(lambda: s3.get_object(Bucket=BUCKET, Key="media/a b/ü.txt",
                                                Range=f"bytes={len(body)}-")) == (416, "InvalidRange"))
    s3.put_object(Bucket=BUCKET, Key="media/a b/ü.txt", Body=b"replaced")
    report.check("a second PutObject replaces the object",
                 s3.get_object(Bucket=BUCKET, Key="media/a b/ü.txt")["Body"].read() == b"replaced")
    report.check("a missing key is 404 NoSuchKey",
                 error_of(lambda: s3.get_object(Bucket=BUCKET, Key="media/none")) == (404, "NoSuchKey"))
    report.check("another bucket is 404 NoSuchBucket",
                 error_of(lambda: s3.get_object(Bucket="other", Key="x")) == (404, "NoSuchBucket"))
    empty = s3.put_object(Bucket=BUCKET, Key="media/empty", Body=b"")
    report.check("an empty object is stored and read back",
                 s3.get_object(Bucket=BUCKET, Key="media/empty")["Body"].read() == b""
                 and empty["ETag"] == f'"{hashlib.md5(b"").hexdigest()}"')
    s3.delete_object(Bucket=BUCKET, Key="media/a b/ü.txt")
    report.check("DeleteObject removes it (and deleting again is no error)",
                 error_of(lambda: s3.head_object(Bucket=BUCKET, Key="media/a b/ü.txt"))[0] == 404
                 and s3.delete_object(Bucket=BUCKET, Key="media/a b/ü.txt")
                 ["ResponseMetadata"]["HTTPStatusCode"] == 204)


def run_multipart(report, s3):
    report.start_group("multipart")
    key = "media/big.bin"
    parts = [os.urandom(5 * MIB), os.urandom(5 * MIB), os.urandom(123)]
    upload = s3.create_multipart_upload(Bucket=BUCKET, Key=key, ContentType="application/pdf")["UploadId"]
    etags = [s3.upload_part(Bucket=BUCKET, Key=key, UploadId=upload, PartNumber=n + 1, Body=part)["ETag"]
             for n, part in enumerate(parts[:2])]
    listed = s3.list_parts(Bucket=BUCKET, Key=key, UploadId=upload)["Parts"]
    report.check("ListParts names the parts stored, to resume after a kill",
                 [(p["PartNumber"], p["Size"], p["ETag"]) for p in listed]
                 == [(1, 5 * MIB, etags[0]), (2, 5 * MIB, etags[1])])
    etags.append(s3.upload_part(Bucket=BUCKET, Key=key, UploadId=upload, PartNumber=3, Body=parts[2])["ETag"])
    again = s3.upload_part(Bucket=BUCKET, Key=key, UploadId=upload, PartNumber=3, Body=parts[2])["ETag"]
    report.check("a part sent twice is the same part (UploadPart is idempotent)", again == etags[2])
    named = [{"PartNumber": n + 1, "ETag": etag} for n, etag in enumerate(etags)]
    report.check("parts out of order are 400 InvalidPartOrder",
                 error_of(lambda: s3.complete_multipart_upload(
                     Bucket=BUCKET, Key=key, UploadId=upload,
                     MultipartUpload={"Parts": [named[1], named[0], named[2]]})) == (400, "InvalidPartOrder"))
    report.check("a part with another ETag is 400 InvalidPart",
                 error_of(lambda: s3.complete_multipart_upload(
                     Bucket=BUCKET, Key=key, UploadId=upload,
                     MultipartUpload={"Parts": [named[0], {"PartNumber": 2, "ETag": etags[0]}, named[2]]}))
                 == (400, "InvalidPart"))
    report.check("a part never sent is 400 InvalidPart",
                 error_of(lambda: s3.complete_multipart_upload(
                     Bucket=BUCKET, Key=key, UploadId=upload,
                     MultipartUpload={"Parts": named + [{"PartNumber": 4, "ETag": etags[0]}]}))
                 == (400, "InvalidPart"))
    done = s3.complete_multipart_upload(Bucket=BUCKET, Key=key, UploadId=upload,
                                        MultipartUpload={"Parts": named})
    digests = b"".join(hashlib.md5(part).digest() for part in parts)
    report.check("CompleteMultipartUpload's ETag is S3's: MD5 of the parts' MD5s, then -3",
                 done["ETag"] == f'"{hashlib.md5(digests).hexdigest()}-3"', done["ETag"])
    whole = s3.get_object(Bucket=BUCKET, Key=key)
    report.check("the object is the parts in order, with the upload's content type",
                 whole["Body"].read() == b"".join(parts) and whole["ContentType"] == "application/pdf")
    report.check("a completed upload is gone: 404 NoSuchUpload",
                 error_of(lambda: s3.list_parts(Bucket=BUCKET, Key=key, UploadId=upload))
                 == (404, "NoSuchUpload"))

    small = s3.create_multipart_upload(Bucket=BUCKET, Key="media/small")["UploadId"]
    tags = [s3.upload_part(Bucket=BUCKET, Key="media/small", UploadId=small, PartNumber=n, Body=b"x" * 10)["ETag"]
            for n in (1, 2)]
    report.check("a part other than the last under 5 MiB is 400 EntityTooSmall",
                 error_of(lambda: s3.complete_multipart_upload(
                     Bucket=BUCKET, Key="media/small", UploadId=small,
                     MultipartUpload={"Parts": [{"PartNumber": n + 1, "ETag": t} for n, t in enumerate(tags)]}))
                 == (400, "EntityTooSmall"))
    s3.abort_multipart_upload(Bucket=BUCKET, Key="media/small", UploadId=small)
    report.check("an aborted upload is 404 NoSuchUpload",
                 error_of(lambda: s3.list_parts(Bucket=BUCKET, Key="media/small", UploadId=small))
                 == (404, "NoSuchUpload"))
    report.check("an upload id of another key is 404 NoSuchUpload",
                 error_of(lambda: s3.upload_part(Bucket=BUCKET, Key="media/other", UploadId=upload,
                                                 PartNumber=1, Body=b"x")) == (404, "NoSuchUpload"))
    report.check("part number 10001 is 400 InvalidArgument",
                 error_of(lambda: s3.upload_part(
                     Bucket=BUCKET, Key="media/x",
                     UploadId=s3.create_multipart_upload(Bucket=BUCKET, Key="media/x")["UploadId"],
                     PartNumber=10001, Body=b"x")) == (400, "InvalidArgument"))


def run_presigned(report, s3):
    report.start_group("presigned URLs")
    put = s3.generate_presigned_url("put_object", Params={"Bucket": BUCKET, "Key": "media/p.jpg"}, ExpiresIn=900)
    report.check("httpx PUTs to botocore's presigned PutObject URL",
                 httpx.put(put, content=b"jpeg bytes").status_code == 200)
    get = s3.generate_presigned_url("get_object", Params={"Bucket": BUCKET, "Key": "media/p.jpg"}, ExpiresIn=900)
    response = httpx.get(get)
    report.check("and GETs it back from the presigned GetObject URL",
                 response.status_code == 200 and response.content == b"jpeg bytes")
    ranged = httpx.get(get, headers={"Range": "bytes=5-"})
    report.check("a presigned GET honours Range", ranged.status_code == 206 and ranged.content == b"bytes")
    upload = s3.create_multipart_upload(Bucket=BUCKET, Key="media/parts.bin")["UploadId"]
    part_url = s3.generate_presigned_url(
        "upload_part", Params={"Bucket": BUCKET, "Key": "media/parts.bin", "UploadId": upload, "PartNumber": 1},
        ExpiresIn=900)
    sent = httpx.put(part_url, content=b"a part")
    report.check("httpx PUTs a part to a presigned UploadPart URL",
                 sent.status_code == 200 and sent.headers.get("ETag") == f'"{hashlib.md5(b"a part").hexdigest()}"')
    report.check("the presigned URL of one key does not open another",
                 xml_code(httpx.get(get.replace("media/p.jpg", "media/big.bin"))) == (403, "SignatureDoesNotMatch"))
    report.check("nor does it allow another method",
                 xml_code(httpx.delete(get)) == (403, "SignatureDoesNotMatch"))
    longer = re.sub(r"X-Amz-Expires=\d+", "X-Amz-Expires=604800", get)
    report.check("a URL whose expiry was lengthened is refused",
                 xml_code(httpx.get(longer)) == (403, "SignatureDoesNotMatch"))
    hour_ago = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None) - datetime.timedelta(hours=1)
    with mock.patch("botocore.auth.get_current_datetime", return_value=hour_ago):
        expired = s3.generate_presigned_url("get_object", Params={"Bucket": BUCKET, "Key": "media/p.jpg"},
                                            ExpiresIn=900)
    report.check("an expired URL is 403 AccessDenied", xml_code(httpx.get(expired)) == (403, "AccessDenied"))
    report.check("an unsigned request is 403",
                 httpx.get(get.split("?")[0]).status_code == 403)


def run_signatures(report, url, secret):
    report.start_group("signatures")
    wrong = client(url, "not-the-secret")
    report.check("a request signed with another secret is 403 SignatureDoesNotMatch",
                 error_of(lambda: wrong.put_object(Bucket=BUCKET, Key="media/w", Body=b"x"))
                 == (403, "SignatureDoesNotMatch"))
    unknown = client(url, secret, access_key="someone-else")
    report.check("an unknown access key is 403 InvalidAccessKeyId",
                 error_of(lambda: unknown.get_object(Bucket=BUCKET, Key="media/p.jpg"))
                 == (403, "InvalidAccessKeyId"))
    right = client(url, secret)
    later = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None) + datetime.timedelta(minutes=30)
    with mock.patch("botocore.auth.get_current_datetime", return_value=later):
        skewed = error_of(lambda: right.get_object(Bucket=BUCKET, Key="media/p.jpg"))
    report.check("a request dated 30 minutes ahead is 403 RequestTimeTooSkewed",
                 skewed == (403, "RequestTimeTooSkewed"), str(skewed))
    report.check("the store kept nothing a refused request sent",
                 error_of(lambda: right.head_object(Bucket=BUCKET, Key="media/w"))[0] == 404)


def run_files(report, server, s3):
    report.start_group("files")
    s3.put_object(Bucket=BUCKET, Key="media/secret-name.jpg", Body=b"bytes on disk")
    root = os.path.join(server.data, "objects")
    modes, names = [], []
    for folder, subfolders, files in os.walk(root):
        modes += [(os.path.join(folder, name), 0o700) for name in subfolders]
        modes += [(os.path.join(folder, name), 0o600) for name in files]
        names += files
    wrong = [path for path, mode in modes if stat.S_IMODE(os.stat(path).st_mode) != mode]
    report.check("every folder is 0700 and every file 0600", not wrong, str(wrong[:3]))
    report.check("no file is named after a key (keys are hashed)",
                 not any("secret-name" in name for name in names))


def run_public_url(report):
    report.start_group("public URL")
    with Server("--dev", "--object-store-port", "0",
                "--object-store-public-url", "https://media.example.org") as server:
        store_url(server)
        device = Device(server, "public-url")
        upload = device.request("POST", "/v1/media/uploads",
                                {"kind": "image", "contentType": "image/png", "byteCount": 3,
                                 "sha256": hashlib.sha256(b"abc").hexdigest()}).json()
        url = upload["parts"][0]["url"]
        report.check("the URLs handed to devices name --object-store-public-url",
                     url.startswith("https://media.example.org/chat-media/incoming/"), url)


def main():
    report = Report("s3-store")
    server = Server("--dev", "--object-store-port", "0", keep_data=True).start()
    try:
        url = store_url(server)
        secret = secret_of(server)
        s3 = client(url, secret)
        for run in (run_objects, run_multipart, run_presigned):
            run(report, s3)
        run_signatures(report, url, secret)
        run_files(report, server, s3)
        run_public_url(report)
        report.start_group("restart")
        server.terminate()
        again = Server("--dev", "--object-store-port", "0", data=server.data).start()
        try:
            after = client(store_url(again), secret_of(again))
            report.check("after a restart the secret is the same and the objects are there",
                         secret_of(again) == secret
                         and after.get_object(Bucket=BUCKET, Key="media/p.jpg")["Body"].read() == b"jpeg bytes")
        finally:
            again.cleanup()
    finally:
        server.keep_data = False
        server.cleanup()
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
