"""botocore's presigned S3 URLs, and its header signatures, for a set of inputs: the fixture
our SigV4 tests read.

    .venv/bin/python Tests/peers/s3/botocore_presigned.py --write Tests/Fixtures/sigv4/botocore-presigned.json
    .venv/bin/python Tests/peers/s3/botocore_presigned.py --check Tests/Fixtures/sigv4/botocore-presigned.json

`--check` (run by scripts/test-server, so by CI) computes every URL again with the pinned
botocore and fails if the committed file differs: the Swift tests (`SigV4Tests`) compare our
presigner with a file that is botocore's real output, not one written by hand. The signing
time is fixed per case (botocore's clock is patched), so the output is the same on every run.
Ends with 'N passed, N failed'.
"""
import datetime
import json
import sys
import urllib.parse
from unittest import mock

import boto3
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials

ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

# name, operation, endpoint, region, bucket, key, extra parameters, expires, signing time
CASES = [
    ("aws-docs-get-object", "get_object", "https://s3.amazonaws.com", "us-east-1",
     "examplebucket", "test.txt", {}, 86400, "2013-05-24T00:00:00"),
    ("put-object-loopback-port", "put_object", "http://127.0.0.1:9000", "us-east-1",
     "chat-media", "media/3f2a9c1e/photo.jpg", {}, 900, "2026-12-03T08:15:42"),
    ("get-object-eu-region", "get_object", "https://storage.example.org", "eu-central-1",
     "chat-media", "media/3f2a9c1e/photo.jpg", {}, 900, "2026-02-28T23:59:59"),
    ("key-with-spaces-and-unicode", "put_object", "http://localhost:8080", "us-east-1",
     "chat-media", "files/Ünïcödé report (final) #2.pdf", {}, 3600, "2024-02-29T12:00:00"),
    ("key-with-reserved-characters", "get_object", "http://127.0.0.1:9000", "us-east-1",
     "chat-media", "a+b=c&d;e,f:g@h$i!j'k*l~m_n.o-p/q%r", {}, 60, "2038-01-19T03:14:08"),
    ("upload-part", "upload_part", "http://127.0.0.1:9000", "us-east-1",
     "chat-media", "media/big.bin", {"UploadId": "2~abc/DEF+ghi=", "PartNumber": 3}, 900,
     "2026-12-03T08:15:42"),
    ("longest-expiry", "get_object", "http://[::1]:9000", "us-west-2",
     "chat-media", "media/x", {}, 604800, "2026-12-31T23:59:59"),
]


# Requests the server signs in their Authorization header (S3Client): name, method, URL,
# body, signing time.
HEADER_CASES = [
    ("list-parts", "GET", "http://127.0.0.1:9000/chat-media/media/big.bin?uploadId=2~abc%2FDEF",
     b"", "2026-12-03T08:15:42"),
    ("complete-upload", "POST", "http://127.0.0.1:9000/chat-media/media/big.bin?uploadId=u1",
     b'<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"aa"</ETag></Part>'
     b"</CompleteMultipartUpload>", "2024-02-29T23:59:59"),
    ("create-upload", "POST", "https://storage.example.org/chat-media/media/a%20b.pdf?uploads=",
     b"", "2038-01-19T03:14:08"),
]


def header_signed(case):
    name, method, url, body, at = case
    fixed = datetime.datetime.fromisoformat(at)
    request = AWSRequest(method=method, url=url, data=body)
    with mock.patch("botocore.auth.get_current_datetime", return_value=fixed):
        S3SigV4Auth(Credentials(ACCESS_KEY, SECRET_KEY), "s3", "us-east-1").add_auth(request)
    parts = urllib.parse.urlsplit(url)
    return {
        "name": name,
        "method": method,
        "host": parts.netloc,
        "path": urllib.parse.unquote(parts.path),
        "query": [[n, v] for n, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)],
        "body": body.decode(),
        "time": int(fixed.replace(tzinfo=datetime.timezone.utc).timestamp()),
        "headers": {name: request.headers[name]
                    for name in ("X-Amz-Date", "X-Amz-Content-SHA256", "Authorization")},
    }


def presigned(case):
    name, operation, endpoint, region, bucket, key, extra, expires, at = case
    fixed = datetime.datetime.fromisoformat(at)
    with mock.patch("botocore.auth.get_current_datetime", return_value=fixed):
        client = boto3.client(
            "s3", region_name=region, endpoint_url=endpoint,
            aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
            config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))
        params = {"Bucket": bucket, "Key": key, **extra}
        url = client.generate_presigned_url(operation, Params=params, ExpiresIn=expires)
    parts = urllib.parse.urlsplit(url)
    query = [[n, v] for n, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
             if not n.startswith("X-Amz-")]
    method = {"get_object": "GET", "put_object": "PUT", "upload_part": "PUT"}[operation]
    return {
        "name": name,
        "method": method,
        "scheme": parts.scheme,
        "host": parts.netloc,
        "path": f"/{bucket}/{key}",
        "query": query,
        "region": region,
        "expires": expires,
        "time": int(fixed.replace(tzinfo=datetime.timezone.utc).timestamp()),
        "url": url,
    }


def main(arguments):
    if len(arguments) != 2 or arguments[0] not in ("--write", "--check"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 64
    computed = {"accessKeyID": ACCESS_KEY, "secretAccessKey": SECRET_KEY,
                "cases": [presigned(case) for case in CASES],
                "headerCases": [header_signed(case) for case in HEADER_CASES]}
    if arguments[0] == "--write":
        with open(arguments[1], "w", encoding="utf-8") as file:
            json.dump(computed, file, indent=2, ensure_ascii=False)
            file.write("\n")
        print(f"wrote {len(computed['cases'])} cases")
        return 0
    with open(arguments[1], encoding="utf-8") as file:
        committed = json.load(file)
    passed = failed = 0
    for case in computed["cases"]:
        held = next((c for c in committed["cases"] if c["name"] == case["name"]), None)
        if held == case:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {case['name']}: botocore now says {case['url']}")
    for case in computed["headerCases"]:
        held = next((c for c in committed.get("headerCases", []) if c["name"] == case["name"]), None)
        if held == case:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {case['name']}: botocore now signs {case['headers']['Authorization']}")
    names = lambda data, key: {c["name"] for c in data.get(key, [])}  # noqa: E731
    if any(names(committed, key) != names(computed, key) for key in ("cases", "headerCases")):
        failed += 1
        print("FAIL the committed file holds other cases than this script")
    print(f"botocore-presigned: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
