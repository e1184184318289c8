"""Our WebSocket server against the Python `websockets` and `wsproto` clients, and our
WebSocket client against a `websockets` server and a silent raw peer. Ends with
'N passed, N failed'."""

import asyncio
import socket
import subprocess
import sys
import time

import websockets
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve
from wsproto import ConnectionType, WSConnection
from wsproto.events import (AcceptConnection, BytesMessage, CloseConnection, Message, Ping, Pong,
                            Request, TextMessage)

import wirepeer

report = wirepeer.Report("websocket peers")


async def websockets_client_against_server(port):
    url = f"ws://127.0.0.1:{port}/ws"
    async with connect(url, max_size=2 ** 21) as ws:
        texts = [f"message {i} ✓" for i in range(100)]
        for text in texts:
            await ws.send(text)
        echoed = [await ws.recv() for _ in texts]
        report.check("websockets: 100 text messages echoed in order", echoed == texts)
        await ws.send(b"\x00\x01\xfe\xff")
        report.check("websockets: binary message echoed", await ws.recv() == b"\x00\x01\xfe\xff")
        big = "é" * 500_000
        await ws.send(big)
        report.check("websockets: 1 MB text message echoed", await ws.recv() == big)
        fragments = ["frag-1 ", "frag-2 ", "frag-3"]
        await ws.send(iter(fragments))
        report.check("websockets: fragmented message reassembled", await ws.recv() == "".join(fragments))
        pong = await ws.ping(b"are you there")
        latency = await asyncio.wait_for(pong, 5)
        report.check("websockets: ping answered with a pong", latency >= 0)
        await ws.close(4000, "done here")
        report.check("websockets: close code echoed", ws.close_code == 4000, f"{ws.close_code}")

    async with connect(url, max_size=2 ** 22) as ws:
        await ws.send("x" * (2 ** 20 + 1))
        try:
            await asyncio.wait_for(ws.recv(), 5)
            report.check("websockets: message over 1 MiB closes with 1009", False, "echoed")
        except websockets.ConnectionClosed as closed:
            report.check("websockets: message over 1 MiB closes with 1009",
                         closed.rcvd and closed.rcvd.code == 1009, f"{closed}")

    try:
        async with connect(f"ws://127.0.0.1:{port}/ws-auth"):
            report.check("websockets: upgrade without a token is refused with 401", False, "opened")
    except websockets.InvalidStatus as error:
        report.check("websockets: upgrade without a token is refused with 401",
                     error.response.status_code == 401
                     and b'"unauthorized"' in error.response.body, f"{error.response.status_code}")
    async with connect(f"ws://127.0.0.1:{port}/ws-auth",
                       additional_headers={"Authorization": "Bearer good"}) as ws:
        await ws.send("with token")
        report.check("websockets: upgrade with a token is accepted", await ws.recv() == "with token")

    # Many clients at once, each with its own conversation.
    async def one(index):
        async with connect(url) as ws:
            for round in range(20):
                await ws.send(f"{index}:{round}")
                if await ws.recv() != f"{index}:{round}":
                    return False
            return True
    results = await asyncio.gather(*(one(i) for i in range(50)))
    report.check("websockets: 50 concurrent clients each get their own echoes", all(results))


