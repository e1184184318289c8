import SQLite

/// The `sync_state` table: values the engine keeps between launches, by key (the retention,
/// the send clock's checkpoint, the push registration, the automatic-download setting…), and
/// the cursor of the next `/v1/sync` (key `conversations`).
enum SettingsTable {
  /// A value kept between launches, nil when never saved.
  static func setting(_ key: String, db: Database) throws -> String? {
    try db.query("SELECT value FROM sync_state WHERE key = ?", key) { $0.string(0) }.first
  }

  /// Saves (or, with nil, removes) a value kept between launches.
  static func save(_ key: String, _ value: String?, tx: StoreTransaction) throws {
    if let value {
      try tx.db.run(
        """
        INSERT INTO sync_state (key, value) VALUES (?, ?)
        ON CONFLICT (key) DO UPDATE SET value = excluded.value
        """, key, value)
    } else {
      try tx.db.run("DELETE FROM sync_state WHERE key = ?", key)
    }
  }

  /// Where the next `/v1/sync` starts; nil before the first.
  static func syncCursor(db: Database) throws -> String? {
    try db.query("SELECT value FROM sync_state WHERE key = 'conversations'") { $0.string(0) }
      .first
  }

  static func saveSyncCursor(_ cursor: String, tx: StoreTransaction) throws {
    try tx.db.run(
      """
      INSERT INTO sync_state (key, value) VALUES ('conversations', ?)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value
      """, cursor)
  }
}
