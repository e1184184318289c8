import ChatAPI
import SQLite
import Support

// The block list per user (API.md Part 3,
// "Blocking"): `blocks` holds who blocked whom; `block_lists` carries the list's change marker
// (SQLite's change version or PostgreSQL's transaction), so `/v1/sync` answers `blocked` when
// the list changed since the cursor, with the same condition as a conversation row.
extension ServerStore {
  /// Blocks (`block`) or unblocks `other` for `user`; returns the whole list after, sorted.
  /// Changing nothing still answers the list (PUT and DELETE are idempotent: 204 both times).
  func setBlocked(_ other: String, by user: String, block: Bool) async throws(StoreError)
    -> [String]
  {
    try await writing { db in
      if block {
        try db.run(
          """
          INSERT INTO blocks (user_id, blocked_id) VALUES (?, ?)
          ON CONFLICT (user_id, blocked_id) DO NOTHING
          """, user, other)
      } else {
        try db.run("DELETE FROM blocks WHERE user_id = ? AND blocked_id = ?", user, other)
      }
      try db.run(
        """
        INSERT INTO block_lists (user_id, \(db.dialect.changeColumn))
        VALUES (?, \(db.dialect.changeValue))
        ON CONFLICT (user_id) DO UPDATE SET \(db.dialect.markChanged)
        """, user)
      return try Self.blocked(by: user, db)
    }
  }

  /// `user`'s block list, sorted.
  func blocked(by user: String) async throws(StoreError) -> [String] {
    try await reading { db in try Self.blocked(by: user, db) }
  }

  static func blocked(by user: String, _ db: any StoreDatabase) throws -> [String] {
    try db.query(
      "SELECT blocked_id FROM blocks WHERE user_id = ? ORDER BY blocked_id", user
    ) { $0.string(0) }
  }

  /// `user`'s block list when it changed since `cursor` (always without one, when it has
  /// ever changed); nil otherwise.
  func blockedIfChanged(_ user: String, since cursor: String?) async throws(StoreError)
    -> [String]?
  {
    try await reading { db in try Self.blockedIfChanged(user, since: cursor, db) }
  }

  static func blockedIfChanged(
    _ user: String, since cursor: String?, _ db: any StoreDatabase
  ) throws -> [String]? {
    let changed = db.dialect.changed(since: cursor, alias: "l")
    let listed =
      try db.query(
        "SELECT count(*) FROM block_lists AS l WHERE l.user_id = ? AND \(changed.sql)",
        values: [user] + changed.values
      ) { $0.int(0) }.first ?? 0
    return listed > 0 ? try blocked(by: user, db) : nil
  }

  /// Whether `sender`'s new item is refused: in a one-to-one conversation (`members`, the
  /// current ones, are two) whose other member blocked `sender`.
  static func isBlockedOneToOne(
    members: [String], sender: String, _ db: any StoreDatabase
  ) throws -> Bool {
    guard members.count == 2, members.contains(sender),
      let other = members.first(where: { $0 != sender })
    else { return false }
    return
      (try db.scalarInt(
        "SELECT count(*) FROM blocks WHERE user_id = ? AND blocked_id = ?", other, sender)
      ?? 0) > 0
  }

  /// Who among `users` blocked `sender` (no push for its messages goes to them).
  static func blockers(of sender: String, among users: [String], _ db: any StoreDatabase)
    throws -> Set<String>
  {
    Set(
      try db.query("SELECT user_id FROM blocks WHERE blocked_id = ?", sender) { $0.string(0) }
    ).intersection(users)
  }
}

extension ServerStore {
  /// Whether `one` blocked `other` or `other` blocked `one`.
  func isBlockBetween(_ one: String, _ other: String) async throws(StoreError) -> Bool {
    try await reading { db in
      (try db.scalarInt(
        """
        SELECT count(*) FROM blocks
        WHERE (user_id = ? AND blocked_id = ?) OR (user_id = ? AND blocked_id = ?)
        """, one, other, other, one) ?? 0) > 0
    }
  }

  /// `blockers(of:among:)` on its own read.
  func blockers(of sender: String, among users: [String]) async throws(StoreError) -> Set<String> {
    try await reading { db in try Self.blockers(of: sender, among: users, db) }
  }
}
