"""The server's whole media path with moto's S3 server (an independent S3 implementation) as
the object store, instead of the built-in one:

    .venv/bin/python Tests/peers/s3/moto_media.py     (after `swift build --product chat-server`)

Starts `moto_server` on a free loopback port, makes the bucket with boto3, starts chat-server
with `--s3-endpoint` (credentials in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY), and runs the
contract's media cases against it: the server calls moto with header-signed requests
(CreateMultipartUpload, ListParts, HeadObject, CompleteMultipartUpload, GetObject,
DeleteObject) and devices send and fetch the bytes with moto's presigned URLs. Then a
misconfigured store (a bucket that does not exist) must give 503, not a crash. Ends with
'N passed, N failed'.
"""
import os
import socket
import subprocess
import sys
import threading

import boto3

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "contract"))
import cases_media  # noqa: E402
from chatserver import Device, Report, Server  # noqa: E402

BUCKET = "chat-media"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_moto():
    """moto_server on a free port, once it says it is running (werkzeug's line on stderr; the
    rest of its log, a line a request, is drained by a thread)."""
    port = free_port()
    binary = os.path.join(os.path.dirname(sys.executable), "moto_server")
    process = subprocess.Popen([binary, "-H", "127.0.0.1", "-p", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in process.stderr:
        if "Running on" in line:
            break
    else:
        raise RuntimeError(f"moto_server exited at start (status {process.wait()})")
    threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
    return process, f"http://127.0.0.1:{port}"


def main():
    report = Report("s3-moto")
    os.environ["AWS_ACCESS_KEY_ID"] = "moto-key"
    os.environ["AWS_SECRET_ACCESS_KEY"] = "moto-secret"
    moto, url = start_moto()
    try:
        boto3.client("s3", endpoint_url=url, region_name="us-east-1").create_bucket(Bucket=BUCKET)
        with Server("--dev", "--s3-endpoint", url, "--s3-bucket", BUCKET) as server:
            alice = Device(server, "moto-alice")
            bob = Device(server, "moto-bob")
            cases_media.run_single(report, server, alice, bob)
            cases_media.run_multipart(report, server, alice)
            cases_media.run_refusals(report, server, alice, own_store=False)
            cases_media.run_messages(report, server, alice, bob)
        report.start_group("moto: a store that refuses")
        with Server("--dev", "--s3-endpoint", url, "--s3-bucket", "no-such-bucket") as server:
            alice = Device(server, "moto-carol")
            response = cases_media.create(alice, "file", 9 * 1024 * 1024, "a" * 64,
                                          content_type="application/pdf")
            report.expect_error("a bucket that does not exist makes uploads 503, to try again",
                                response, 503, "unavailable")
            report.check("and the server goes on answering", alice.request("GET", "/v1/conversations").status_code == 200)
    finally:
        moto.terminate()
        moto.wait(timeout=15)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
