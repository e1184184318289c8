"""Three `chat listen` processes behind a proxy that refuses every WebSocket upgrade (403, as a
corporate proxy does) while it passes plain HTTP: each must fall back to long poll (its
connection state turns `polling` after three refused upgrades) and hear every message of a
group, sent by three other `chat` processes through the same proxy, exactly once and in the
server's order. The proxy records each upgrade it refused, so the test also shows that no
socket ever got through. A fourth, `chat listen --long-poll` straight to the server, never
tries the socket and hears the same."""

import socket
import sys
import threading
import time

from fault_proxy import message_length
from harness import Device, Listener, Results, Server, remove, temporary_folder, wait_for

USERS = ["alice", "bob", "carol"]
ROUNDS = 3


class UpgradeBlockingProxy:
    """Forwards HTTP requests to the server one by one; a request asking for a WebSocket
    upgrade is answered 403 by the proxy itself and the connection closed."""

    def __init__(self, upstream_port):
        self.upstream_port = upstream_port
        self.refused = 0
        self.lock = threading.Lock()
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def refusals(self):
        with self.lock:
            return self.refused

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client):
        server = None
        pending = bytearray()
        try:
            while True:
                data = client.recv(65536)
                if not data:
                    return
                pending += data
                while (length := message_length(pending)) is not None:
                    request = bytes(pending[:length])
                    del pending[:length]
                    head = request.split(b"\r\n\r\n", 1)[0].lower()
                    if b"\r\nupgrade: websocket" in head:
                        with self.lock:
                            self.refused += 1
                        body = b"WebSockets are not allowed on this network"
                        client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: "
                                       + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n"
                                       + body)
                        return
                    if server is None:
                        server = socket.create_connection(("127.0.0.1", self.upstream_port))
                        threading.Thread(target=self._pipe, args=(server, client),
                                         daemon=True).start()
                    server.sendall(request)
        except OSError:
            return
        finally:
            client.close()
            if server is not None:
                server.close()

    @staticmethod
    def _pipe(source, target):
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        try:
            target.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def main():
    root = temporary_folder("chat-blocked-ws-")
    results = Results("blocked-websockets")
    server = Server(f"{root}/server", tls=False).start()
    proxy = UpgradeBlockingProxy(server.port)
    proxy_server = type("ProxyServer", (), {"url": proxy.url, "ca_file": None})()
    listeners, state = [], {}
    try:
        phones = [Device(proxy_server, user, "phone", root) for user in USERS]
        laptops = [Device(proxy_server, user, "laptop", root) for user in USERS]
        # Straight to the server, asked to long-poll: it never tries the socket.
        tablet = Device(server, "carol", "tablet", root)

        def sign_in():
            for device in phones + laptops + [tablet]:
                device.run("login")
            state["chat"] = phones[0].json(
                "create", "--title", "Behind the proxy", "--members", "bob,carol")["id"]
            for laptop in laptops:
                laptop.run("sync")

        results.check("six devices sign in through the proxy; alice creates a group", sign_in)
        chat = state.get("chat", "")

        def fall_back():
            listeners.extend(Listener(device) for device in phones)
            listeners.append(Listener(tablet, "--long-poll"))
            wait_for("every listener to fall back to long poll",
                     lambda: all("polling" in listener.states() for listener in listeners),
                     timeout=60)
            assert all("connected" not in listener.states() for listener in listeners)
            assert proxy.refusals() >= 3 * len(phones), proxy.refusals()

        results.check("each `chat listen` turns to long poll after three refused upgrades "
                      "(and `chat listen --long-poll` at once)",
                      fall_back)

        def exchange():
            sent = []
            for round in range(ROUNDS):
                for laptop in laptops:
                    text = f"{laptop.user} #{round}"
                    reply = laptop.json("send", chat, text)
                    assert reply["state"] == "sent", reply
                    sent.append(text)
            state["sent"] = sent
            wait_for("every listener to hear every message",
                     lambda: all(len(listener.messages(chat)) == len(sent)
                                 for listener in listeners),
                     timeout=60)

        results.check("three devices send through the proxy; every listener hears them all",
                      exchange)

        def once_and_in_order():
            sent = state["sent"]
            for listener in listeners:
                heard = listener.messages(chat)
                # Once: each message was printed with one sequence and one text only.
                assert all(len(versions) == 1 for versions in heard.values()), heard
                ordered = sorted(next(iter(versions)) for versions in heard.values())
                assert [sequence for sequence, _ in ordered] == list(range(1, len(sent) + 1)), \
                    ordered
                # In order: the server's order is the order the sends were made (one at a time).
                assert [text for _, text in ordered] == sent, (ordered, sent)

        results.check("each listener heard each message once, in the server's order",
                      once_and_in_order)

        def stops_cleanly():
            codes = [listener.stop() for listener in listeners]
            assert codes == [0] * len(listeners), codes

        results.check("the listeners stop cleanly on SIGTERM, mid long poll", stops_cleanly)
    finally:
        for listener in listeners:
            if listener.process.poll() is None:
                listener.process.kill()
        proxy.listener.close()
        server.stop()
        remove(root)
    return results.finish()


if __name__ == "__main__":
    sys.exit(main())
