"""Every committed PostgreSQL schema fixture (Tests/Fixtures/postgres/<name>/server.sql, a
pg_dump made by that version's chat-server with `scripts/make-schema-fixtures --postgres`),
restored into a fresh database of a throwaway cluster (scripts/postgres-local) and served by
today's chat-server: the server migrates it, a new device of alice's lists both conversations
with the messages, the edit and the delete as the old server stored them, the search of older
messages finds old text, and a new message takes the next sequence. The newest fixture must
already hold every migration today's server applies: otherwise the schema changed without a new
fixture, and CI says which command makes it."""

import os
import re
import subprocess

from harness import ROOT, Device, Results, Server, postgres_local, remove, temporary_folder

PSQL = "/usr/lib/postgresql/15/bin/psql"
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures", "postgres")


def psql(url, *arguments):
    return subprocess.run([PSQL, "-X", "-q", "-v", "ON_ERROR_STOP=1", url, *arguments],
                          capture_output=True, text=True, check=True).stdout


def applied_migrations(url):
    return psql(url, "-At", "-c", "SELECT identifier FROM schema_migrations ORDER BY 1").split()


def fixture_names():
    """The committed fixtures, oldest first: `pg-v<N>…`, by N."""
    names = [name for name in os.listdir(FIXTURES) if re.match(r"pg-v\d+", name)]
    return sorted(names, key=lambda name: int(re.match(r"pg-v(\d+)", name).group(1)))


def main():
    results = Results("postgres-fixtures")
    root = temporary_folder("chat-e2e-pg-fixtures-")
    started = dict(line.split("=", 1) for line in postgres_local("start").split())
    pg, cluster_url = started["CHAT_PG_DIR"], started["CHAT_DATABASE_URL"]
    names = fixture_names()
    migrations = {}
    try:
        def committed():
            assert names and names[0] == "pg-v1", names

        results.check("the fixtures are there, pg-v1 first", committed)
        for name in names:
            migrations[name] = check_fixture(results, name, cluster_url, root)

        def newest_holds_every_migration():
            newest = names[-1]
            before, after = migrations[newest]
            assert before == after, (
                f"the schema changed without a new fixture: today's server applied "
                f"{sorted(set(after) - set(before))} to {newest}; run "
                f"scripts/make-schema-fixtures --postgres <the newest migration's name> before "
                f"the change ships")
            for name, (_, applied) in migrations.items():
                assert applied == after, f"{name} ends with {applied}, not {after}"

        results.check("the newest fixture holds every migration of today's server, and every "
                      "fixture ends with all of them", newest_holds_every_migration)
    finally:
        postgres_local("stop", pg)
        remove(root)
    results.finish()


def check_fixture(results, name, cluster_url, root):
    """Restores `name` into a database of its own, serves it with today's server, checks what
    a device sees; returns the migrations applied before and after today's server opened it."""
    database = "fixture_" + re.sub(r"\W", "_", name)
    url = cluster_url.rsplit("/", 1)[0] + "/" + database
    state = {"before": [], "after": []}

    def restore():
        psql(cluster_url, "-c", f"CREATE DATABASE {database}")
        psql(url, "-f", os.path.join(FIXTURES, name, "server.sql"))
        state["before"] = applied_migrations(url)
        assert state["before"], "the dump holds no schema_migrations rows"

    results.check(f"{name}: the dump restores into a fresh database", restore)
    server = Server(os.path.join(root, name), extra=["--database", url])
    alice = Device(server, "alice", "new-phone", root + "/" + name)
    bob = Device(server, "bob", "new-phone", root + "/" + name)
    try:
        server.start()
        state["after"] = applied_migrations(url)

        def conversations():
            alice.run("login")
            alice.run("sync")
            listed = alice.json("conversations")
            titles = sorted(conversation["title"] for conversation in listed)
            assert titles == ["Lunch", "Sunday hike"], listed
            state["ids"] = {c["title"]: c["id"] for c in listed}

        results.check(f"{name}: today's server migrates it and alice's new device lists both "
                      f"conversations", conversations)
        ids = state.get("ids", {})

        def messages():
            group = [m["text"] for m in alice.messages(ids["Sunday hike"])
                     if not m.get("deleted")]
            assert group == ["Meet at the trailhead at nine",
                             "Bringing coffee and tea for everyone",
                             "Café au lait for me, merci"], group
            lunch = alice.messages(ids["Lunch"])
            shown = [m["text"] for m in lunch if not m.get("deleted")]
            assert shown == ["Did you see the lighthouse photos?",
                             "Yes, the one at dusk is the best"], lunch
            assert "Wrong chat, sorry" not in str(lunch), lunch

        results.check(f"{name}: the messages, bob's edit and his delete as the old server "
                      f"stored them", messages)

        def search():
            found = alice.json("search", "lighthouse", "--on-server")
            hits = [(hit["title"], hit["sequence"]) for hit in found["hits"]]
            assert hits == [("Lunch", 1)], found
            assert "[lighthouse]" in found["hits"][0]["snippet"], found
            accented = alice.json("search", "cafe", "--on-server")
            assert [(h["title"], h["sequence"]) for h in accented["hits"]] == [
                ("Sunday hike", 3)], accented

        results.check(f"{name}: the search of older messages finds old text (accents folded)",
                      search)

        def next_message():
            bob.run("login")
            bob.run("sync")
            sent = bob.json("send", ids["Sunday hike"], "Still on for nine?")
            alice.run("sync")
            group = alice.messages(ids["Sunday hike"])
            last = group[-1]
            assert last["text"] == "Still on for nine?", group
            assert last["clientMessageId"] == sent["clientMessageId"], (last, sent)
            assert last["sequence"] == 5, group  # 3 messages and bob's edit came before

        results.check(f"{name}: a new message takes the next sequence and reaches alice",
                      next_message)
    except Exception as error:  # noqa: BLE001 - a server that cannot start fails the fixture

        def starts():
            raise error

        results.check(f"{name}: today's server starts on it", starts)
    finally:
        server.stop()
    return state["before"], state["after"]


if __name__ == "__main__":
    main()
