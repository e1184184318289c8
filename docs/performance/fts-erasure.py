"""What erasing a deleted message from both search indexes costs, on a synthetic index of 10,000
and 100,000 messages (8 words each from a 5,000-word vocabulary, one in ten also in the trigram
index with 15 CJK characters), in Python's sqlite3 (the same SQLite 3.40.1 as the engine):

- `optimize`: both indexes rewritten at once, in one statement each (what the device did in the
  deleting transaction, on the word index only, before issue 33);
- a pass as `SegmentEraser` makes it: `merge` with -64 then 64 pages a step until a step does no
  work, each step its own statement: the total, the number of steps and the longest step (what
  holds the writer at once);
- the pass's last steps: each table of both indexes written anew, one transaction a table
  (rows copied aside, the table emptied, the rows put back: no page keeps free space a b-tree
  rebalance left): the total and the longest table.

Each after a delete into an index whose segments are as a day of small transactions leaves
them. Not the engine's code path (no Swift, no triggers): the shape and the order of magnitude.
Run: python3 docs/performance/fts-erasure.py"""
import os
import random
import sqlite3
import time

random.seed(1)
WORDS = [f"w{i}" for i in range(5000)] + ["hello", "lunch", "meet", "tomorrow", "hiking"]
CJK = [chr(0x4E00 + i) for i in range(3000)]


def build(n):
    path = f"/tmp/fts-erasure-{n}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA secure_delete=ON")
    db.executescript("""
        CREATE TABLE messages(id INTEGER PRIMARY KEY, text TEXT);
        CREATE VIRTUAL TABLE words USING fts5(text, content='messages', content_rowid='id',
          tokenize='unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE unspaced USING fts5(text, tokenize='trigram');
    """)
    for start in range(0, n, 200):
        db.execute("BEGIN")
        for i in range(start + 1, start + 201):
            text = " ".join(random.choice(WORDS) for _ in range(8))
            db.execute("INSERT INTO messages VALUES (?, ?)", (i, text))
            db.execute("INSERT INTO words (rowid, text) VALUES (?, ?)", (i, text))
            if i % 10 == 0:
                db.execute("INSERT INTO unspaced (rowid, text) VALUES (?, ?)",
                           (i, "".join(random.choice(CJK) for _ in range(15))))
        db.execute("COMMIT")
    return db


def delete_one(db, n):
    row = random.randrange(1, n // 10) * 10
    text = db.execute("SELECT text FROM messages WHERE id = ?", (row,)).fetchone()[0]
    db.execute("BEGIN")
    db.execute("INSERT INTO words (words, rowid, text) VALUES ('delete', ?, ?)", (row, text))
    db.execute("DELETE FROM messages WHERE id = ?", (row,))
    db.execute("DELETE FROM unspaced WHERE rowid = ?", (row,))
    db.execute("COMMIT")


def optimize(db):
    started = time.perf_counter()
    for index in ("words", "unspaced"):
        db.execute(f"INSERT INTO {index} ({index}) VALUES ('optimize')")
    return (time.perf_counter() - started) * 1000


def incremental(db, pages=64):
    steps, longest, started = 0, 0.0, time.perf_counter()
    for index in ("words", "unspaced"):
        first = True
        while True:
            before, step = db.total_changes, time.perf_counter()
            db.execute(f"INSERT INTO {index} ({index}, rank) VALUES ('merge', ?)",
                       (-pages if first else pages,))
            first = False
            steps += 1
            longest = max(longest, (time.perf_counter() - step) * 1000)
            if db.total_changes - before < 2:
                break
    return (time.perf_counter() - started) * 1000, steps, longest


def rewrite(db):
    started, longest = time.perf_counter(), 0.0
    for table in ("words_data", "words_idx", "unspaced_data", "unspaced_idx", "unspaced_content"):
        step = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        db.execute(f"CREATE TEMP TABLE copy AS SELECT * FROM main.{table}")
        db.execute(f"DELETE FROM main.{table}")
        db.execute(f"INSERT INTO main.{table} SELECT * FROM temp.copy")
        db.execute("DROP TABLE temp.copy")
        db.execute("COMMIT")
        longest = max(longest, (time.perf_counter() - step) * 1000)
    return (time.perf_counter() - started) * 1000, longest


print(time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime()))
for n in (10_000, 100_000):
    db = build(n)
    delete_one(db, n)
    whole = optimize(db)
    db.close()
    db = build(n)
    delete_one(db, n)
    total, steps, longest = incremental(db)
    written, widest = rewrite(db)
    print(f"{n} messages: optimize both {whole:.0f} ms in one go; a pass {total:.0f} ms in "
          f"{steps} steps, the longest {longest:.1f} ms; then the tables written anew "
          f"{written:.0f} ms in 5 steps, the longest {widest:.1f} ms")
