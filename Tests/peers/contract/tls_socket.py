"""A TLS client socket that two threads may use at once, for websockets' threading client.

websockets.sync reads the socket in a background thread while the caller's thread writes
(the upgrade request, frames, the close). On an ssl.SSLSocket that is a known CPython race
(python/cpython#77271; python-engineio#461): one OpenSSL session used by two threads at once.
With TLS 1.3 it bites right after the handshake, when the reader thread takes the server's
session tickets while the writer sends the upgrade request: the write reports WANT_READ and
waits for bytes the reader already took, and the request goes out only when the server times
the connection out (about 1 connect in 500 here, a CI failure in tls.py).

`LockedTLSSocket` keeps one ssl.SSLObject over memory buffers and takes a lock around every use
of it; the blocking socket reads and writes happen outside that lock, so a reader waiting for
bytes never holds up a writer. Only what websockets.sync calls is provided.
"""

import socket
import ssl
import threading

from websockets.sync.client import connect


class LockedTLSSocket:
    recv_size = 65536

    def __init__(self, raw, context, server_hostname, timeout):
        self.raw = raw
        self.family = raw.family
        self.lock = threading.Lock()
        # Held from taking ciphertext out of the session until it is sent, so records reach
        # the wire in the order OpenSSL made them.
        self.send_lock = threading.Lock()
        self.incoming = ssl.MemoryBIO()
        self.outgoing = ssl.MemoryBIO()
        self.session = context.wrap_bio(self.incoming, self.outgoing,
                                        server_hostname=server_hostname)
        raw.settimeout(timeout)
        while True:  # the handshake, on this thread alone
            try:
                self.session.do_handshake()
                break
            except ssl.SSLWantReadError:
                self._send_output()
                self._receive_input()
        self._send_output()
        raw.settimeout(None)

    def _send_output(self):
        with self.lock:
            data = self.outgoing.read()
            self.send_lock.acquire()
        try:
            if data:
                self.raw.sendall(data)
        finally:
            self.send_lock.release()

    def _receive_input(self):
        data = self.raw.recv(self.recv_size)
        with self.lock:
            if data:
                self.incoming.write(data)
            else:
                self.incoming.write_eof()

    def recv(self, size):
        """What the session can decrypt, waiting for the peer only when it has nothing: every
        plaintext byte it holds is returned, since websockets waits with select() on the raw
        socket, which cannot see bytes already decrypted (so `size` is a hint)."""
        chunks = []
        while True:
            try:
                with self.lock:
                    data = self.session.read(size)
                if not data:
                    break
                chunks.append(data)
            except ssl.SSLWantReadError:
                self._send_output()  # reading may answer (a key update)
                if chunks:
                    break
                self._receive_input()
            except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
                break
        return b"".join(chunks)

    def sendall(self, data):
        with self.lock:
            self.session.write(data)
        self._send_output()

    def settimeout(self, timeout):
        self.raw.settimeout(timeout)

    def setsockopt(self, *arguments):
        self.raw.setsockopt(*arguments)

    def shutdown(self, how):
        self.raw.shutdown(how)

    def fileno(self):
        return self.raw.fileno()

    def close(self):
        self.raw.close()

    def getsockname(self):
        return self.raw.getsockname()

    def getpeername(self):
        return self.raw.getpeername()


def connect_wss(port, path, context, open_timeout=10, **options):
    """websockets' threading client on wss://127.0.0.1:port/path over a LockedTLSSocket (the
    TLS handshake is done here, so websockets is handed a ws:// URI and the finished socket)."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=open_timeout)
    try:
        tls = LockedTLSSocket(raw, context, "127.0.0.1", open_timeout)
    except BaseException:
        raw.close()
        raise
    return connect(f"ws://127.0.0.1:{port}{path}", sock=tls, open_timeout=open_timeout, **options)
