"""A delete erases every byte (issue 33), read the way an attacker reads a stolen disk: `grep -a`.

alice writes unique markers in every script the search indexes handle (a Latin word; CJK, Thai
and emoji, which also go to the trigram index) into a message, an edit of it, a photo's caption
and a document's name and bytes; bob receives them all and downloads the media. Before the
deletes the markers are found in the files (so the check can see them). Then alice deletes the
three messages, both devices sync, and the server says its erasure is done (`/metrics`,
`chat_store_erasure_owed 0`). Every file of both devices' folders (databases, logs, media) and
of the server's data folder (its SQLite database and log, the built-in object store's folder)
and the server's own log must hold none of the markers as raw bytes.

Then the same delete with the server's data in PostgreSQL (a throwaway cluster,
scripts/postgres-local; `--vacuum-interval 1`): once the node's VACUUM ran, no table file and
no index but the GIN word index holds the markers. What remains, which the test reports and
docs/erasure.md states: the GIN index keeps each word as a key (not the text, no row)
until the index is rebuilt, and the write-ahead log keeps the text until its segment is
recycled."""

import os

import subprocess

from harness import (ROOT, Device, Results, Server, free_port, postgres_local, remove,
                     temporary_folder, wait_for)

# (where, markers): each place has markers of its own, so a hit says which place leaked.
MARKERS = {
    "message": ["zqxalphamsg", "䨻䲜䶑", "ฃฅฆฌ", "🦩🪼"],
    "edit": ["zqxcharlieedit", "䴔䴕䵷", "ฑฒณด", "🪸🪷"],
    "caption": ["zqxbravocap", "䵲䵳䵴", "ญฎฏฐ", "🛼🪬"],
    "document": ["zqxdeltadoc", "䶀䶁䶂", "ฤฦศษ", "🫎🪻"],
}


def text(place):
    return " ".join(MARKERS[place])


def files_under(*folders):
    for folder in folders:
        for directory, _, names in os.walk(folder):
            for name in names:
                yield os.path.join(directory, name)


def hits(folders, markers):
    """(marker, file) for each marker found as raw bytes in a file under `folders`."""
    found = []
    for path in files_under(*folders):
        try:
            with open(path, "rb") as file:
                data = file.read()
        except OSError:
            continue
        found += [(marker, path) for marker in markers if marker.encode() in data]
    return found


def png():
    """A tiny valid PNG (one red pixel), made here."""
    import struct
    import zlib

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def main():
    results = Results("erasure")
    root = temporary_folder("chat-e2e-erasure-")
    server_folder = os.path.join(root, "server")
    log_path = os.path.join(root, "server.log")
    server = Server(server_folder,
                    extra=["--object-store-port", str(free_port()), "--log", log_path]).start()
    alice = Device(server, "alice", "phone", root)
    bob = Device(server, "bob", "phone", root)
    every_marker = [marker for markers in MARKERS.values() for marker in markers]
    state = {}
    try:
        def exchange():
            for device in (alice, bob):
                device.run("login")
            chat = alice.json("create", "--title", "Secrets", "--members", "bob")["id"]
            state["chat"] = chat
            state["message"] = alice.json("send", chat, "secret " + text("message"))
            photo = os.path.join(root, "view.png")
            with open(photo, "wb") as file:
                file.write(png())
            state["photo"] = alice.json("send", chat, text("caption"), "--photo", photo)
            document = os.path.join(root, f"{'-'.join(MARKERS['document'])}.txt")
            with open(document, "w", encoding="utf-8") as file:
                file.write("the document " + text("document") + "\n")
            state["document"] = alice.json("send", chat, "--file", document)
            os.remove(document)
            os.remove(photo)
            for key in ("message", "photo", "document"):
                assert state[key]["state"] == "sent", state[key]
            bob.run("sync")
            for key in ("photo", "document"):
                bob.run("download", chat, state[key]["clientMessageId"])

        results.check("alice sends a message, a photo with a caption and a document; bob "
                      "downloads both", exchange)

        def seen_before():
            folders = (alice.data, bob.data, server_folder)
            found = {marker for marker, _ in hits(folders, every_marker)}
            missing = [m for m in every_marker if m not in found and m not in MARKERS["edit"]]
            assert not missing, f"the check cannot see {missing}"

        results.check("before the deletes every marker is in the files (the check can see them)",
                      seen_before)

        def edit_then_delete():
            chat = state["chat"]
            alice.run("edit", chat, state["message"]["clientMessageId"],
                      "edited " + text("edit"))
            bob.run("sync")
            message_markers = MARKERS["message"]
            server.wait_for_erasure()
            left = hits((alice.data, bob.data, server_folder), message_markers)
            assert not left, f"the edited-away text is still in {left[:3]}"
            for key in ("message", "photo", "document"):
                alice.run("delete", chat, state[key]["clientMessageId"])
            alice.run("sync")
            bob.run("sync")
            server.wait_for_erasure()

        results.check("alice edits the message, then deletes all three; both devices sync",
                      edit_then_delete)

        def nothing_left():
            found = hits((alice.data, bob.data, server_folder, log_path), every_marker)
            places = sorted({place for marker, _ in found for place, markers in MARKERS.items()
                             if marker in markers})
            assert not found, (f"{len(found)} hits ({', '.join(places)}): "
                               + "; ".join(f"{m} in {os.path.relpath(p, root)}"
                                           for m, p in found[:6]))
            files = sum(1 for _ in files_under(alice.data, bob.data, server_folder))
            print(f"    0 of {len(every_marker)} markers in {files} files of two devices and "
                  "the server (and its log)", flush=True)

        results.check("no marker of any script in any file of either device or of the server",
                      nothing_left)
    finally:
        server.stop()
    try:
        on_postgres(results, root)
    finally:
        if results.failed:
            print(f"  kept {root} for inspection", flush=True)
        else:
            remove(root)
    results.finish()