def wsproto_client_against_server(port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    ws = WSConnection(ConnectionType.CLIENT)
    sock.sendall(ws.send(Request(host=f"127.0.0.1:{port}", target="/ws")))
    events = []

    def pump(until):
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            for event in ws.events():
                events.append(event)
                if isinstance(event, Ping):
                    sock.sendall(ws.send(event.response()))
                if until(event):
                    return event
            data = sock.recv(65536)
            if not data:
                ws.receive_data(None)
                continue
            ws.receive_data(data)
        return None

    accepted = pump(lambda e: isinstance(e, AcceptConnection))
    report.check("wsproto: handshake accepted", accepted is not None)
    sock.sendall(ws.send(TextMessage(data="part one, ", message_finished=False)))
    sock.sendall(ws.send(Ping(payload=b"between fragments")))
    sock.sendall(ws.send(TextMessage(data="part two", message_finished=True)))
    pong = pump(lambda e: isinstance(e, Pong))
    report.check("wsproto: ping between fragments answered",
                 pong is not None and pong.payload == b"between fragments")
    text = ""
    while True:
        message = pump(lambda e: isinstance(e, TextMessage))
        if message is None:
            break
        text += message.data
        if message.message_finished:
            break
    report.check("wsproto: fragmented text echoed whole", text == "part one, part two", repr(text))
    sock.sendall(ws.send(BytesMessage(data=bytes(range(256)))))
    data = b""
    while True:
        message = pump(lambda e: isinstance(e, BytesMessage))
        if message is None:
            break
        data += message.data
        if message.message_finished:
            break
    report.check("wsproto: binary echoed", data == bytes(range(256)))
    sock.sendall(ws.send(CloseConnection(code=1000, reason="bye")))
    closed = pump(lambda e: isinstance(e, CloseConnection))
    report.check("wsproto: clean close answered with 1000", closed is not None and closed.code == 1000)
    sock.settimeout(3)
    report.check("wsproto: server closes the TCP connection after the handshake",
                 sock.recv(10) == b"")
    sock.close()


def dead_client_is_dropped():
    """A client that completes the handshake and then never answers is dropped by the server's
    pings within ping interval + ping timeout."""
    with wirepeer.Server("--ping-interval-ms", "300", "--ping-timeout-ms", "300") as server:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        ws = WSConnection(ConnectionType.CLIENT)
        sock.sendall(ws.send(Request(host="x", target="/ws")))
        started = time.monotonic()
        received = b""
        sock.settimeout(5)
        while True:
            data = sock.recv(65536)
            if not data:
                break
            received += data
        elapsed = time.monotonic() - started
        pings = received.count(b"\x89\x00")
        report.check("server pings a silent client and drops it within the bound",
                     pings >= 1 and elapsed < 2.0, f"{pings} pings, {elapsed:.2f} s")
        sock.close()


def slow_reader_is_dropped():
    """A client that never reads cannot make the server buffer without limit."""
    with wirepeer.Server("--max-buffered", "1048576") as server:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        ws = WSConnection(ConnectionType.CLIENT)
        sock.sendall(ws.send(Request(host="x", target="/ws-push?count=200000&size=1000")))
        deadline = time.monotonic() + 10
        line = ""
        while time.monotonic() < deadline:
            line = server.process.stdout.readline().strip()
            if line.startswith("push closed"):
                break
        report.check("a client that does not read is dropped (bounded buffer)",
                     line.startswith("push closed"), line)
        probe = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        probe.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        report.check("the server still serves others after dropping a slow reader",
                     probe.recv(100).startswith(b"HTTP/1.1 200"))
        probe.close()
        sock.close()


async def graceful_shutdown():
    server = wirepeer.Server("--loops", "2")
    server.__enter__()
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /slow?ms=700 HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    ws = await connect(f"ws://127.0.0.1:{server.port}/ws")
    loop = asyncio.get_running_loop()
    started = await loop.run_in_executor(None, server.process.stdout.readline)
    report.check("the slow request reached its handler before shutdown", started.strip() == "slow started")
    stopping = loop.run_in_executor(None, server.shutdown)
    response = await asyncio.wait_for(reader.read(), 10)
    report.check("shutdown lets an in-flight request finish (with Connection: close)",
                 response.startswith(b"HTTP/1.1 200") and b"slow done" in response
                 and b"Connection: close" in response, repr(response[:80]))
    try:
        await asyncio.wait_for(ws.recv(), 10)
    except websockets.ConnectionClosed as closed:
        report.check("shutdown closes WebSockets with 1001", closed.rcvd and closed.rcvd.code == 1001,
                     f"{closed}")
    lines = await stopping
    report.check("shutdown completes", "stopped" in lines, f"{lines}")
    refused = False
    try:
        socket.create_connection(("127.0.0.1", server.port), timeout=1).close()
    except OSError:
        refused = True
    report.check("no connection is accepted after shutdown", refused)


async def our_client_against_websockets_server():
    seen_headers = {}

    async def handler(ws):
        seen_headers["Authorization"] = ws.request.headers.get("Authorization")
        async for message in ws:
            await ws.send(message)

    def process_request(connection, request):
        if request.path == "/auth" and request.headers.get("Authorization") != "Bearer good":
            return connection.respond(401, "token expired\n")
        return None

    async with serve(handler, "127.0.0.1", 0, process_request=process_request,
                     ping_interval=0.3, ping_timeout=1) as server:
        port = server.sockets[0].getsockname()[1]

        def run(*arguments):
            return wirepeer.run_client(*arguments)

        loop = asyncio.get_running_loop()
        lines = await loop.run_in_executor(None, lambda: run(
            "--url", f"ws://127.0.0.1:{port}/auth", "--header", "Authorization: Bearer good",
            "--send", "hello", "--send", "κόσμε", "--expect", "2"))
        report.check("our client: echo through a websockets server",
                     lines[:3] == ["open", "message hello", "message κόσμε"]
                     and lines[-1].startswith("closed 1000"), f"{lines}")
        report.check("our client: extra headers reach the server",
                     seen_headers.get("Authorization") == "Bearer good")
        lines = await loop.run_in_executor(None, lambda: run("--url", f"ws://127.0.0.1:{port}/auth"))
        report.check("our client: a 401 handshake surfaces as 'rejected 401'",
                     lines == ["rejected 401"], f"{lines}")
        # The server pings every 0.3 s and closes after 1 s without a pong: staying connected
        # for 1.5 s proves our client answers pings.
        lines = await loop.run_in_executor(None, lambda: run(
            "--url", f"ws://127.0.0.1:{port}/echo", "--send", "stay", "--expect", "1",
            "--ping-interval-ms", "0", "--linger-ms", "1500"))
        report.check("our client answers the server's pings",
                     "message stay" in lines and lines[-1].startswith("closed 1000"), f"{lines}")


def our_client_finds_a_dead_server():
    """A server that completes the handshake and then goes silent (looks open, is dead): our
    client must notice within ping interval + ping timeout."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    process = subprocess.Popen(
        [wirepeer.binary(), "client", "--url", f"ws://127.0.0.1:{port}/live",
         "--ping-interval-ms", "300", "--ping-timeout-ms", "300"], stdout=subprocess.PIPE, text=True)
    sock, _ = listener.accept()
    ws = WSConnection(ConnectionType.SERVER)
    while True:
        ws.receive_data(sock.recv(65536))
        event = next(ws.events(), None)
        if isinstance(event, Request):
            sock.sendall(ws.send(AcceptConnection()))
            break
    output, _ = process.communicate(timeout=10)
    lines = output.splitlines()
    closed = [line for line in lines if line.startswith("closed")]
    ok = bool(closed) and closed[0].split()[1] == "1006" and int(closed[0].split()[2]) < 2000
    report.check("our client finds a silent server dead within the bound", ok, f"{lines}")
    sock.close()
    listener.close()


def our_client_connect_errors():
    lines = wirepeer.run_client("--url", "ws://127.0.0.1:1/x")
    report.check("our client: refused connection is an error",
                 len(lines) == 1 and lines[0].startswith("error Connection failed"), f"{lines}")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    started = time.monotonic()
    lines = wirepeer.run_client("--url", f"ws://127.0.0.1:{port}/x", "--connect-timeout-ms", "500")
    elapsed = time.monotonic() - started
    report.check("our client: a handshake that never comes times out",
                 lines == ["error The WebSocket handshake timed out."] and elapsed < 3,
                 f"{lines} {elapsed:.2f}")
    listener.close()
    lines = wirepeer.run_client("--url", "http://example/x")
    report.check("our client: http:// is refused as an invalid URL",
                 len(lines) == 1 and lines[0].startswith("error Not a ws:// or wss:// URL"),
                 f"{lines}")


def main():
    wirepeer.raise_file_limit()
    with wirepeer.Server() as server:
        asyncio.run(websockets_client_against_server(server.port))
        wsproto_client_against_server(server.port)
    dead_client_is_dropped()
    slow_reader_is_dropped()
    asyncio.run(graceful_shutdown())
    asyncio.run(our_client_against_websockets_server())
    our_client_finds_a_dead_server()
    our_client_connect_errors()
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
