// The physical limit for chat-bench's storage figures (B1-B3): the same SQLite, schema, pragmas
// and SQL as the Swift store, driven by a tight loop over the raw C API. No Swift, no
// allocation per row, statements prepared once.
#ifndef BENCH_BASELINE_H
#define BENCH_BASELINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_raw bench_raw;

/// One message row, as the store saves a message from the server.
typedef struct {
  const char *conversation_id;
  const char *client_id;
  const char *sender_id;
  const char *server_id;
  const char *text;
  int64_t sequence;
  double sent_at;
} bench_row;

/// A parameter of a query.
typedef enum { BENCH_NULL = 0, BENCH_INTEGER = 1, BENCH_TEXT = 2 } bench_kind;

typedef struct {
  bench_kind kind;
  int64_t integer;
  const char *text;
} bench_value;

/// Opens (creating) a database with the pragmas of the Swift wrapper (`Database`): WAL,
/// synchronous=NORMAL, foreign_keys=ON, a 5 s busy timeout. NULL when it cannot; the reason
/// is copied into `error`.
bench_raw *bench_raw_open(const char *path, char *error, size_t error_size);

void bench_raw_close(bench_raw *raw);

/// Runs SQL without parameters; returns the SQLite result code.
int bench_raw_exec(bench_raw *raw, const char *sql);

/// Inserts `count` rows in one transaction (BEGIN IMMEDIATE ... COMMIT); returns the SQLite
/// result code of the first failure, or SQLITE_OK.
int bench_raw_insert(bench_raw *raw, const bench_row *rows, size_t count);

/// Prepares `sql` once; returns a statement number for `bench_raw_query`, or -1.
int bench_raw_prepare(bench_raw *raw, const char *sql);

/// Runs a prepared statement with `count` parameters and reads every column of every row (the
/// bytes of text columns are touched); returns the number of rows, or -1 on failure.
int bench_raw_query(bench_raw *raw, int statement, const bench_value *params, int count);

/// Rows the last INSERT, UPDATE or DELETE changed (`sqlite3_changes`).
int bench_raw_changes(bench_raw *raw);

/// The last error of the connection.
const char *bench_raw_error(bench_raw *raw);

#endif
