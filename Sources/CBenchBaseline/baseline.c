#include "bench_baseline.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_STATEMENTS 32

struct bench_raw {
  sqlite3 *db;
  sqlite3_stmt *insert;
  sqlite3_stmt *statements[BENCH_MAX_STATEMENTS];
  int statement_count;
};

/// Keeps the compiler from dropping the reads of `bench_raw_query`.
static volatile uint64_t bench_sink;

bench_raw *bench_raw_open(const char *path, char *error, size_t error_size) {
  sqlite3 *db = NULL;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
    snprintf(error, error_size, "%s", db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close_v2(db);
    return NULL;
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, 5000);
  const char *pragmas =
      "PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;";
  char *message = NULL;
  if (sqlite3_exec(db, pragmas, NULL, NULL, &message) != SQLITE_OK) {
    snprintf(error, error_size, "%s", message ? message : "pragmas failed");
    sqlite3_free(message);
    sqlite3_close_v2(db);
    return NULL;
  }
  bench_raw *raw = calloc(1, sizeof(bench_raw));
  if (!raw) {
    snprintf(error, error_size, "out of memory");
    sqlite3_close_v2(db);
    return NULL;
  }
  raw->db = db;
  return raw;
}

void bench_raw_close(bench_raw *raw) {
  if (!raw) return;
  sqlite3_finalize(raw->insert);
  for (int i = 0; i < raw->statement_count; i++) sqlite3_finalize(raw->statements[i]);
  sqlite3_close_v2(raw->db);
  free(raw);
}

int bench_raw_exec(bench_raw *raw, const char *sql) {
  return sqlite3_exec(raw->db, sql, NULL, NULL, NULL);
}

int bench_raw_insert(bench_raw *raw, const bench_row *rows, size_t count) {
  if (!raw->insert) {
    const char *sql =
        "INSERT INTO messages (conversation_id, client_id, sender_id, server_id, text, sequence,"
        " sent_at, state) VALUES (?, ?, ?, ?, ?, ?, ?, 1)";
    int code = sqlite3_prepare_v3(raw->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &raw->insert, NULL);
    if (code != SQLITE_OK) return code;
  }
  int code = sqlite3_exec(raw->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  if (code != SQLITE_OK) return code;
  sqlite3_stmt *insert = raw->insert;
  for (size_t i = 0; i < count; i++) {
    const bench_row *row = &rows[i];
    sqlite3_bind_text(insert, 1, row->conversation_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 2, row->client_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 3, row->sender_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 4, row->server_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 5, row->text, -1, SQLITE_STATIC);
    sqlite3_bind_int64(insert, 6, row->sequence);
    sqlite3_bind_double(insert, 7, row->sent_at);
    code = sqlite3_step(insert);
    sqlite3_reset(insert);
    if (code != SQLITE_DONE) {
      sqlite3_exec(raw->db, "ROLLBACK", NULL, NULL, NULL);
      return code;
    }
  }
  return sqlite3_exec(raw->db, "COMMIT", NULL, NULL, NULL);
}

int bench_raw_prepare(bench_raw *raw, const char *sql) {
  if (raw->statement_count == BENCH_MAX_STATEMENTS) return -1;
  sqlite3_stmt *statement = NULL;
  if (sqlite3_prepare_v3(raw->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, NULL)
      != SQLITE_OK) {
    return -1;
  }
  raw->statements[raw->statement_count] = statement;
  return raw->statement_count++;
}

int bench_raw_query(bench_raw *raw, int statement, const bench_value *params, int count) {
  if (statement < 0 || statement >= raw->statement_count) return -1;
  sqlite3_stmt *query = raw->statements[statement];
  sqlite3_reset(query);
  for (int i = 0; i < count; i++) {
    switch (params[i].kind) {
      case BENCH_NULL: sqlite3_bind_null(query, i + 1); break;
      case BENCH_INTEGER: sqlite3_bind_int64(query, i + 1, params[i].integer); break;
      case BENCH_TEXT: sqlite3_bind_text(query, i + 1, params[i].text, -1, SQLITE_STATIC); break;
    }
  }
  int rows = 0;
  uint64_t sum = 0;
  int code;
  while ((code = sqlite3_step(query)) == SQLITE_ROW) {
    int columns = sqlite3_column_count(query);
    for (int column = 0; column < columns; column++) {
      switch (sqlite3_column_type(query, column)) {
        case SQLITE_INTEGER: sum += (uint64_t)sqlite3_column_int64(query, column); break;
        case SQLITE_FLOAT: sum += (uint64_t)sqlite3_column_double(query, column); break;
        case SQLITE_TEXT: {
          const unsigned char *text = sqlite3_column_text(query, column);
          int bytes = sqlite3_column_bytes(query, column);
          if (text && bytes > 0) sum += text[0] + text[bytes - 1] + (uint64_t)bytes;
          break;
        }
        default: break;
      }
    }
    rows++;
  }
  sqlite3_reset(query);
  bench_sink += sum;
  return code == SQLITE_DONE ? rows : -1;
}

int bench_raw_changes(bench_raw *raw) { return sqlite3_changes(raw->db); }

const char *bench_raw_error(bench_raw *raw) { return sqlite3_errmsg(raw->db); }
