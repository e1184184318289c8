"""A rough look at the cost of erasing a deleted message from an FTS5 index the way the client
store does (the delete, then optimize), on a synthetic index with the same tokenizer, in
Python's sqlite3 (the same SQLite 3.40.1). Not the engine's code path: a chat-bench figure is
to replace it. Run: python3 docs/performance/fts-optimize.py"""
import sqlite3, random, time, os
random.seed(1)
words = [f"w{i}" for i in range(20000)]
for n in (10_000, 100_000):
    path = f"/tmp/opt-{n}.sqlite"
    for f in (path, path+"-wal"):
        if os.path.exists(f): os.remove(f)
    c = sqlite3.connect(path)
    c.execute("pragma journal_mode=wal")
    c.execute("create table m(id integer primary key, text text)")
    c.execute("create virtual table s using fts5(text, content='m', content_rowid='id', tokenize='unicode61 remove_diacritics 2')")
    for start in range(0, n, 1000):
        rows = [(i, " ".join(random.choice(words) for _ in range(12))) for i in range(start, start+1000)]
        c.executemany("insert into m values (?,?)", rows)
        c.executemany("insert into s(rowid, text) values (?,?)", rows)
        c.commit()
    times = []
    for k in range(5):
        rid = random.randrange(n)
        old = c.execute("select text from m where id=?", (rid,)).fetchone()[0]
        t = time.perf_counter()
        c.execute("insert into s(s, rowid, text) values('delete', ?, ?)", (rid, old))
        c.execute("update m set text='' where id=?", (rid,))
        c.execute("insert into s(s) values('optimize')")
        c.commit()
        times.append((time.perf_counter()-t)*1000)
    print(n, "messages: delete+optimize ms", [round(x,1) for x in times])
    c.close()
