"""The auth matrix: every route and the socket, with a token missing, malformed, wrongly signed or
expired; refresh rotation; dev-login only in dev mode."""

import base64
import re
import time
import uuid

from websockets.exceptions import InvalidStatus

from chatserver import Device, Server, wait_for

NIL = "00000000-0000-4000-8000-000000000000"
RFC3339_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def routes(conversation):
    """Every route that needs a token: (label, method, path, body)."""
    base = f"/v1/conversations/{conversation}"
    return [
        ("POST /v1/conversations", "POST", "/v1/conversations", {"memberIds": []}),
        ("GET /v1/conversations", "GET", "/v1/conversations", None),
        ("GET /v1/sync", "GET", "/v1/sync", None),
        ("GET messages", "GET", f"{base}/messages", None),
        ("POST messages", "POST", f"{base}/messages", {"clientMessageId": str(uuid.uuid4()), "text": "x"}),
        ("GET receipts", "GET", f"{base}/receipts", None),
        ("POST delivered", "POST", f"{base}/delivered", {"upToSequence": 0}),
        ("POST read", "POST", f"{base}/read", {"upToSequence": 0}),
    ]


def forged(token):
    """The same payload with a signature made by another key: valid shape, wrong signature."""
    payload, _, signature = token.partition(".")
    raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
    raw[0] ^= 0x01
    return payload + "." + base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")


def other_user(token):
    """A payload edited to another user, keeping the original signature."""
    payload, _, signature = token.partition(".")
    text = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
    edited = text.replace("\n", "\nx", 1)  # user id "auth-a" -> "xauth-a"
    return base64.urlsafe_b64encode(edited.encode()).decode().rstrip("=") + "." + signature


def socket_status(server, headers):
    """The status of a /v1/live upgrade: 101 when it opened."""
    try:
        with server.connect_live(headers, open_timeout=10):
            return 101
    except InvalidStatus as error:
        return error.response.status_code


def check_matrix(report, server, conversation, variants):
    for variant, headers in variants:
        for label, method, path, body in routes(conversation):
            response = server.request(method, path, json=body, headers=headers, timeout=30)
            report.expect_error(f"{variant}: {label}", response, 401, "unauthorized")
        report.check(f"{variant}: the /v1/live upgrade is refused 401", socket_status(server, headers) == 401)


def run(report, server):
    report.start_group("auth")
    anonymous = server.client()
    login = anonymous.post("/v1/auth/dev-login", json={"userId": "auth-a", "deviceId": "phone"})
    body = login.json()
    report.check("dev-login 200 with every field",
                 login.status_code == 200 and set(body) == {"accessToken", "refreshToken", "expiresAt", "userId",
                                                            "deviceId"}, login.text)
    report.check("dev-login echoes the ids", body.get("userId") == "auth-a" and body.get("deviceId") == "phone")
    report.check("expiresAt is RFC 3339 UTC with milliseconds", RFC3339_MS.match(body.get("expiresAt", "")),
                 body.get("expiresAt"))
    alice = Device(server, "auth-a")
    conversation = alice.create([])["id"]

    valid = alice.token
    check_matrix(report, server, conversation, [
        ("missing", {}),
        ("bearer without a token", {"Authorization": "Bearer"}),
        ("not bearer", {"Authorization": f"Basic {valid}"}),
        ("malformed", {"Authorization": "Bearer abc.def"}),
        ("no dot", {"Authorization": "Bearer " + valid.replace(".", "")}),
        ("wrong signature", {"Authorization": f"Bearer {forged(valid)}"}),
        ("payload edited", {"Authorization": f"Bearer {other_user(valid)}"}),
    ])
    for label, method, path, body in routes(conversation):
        response = alice.request(method, path, body)
        report.check(f"valid token: {label} is not 401", response.status_code in (200, 201, 204), response.text)
    report.check("valid token: the socket opens", socket_status(server, alice.auth) == 101)
    for path in ("/healthz", "/metrics"):
        report.check(f"{path} needs no token", anonymous.get(path).status_code == 200)

    report.start_group("refresh")
    first = alice.tokens["refreshToken"]
    rotated = anonymous.post("/v1/auth/refresh", json={"refreshToken": first})
    report.check("refresh answers a new pair", rotated.status_code == 200 and set(rotated.json()) == {
        "accessToken", "refreshToken", "expiresAt", "userId", "deviceId"}, rotated.text)
    pair = rotated.json()
    report.check("the new refresh token differs", pair.get("refreshToken") != first)
    report.check("refresh keeps user and device", pair.get("userId") == "auth-a" and pair.get("deviceId") == "phone")
    fresh = anonymous.get("/v1/conversations", headers={"Authorization": f"Bearer {pair['accessToken']}"})
    report.check("the new access token works", fresh.status_code == 200, fresh.text)
    again = anonymous.post("/v1/auth/refresh", json={"refreshToken": pair["refreshToken"]})
    report.check("the new refresh token works once", again.status_code == 200, again.text)
    report.expect_error("an unknown refresh token is refused",
                        anonymous.post("/v1/auth/refresh", json={"refreshToken": "nope"}), 401, "unauthorized")
    report.expect_error("refresh without the field is a 400",
                        anonymous.post("/v1/auth/refresh", json={}), 400, "bad_request")
    report.expect_error("an access token is not a refresh token",
                        anonymous.post("/v1/auth/refresh", json={"refreshToken": valid}), 401, "unauthorized")
    check_family_revoked(report, server, anonymous, first, again.json())
    anonymous.close()
    alice.close()


