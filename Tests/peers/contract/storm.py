"""A reconnect storm (issue 38): DEVICES devices hold live sockets across DEVICES / 10 group
conversations (ten members each, one device per user), the server is killed (-9) in the middle
of a stream of sends and started again on the same port and data folder, and every device
reconnects and catches up at once, as after a deploy or a crash.

    scripts/storm DEVICES [--json FILE] [--max-catch-ups N] [--down SECONDS]
                      (the release server; CHAT_SERVER_BINARY for another)

Each device does what the engine does (`RetryPolicy`'s numbers): after a failure it waits a
random time between half and all of 0.5 s × 2ⁿ⁻¹ (capped at 30 s), never less than a
`Retry-After` the server sent; it opens its socket first, then catches its conversation up from
the last sequence it holds (pages of 200), then reads its socket. A sender keeps posting through
the crash, each message retried with its clientMessageId until acknowledged.

Measured: the time from the restart until every device holds every acknowledged message of its
conversation (and its socket is open again), the server's peak resident memory (VmHWM) and CPU
over the storm, and the answers shed (503 and 429, by what was asked). It fails (exit 1) when a
device misses an acknowledged message, holds one twice, or a request got an answer the contract
does not give.
"""

import argparse
import asyncio
import json
import os
import random
import resource
import sys
import time
import uuid

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from chatserver import Server

MEMBERS = 10
BASE, CAP = 0.5, 30.0
PAGE = 200


class Storm:
    """What every device and the sender saw, counted."""

    def __init__(self):
        self.shed = {}  # (what, status) -> count
        self.unexpected = []
        self.duplicates = []
        self.acknowledged = {}  # conversation -> set of sequences
        self.sending = True

    def count_shed(self, what, status):
        self.shed[(what, status)] = self.shed.get((what, status), 0) + 1


def retry_after(headers):
    try:
        return float(headers.get("retry-after"))
    except (TypeError, ValueError):
        return 0.0


def backoff(failures, server_wait=0.0):
    full = min(CAP, BASE * (2 ** min(max(failures - 1, 0), 20)))
    return max(full / 2 + full / 2 * random.random(), server_wait)


class Phone:
    def __init__(self, storm, server, http, user, token):
        self.storm, self.server, self.http = storm, server, http
        self.user, self.token = user, token
        self.headers = {"Authorization": f"Bearer {token}"}
        self.conversation = None
        self.held = set()
        self.live = asyncio.Event()  # set while the socket is open
        self.reconnects = 0

    def take(self, sequence):
        if sequence in self.held:
            return False
        self.held.add(sequence)
        return True

    async def catch_up(self):
        """Pages after the highest sequence held with none missing below it; True when done."""
        while True:
            after = 0
            while after + 1 in self.held:
                after += 1
            response = await self.http.get(
                f"/v1/conversations/{self.conversation}/messages",
                params={"after": after, "limit": PAGE}, headers=self.headers)
            if response.status_code in (429, 503):
                self.storm.count_shed("catch-up page", response.status_code)
                return retry_after(response.headers)
            if response.status_code != 200:
                self.storm.unexpected.append(("catch-up page", response.status_code, response.text[:200]))
                return 1.0
            page = response.json()
            for item in page["items"]:
                self.take(item["sequence"])
            if not page["hasMore"]:
                return None

    async def run(self):
        """Reconnects, catches up and reads, for ever (cancelled at the end)."""
        failures = 0
        while True:
            wait = None
            try:
                async with connect(self.server.ws_url, additional_headers=self.headers,
                                   open_timeout=30, ping_interval=None, max_queue=None) as socket:
                    wait = await self.catch_up()
                    if wait is None:
                        failures = 0
                        self.live.set()
                        # The catch-up may already hold what the socket brings (fine); a socket
                        # that brings one message twice is not.
                        heard = set()
                        async for frame in socket:
                            event = json.loads(frame)
                            if event.get("type") == "message":
                                sequence = event["message"]["sequence"]
                                if sequence in heard:
                                    self.storm.duplicates.append((self.user, sequence))
                                heard.add(sequence)
                                self.take(sequence)
            except InvalidStatus as refused:
                status = refused.response.status_code
                if status in (429, 503):
                    self.storm.count_shed("socket upgrade", status)
                    wait = retry_after(refused.response.headers)
                else:
                    self.storm.unexpected.append(("socket upgrade", status, ""))
            except (ConnectionClosed, OSError, asyncio.TimeoutError, httpx.HTTPError):
                pass
            except Exception:  # a handshake cut by the kill, say: try again
                pass
            self.live.clear()
            self.reconnects += 1
            failures += 1
            await asyncio.sleep(backoff(failures, wait or 0.0))


