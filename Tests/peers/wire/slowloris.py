"""Slowloris: 500 connections trickle a request one byte a second while a normal client is
served promptly; the header timeout (3 s here, 10 s by default) answers the trickling
connections with 408 and closes them. Bounded: about 6 seconds. Ends with 'N passed, N failed'."""

import asyncio
import sys
import time

import wirepeer

CONNECTIONS = 500
HEADER_TIMEOUT_MS = 3000
report = wirepeer.Report("slowloris")


async def trickle(port, outcome, connected):
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as error:
        outcome.append(f"connect failed: {error}")
        connected.release()
        return
    connected.release()
    request = b"GET /healthz HTTP/1.1\r\nHost: example\r\nX-Slow: " + b"a" * 100
    started = time.monotonic()
    try:
        for byte in request:
            writer.write(bytes([byte]))
            await writer.drain()
            try:
                data = await asyncio.wait_for(reader.read(1024), 1.0)
                outcome.append(("answered", data[:12], time.monotonic() - started))
                writer.close()
                return
            except asyncio.TimeoutError:
                pass
        outcome.append(("never answered", b"", time.monotonic() - started))
    except (ConnectionError, OSError):
        outcome.append(("reset", b"", time.monotonic() - started))
    finally:
        writer.close()


async def normal_client(port, latencies, connected):
    for _ in range(CONNECTIONS):  # wait until every trickling connection is open
        await connected.acquire()
    for _ in range(20):
        started = time.monotonic()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: example\r\nConnection: close\r\n\r\n")
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), 5)
        latencies.append((time.monotonic() - started, data.startswith(b"HTTP/1.1 200")))
        writer.close()
        await asyncio.sleep(0.12)  # spread the requests over the trickling window (< 3 s)


async def run(port):
    outcomes, latencies = [], []
    connected = asyncio.Semaphore(0)
    tasks = [asyncio.create_task(trickle(port, outcomes, connected)) for _ in range(CONNECTIONS)]
    await asyncio.wait_for(normal_client(port, latencies, connected), 20)
    await asyncio.wait_for(asyncio.gather(*tasks), 20)
    return outcomes, latencies


def main():
    wirepeer.raise_file_limit(4096)
    started = time.monotonic()
    with wirepeer.Server("--header-timeout-ms", str(HEADER_TIMEOUT_MS)) as server:
        outcomes, latencies = asyncio.run(run(server.port))
    worst = max(latency for latency, _ in latencies)
    report.check("the normal client is served every time while 500 connections trickle",
                 all(ok for _, ok in latencies) and len(latencies) == 20, f"{latencies}")
    report.check("the normal client is served promptly (worst < 250 ms)", worst < 0.25,
                 f"worst {worst * 1000:.0f} ms")
    timed_out = [o for o in outcomes if isinstance(o, tuple) and o[0] == "answered"
                 and o[1].startswith(b"HTTP/1.1 408")]
    report.check("every trickling connection gets 408 from the header timeout",
                 len(timed_out) == CONNECTIONS,
                 f"{len(timed_out)} of {CONNECTIONS}; others: {[o for o in outcomes if o not in timed_out][:3]}")
    slowest = max((o[2] for o in timed_out), default=0)
    report.check("the 408 comes near the configured timeout (3 s, at most 1.5 s late)",
                 HEADER_TIMEOUT_MS / 1000 - 0.1 <= slowest < HEADER_TIMEOUT_MS / 1000 + 1.5,
                 f"slowest {slowest:.2f} s")
    print(f"  normal client: 20 requests, worst {worst * 1000:.1f} ms; "
          f"{len(timed_out)} trickling connections timed out; {time.monotonic() - started:.1f} s")
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