def check_family_revoked(report, server, anonymous, spent, newest):
    """`spent` presented again revokes its family (issue 33): `newest` (the family's latest
    pair) stops working, on every node, its socket gets 4001 "signed out", the reuse is
    counted and logged without a token; a new sign-in works."""
    report.start_group("refresh families")
    bearer = {"Authorization": f"Bearer {newest['accessToken']}"}
    live = server.connect_live(bearer, open_timeout=10, ping_interval=None)
    reused = anonymous.post("/v1/auth/refresh", json={"refreshToken": spent})
    report.expect_error("a spent refresh token presented again is refused", reused, 401, "unauthorized")
    report.expect_error("it revoked the newest refresh token of its family",
                        anonymous.post("/v1/auth/refresh", json={"refreshToken": newest["refreshToken"]}),
                        401, "unauthorized")
    # With several nodes, each request goes to the next one: the others learn of the revocation
    # through the relay, within moments.
    statuses = wait_for(lambda: [server.request("GET", "/v1/conversations", headers=bearer).status_code
                                 for _ in range(2)], lambda found: found == [401, 401])
    report.check("and the family's access tokens, on every node", statuses == [401, 401], str(statuses))
    code, reason = None, None
    try:
        while True:
            live.recv(timeout=10)
    except Exception:  # noqa: BLE001 - the close is what we wait for
        code, reason = live.close_code, live.close_reason
    report.check("the family's socket closes with 4001 \"signed out\"", (code, reason) == (4001, "signed out"),
                 f"{code} {reason!r}")
    counted = anonymous.get("/metrics").text
    report.check("the reuse is counted", re.search(r"^chat_refresh_token_reuses_total [1-9]", counted, re.M),
                 counted[-400:])
    log = wait_for(server.read_log, lambda text: "event=refresh_token_reused" in text)
    lines = [line for line in log.splitlines() if "event=refresh_token_reused" in line]
    report.check("the reuse is logged with user, device and family, without a token",
                 lines and "user=auth-a device=phone family=" in lines[0]
                 and not any(token in log for token in (spent, newest["refreshToken"], newest["accessToken"])),
                 lines[:1])
    again = Device(server, "auth-a")
    report.check("the device signs in again", again.request("GET", "/v1/conversations").status_code == 200)
    again.close()


def run_expiry(report):
    """A server with --access-token-ttl 1 --live-token-grace 1: every route and the socket
    refuse an expired token; a socket opened with it closes 4001 "token expired" a second after
    it expired; refresh gives a working one."""
    report.start_group("expiry")
    with Server("--dev", "--access-token-ttl", "1", "--live-token-grace", "1") as server:
        signed_in = time.monotonic()
        alice = Device(server, "exp-a")
        live = server.connect_live(alice.auth, open_timeout=10, ping_interval=None)
        conversation = alice.create([])["id"]
        issued = alice.tokens
        report.check("a fresh token works", alice.request("GET", "/v1/conversations").status_code == 200)
        # Waiting for the clock is the point of this case: the token lives one second.
        time.sleep(1.3)
        check_matrix(report, server, conversation, [("expired", alice.auth)])
        code, reason = None, None
        try:
            while True:
                live.recv(timeout=10)
        except Exception:  # noqa: BLE001 - the close is what we wait for
            code, reason = live.close_code, live.close_reason
        lived = time.monotonic() - signed_in
        report.check("a socket closes 4001 \"token expired\" after the token's expiry and the grace",
                     (code, reason) == (4001, "token expired") and 1.9 <= lived < 10,
                     f"{code} {reason!r} after {lived:.1f} s")
        renewed = server.request("POST", "/v1/auth/refresh", json={"refreshToken": issued["refreshToken"]})
        report.check("an expired session refreshes", renewed.status_code == 200, renewed.text)
        headers = {"Authorization": f"Bearer {renewed.json()['accessToken']}"}
        report.check("the refreshed token works",
                     server.request("GET", "/v1/conversations", headers=headers).status_code == 200)
        alice.close()


def run_production(report):
    """Without --dev there is no dev-login: 404, the unknown-route answer."""
    report.start_group("dev mode off")
    with Server() as server:
        response = server.request("POST", "/v1/auth/dev-login", json={"userId": "a", "deviceId": "b"})
        report.expect_error("dev-login is 404 without --dev", response, 404, "not_found")
        report.check("healthz still answers", server.request("GET", "/healthz").text == "ok")