async def sign_in(http, user):
    response = await http.post("/v1/auth/dev-login", json={"userId": user, "deviceId": "phone"})
    response.raise_for_status()
    return response.json()["accessToken"]


async def in_batches(coroutines, width):
    gate = asyncio.Semaphore(width)

    async def one(coroutine):
        async with gate:
            return await coroutine

    return await asyncio.gather(*(one(c) for c in coroutines))


async def sender(storm, http, tokens, conversations, interval):
    """Posts into random conversations until told to stop, each message retried (same id)
    until acknowledged."""
    rng = random.Random(7)
    number = 0
    while storm.sending:
        number += 1
        conversation, members = rng.choice(conversations)
        token = tokens[members[0]]
        body = {"clientMessageId": str(uuid.uuid4()), "text": f"storm {number}"}
        failures = 0
        while True:
            try:
                response = await http.post(f"/v1/conversations/{conversation}/messages", json=body,
                                           headers={"Authorization": f"Bearer {token}"})
                if response.status_code in (200, 201):
                    storm.acknowledged.setdefault(conversation, set()).add(response.json()["sequence"])
                    break
                if response.status_code in (429, 503):
                    storm.count_shed("send", response.status_code)
                elif response.status_code < 500:
                    storm.unexpected.append(("send", response.status_code, response.text[:200]))
                    break
                wait = retry_after(response.headers)
            except (httpx.HTTPError, OSError):
                wait = 0.0
            failures += 1
            await asyncio.sleep(backoff(failures, wait))
        await asyncio.sleep(interval)


def process_stats(pid):
    """(peak resident KiB, CPU seconds so far) of a process."""
    with open(f"/proc/{pid}/status") as handle:
        peak = next(int(line.split()[1]) for line in handle if line.startswith("VmHWM:"))
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return peak, (int(fields[11]) + int(fields[12])) / ticks


def converged(phones, storm):
    return all(storm.acknowledged.get(phone.conversation, set()) <= phone.held and phone.live.is_set()
               for phone in phones)