def psql(cluster, sql):
    return subprocess.run([os.path.join(ROOT, "scripts", "postgres-local"), "psql", cluster,
                           "-Atc", sql], stdout=subprocess.PIPE, text=True, check=True).stdout


def on_postgres(results, root):
    started = dict(line.split("=", 1) for line in postgres_local("start").split())
    cluster, url = started["CHAT_PG_DIR"], started["CHAT_DATABASE_URL"]
    server = Server(os.path.join(root, "pg-node"),
                    extra=["--database", url, "--vacuum-interval", "1"]).start()
    alice = Device(server, "alice", "pg-phone", root)
    bob = Device(server, "bob", "pg-phone", root)
    markers = MARKERS["message"]
    data = os.path.join(cluster, "data")
    database = os.path.join(data, "base", psql(cluster, "SELECT oid FROM pg_database "
                                                        "WHERE datname = current_database()").strip())
    try:
        def sent_and_seen():
            for device in (alice, bob):
                device.run("login")
            chat = alice.json("create", "--title", "Secrets", "--members", "bob")["id"]
            sent = alice.json("send", chat, "secret " + text("message"))
            bob.run("sync")
            psql(cluster, "CHECKPOINT")
            found = {marker for marker, _ in hits((database,), markers)}
            assert found, "the check cannot see the text in the database's files"
            alice.run("delete", chat, sent["clientMessageId"])
            bob.run("sync")

        results.check("on PostgreSQL: alice sends the markers, bob gets them, alice deletes",
                      sent_and_seen)

        def vacuumed():
            wait_for("the node's VACUUM", lambda: server.metric("chat_store_erasure_owed") == 0)
            psql(cluster, "CHECKPOINT")
            by_relation = {}
            for marker, path in hits((database,), markers):
                file = os.path.relpath(path, data).split(".")[0]
                name = psql(cluster, "SELECT relname FROM pg_class WHERE "
                                     f"pg_relation_filepath(oid) = '{file}'").strip()
                by_relation.setdefault(name, set()).add(marker)
            # What VACUUM cannot take: a GIN index keeps a key (a word) whose rows are gone
            # until the index is rebuilt. Whole texts, and every other file, must be clean.
            kept = {name: words for name, words in by_relation.items()
                    if not name.endswith("_to_tsvector_idx")}
            assert not kept, f"still in {kept}"
            words = sorted({word for found in by_relation.values() for word in found})
            wal = hits((os.path.join(data, "pg_wal"),), markers)
            print(f"    after VACUUM: no table or other index holds them; the GIN word index "
                  f"keeps {len(words)} words as keys (until REINDEX); the write-ahead log "
                  f"{len(wal)} hits until its segment is recycled", flush=True)

        results.check("on PostgreSQL: after the node's VACUUM no table file and no index but the "
                      "GIN word index holds them",
                      vacuumed)
    finally:
        server.stop()
        postgres_local("stop", cluster)


if __name__ == "__main__":
    main()