async def storm_run(options):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    devices = options.devices - options.devices % MEMBERS
    storm = Storm()
    server = Server("--dev", "--log", "off", "--address-rate-limit", "off", "--access-token-ttl", "3600",
                    "--max-catch-ups", str(options.max_catch_ups)).start()
    port = server.port
    limits = httpx.Limits(max_connections=min(devices, 512), max_keepalive_connections=min(devices, 512))
    report = {"devices": devices, "conversations": devices // MEMBERS, "maxCatchUps": options.max_catch_ups}
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=120, limits=limits) as http:
            users = [f"u{index}" for index in range(devices)]
            began = time.monotonic()
            tokens = dict(zip(users, await in_batches([sign_in(http, user) for user in users], 64)))
            print(f"storm: {devices} devices signed in in {time.monotonic() - began:.1f} s", flush=True)
            conversations = []
            for start in range(0, devices, MEMBERS):
                members = users[start:start + MEMBERS]
                created = await http.post("/v1/conversations", json={"title": f"g{start}", "memberIds": members[1:]},
                                          headers={"Authorization": f"Bearer {tokens[members[0]]}"})
                created.raise_for_status()
                conversations.append((created.json()["id"], members))
            phones = []
            for conversation, members in conversations:
                for user in members:
                    phone = Phone(storm, server, http, user, tokens[user])
                    phone.conversation = conversation
                    phones.append(phone)
            tasks = [asyncio.create_task(phone.run()) for phone in phones]
            await asyncio.wait_for(asyncio.gather(*(phone.live.wait() for phone in phones)), 300)
            print(f"storm: {devices} devices live in {len(conversations)} conversations", flush=True)
            sending = asyncio.create_task(sender(storm, http, tokens, conversations, options.interval))
            await asyncio.sleep(2)
            _, cpu_before = process_stats(server.process.pid)
            server.kill()
            killed = time.monotonic()
            await asyncio.sleep(options.down)
            server.start(port=port)
            restarted = time.monotonic()
            print(f"storm: killed, restarted after {restarted - killed:.1f} s", flush=True)
            # Sends go on through the reconnects, then stop: the last one acknowledged is the
            # last every device must hold.
            await asyncio.sleep(options.sending_after)
            storm.sending = False
            await sending
            last_acknowledged = time.monotonic()
            deadline = restarted + options.timeout
            sockets_back = None
            while not converged(phones, storm):
                if time.monotonic() > deadline:
                    break
                if sockets_back is None and all(phone.live.is_set() for phone in phones):
                    sockets_back = time.monotonic()
                await asyncio.sleep(0.05)
            done = time.monotonic()
            sockets_back = sockets_back or done
            peak, cpu = process_stats(server.process.pid)
            metrics = (await http.get("/metrics")).text
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        missing = sum(len(storm.acknowledged.get(p.conversation, set()) - p.held) for p in phones)
        acknowledged = sum(len(sequences) for sequences in storm.acknowledged.values())
        shed_metric = next((int(line.split()[1]) for line in metrics.splitlines()
                            if line.startswith("chat_catch_ups_shed_total ")), None)
        report.update({
            "acknowledged": acknowledged,
            "convergedSeconds": round(done - restarted, 3) if missing == 0 else None,
            "convergedAfterLastSendSeconds": round(max(0.0, done - last_acknowledged), 3),
            "socketsBackSeconds": round(sockets_back - restarted, 3),
            "sendingStoppedSeconds": round(last_acknowledged - restarted, 3),
            "missing": missing,
            "serverPeakRSSMiB": round(peak / 1024, 1),
            "serverCPUSecondsAfterRestart": round(cpu, 2),
            "serverCPUSecondsBeforeKill": round(cpu_before, 2),
            "shed": {f"{what} {status}": count for (what, status), count in sorted(storm.shed.items())},
            "catchUpsShedByServer": shed_metric,
            "reconnects": sum(phone.reconnects for phone in phones),
            "unexpected": storm.unexpected[:10],
            "duplicates": storm.duplicates[:10],
        })
    finally:
        server.cleanup()
    print(json.dumps(report, indent=2))
    if options.json:
        with open(options.json, "w") as handle:
            json.dump(report, handle, indent=2)
            handle.write("\n")
    ok = missing == 0 and not storm.unexpected and not storm.duplicates
    print(f"storm: {'ok' if ok else 'FAILED'}: {devices} devices, {acknowledged} acknowledged messages, "
          f"converged in {report['convergedSeconds']} s after the restart, "
          f"{sum(storm.shed.values())} answers shed")
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("devices", type=int)
    parser.add_argument("--json")
    parser.add_argument("--max-catch-ups", type=int, default=64)
    parser.add_argument("--down", type=float, default=1.0, help="seconds the server stays down")
    parser.add_argument("--interval", type=float, default=0.01, help="seconds between two sends")
    parser.add_argument("--timeout", type=float, default=600, help="longest wait for convergence")
    parser.add_argument("--sending-after", type=float, default=2.0,
                        help="seconds the sender goes on after the restart")
    options = parser.parse_args()
    if options.devices < MEMBERS:
        parser.error(f"at least {MEMBERS} devices")
    return asyncio.run(storm_run(options))


if __name__ == "__main__":
    sys.exit(main())
