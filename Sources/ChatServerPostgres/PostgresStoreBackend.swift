import ChatServer
import Postgres
import Support
import Synchronization

/// The store on PostgreSQL: several `chat-server` nodes on one database, through this node's
/// pool of connections (`PostgresPool`: `--database-connections`, a thread each).
///
/// A write is one transaction on a pooled connection (`BEGIN` … `COMMIT`), and its writer is
/// answered after the `COMMIT` returned: PostgreSQL's own group commit shares each WAL flush
/// among the transactions committing together, on every node. The write's rules read and
/// change rows only after taking its conversation's row lock (`lockConversation`), so two
/// writes to one conversation, on one node or two, run one after the other: the sequence is
/// the last one plus one, in the same transaction as the insert, and holes cannot appear. A
/// write that collides with another anyway (the same idempotency key posted on two nodes at
/// once: a unique violation; a deadlock; a serialization failure) runs again from the start,
/// where it finds what the other stored. A lost connection is `unreachable` (a 503), and the
/// write's outcome unknown: the client's retry (same idempotency key) gets the stored item or
/// stores it.
///
/// A read is one `REPEATABLE READ READ ONLY` transaction: a page of conversations and its
/// cursor come from one snapshot.
///
/// A delete is real on disk too, as far as PostgreSQL allows: an UPDATE leaves the old row
/// version (with its text) in the table's pages, and its entries in the GIN indexes, until a
/// VACUUM prunes them; `vacuumIfOwed()` (called by `chat-server` every `--vacuum-interval`)
/// vacuums the tables that deletes and edits touched on this node. What VACUUM frees is marked
/// reusable, not overwritten at once, and the write-ahead log's segments keep the text until
/// PostgreSQL recycles them after a checkpoint (`docs/erasure.md`, "On PostgreSQL", gives the
/// measured figures).
final class PostgresStoreBackend: StoreBackend {
  /// How many times a write that collided with another runs again before it gives up (503).
  static let writeAttempts = 5

  let pool: PostgresPool
  private let state = Mutex(State())

  private struct State {
    var counts = StoreStatistics()
    /// A delete or an edit was stored since the last VACUUM.
    var vacuumOwed = false
  }

  var dialect: SQLDialect { .postgres }

  /// Migrates the database at `url` (under an advisory lock: nodes starting together do not
  /// race; a database a newer version migrated is refused), then makes the pool, whose
  /// connections open when first needed.
  init(url: String, connections: Int) throws {
    try Self.migrations.migrate(url)
    pool = PostgresPool(url: url, size: connections)
  }

  func read<T: Sendable>(
    _ body: @escaping @Sendable (any StoreDatabase) throws -> T
  ) async throws(StoreError) -> T {
    do {
      return try await pool.withConnection { connection in
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
          let value = try body(PostgresStoreDatabase(connection))
          try connection.execute("COMMIT")
          return value
        } catch {
          try? connection.execute("ROLLBACK")
          throw error
        }
      }
    } catch {
      throw Self.storeError(error)
    }
  }

  /// Runs `operation` in a transaction of its own; returns once committed.
  func write<Value: Sendable>(
    _ operation: @escaping @Sendable (any StoreDatabase) throws -> Value
  ) async throws(StoreError) -> Value {
    var attempt = 1
    while true {
      do {
        let result = try await pool.withConnection { connection -> Result<Value, StoreError> in
          try connection.execute("BEGIN")
          let value: Value
          do {
            value = try operation(PostgresStoreDatabase(connection))
          } catch let refusal as StoreError {
            try connection.execute("ROLLBACK")
            return .failure(refusal)
          } catch {
            try? connection.execute("ROLLBACK")
            throw error
          }
          try connection.execute("COMMIT")
          return .success(value)
        }
        if case .success = result { countCommit() }
        return try result.get()
      } catch let error as PostgresError
        where error.isConflict && attempt < Self.writeAttempts
      {
        attempt += 1
      } catch let error as StoreError {
        throw error
      } catch {
        state.withLock { $0.counts.failedCommits += 1 }
        throw Self.storeError(error)
      }
    }
  }

  /// One statement, `chat_post_message` (`PostgresSendFunction`), outside `BEGIN` … `COMMIT`:
  /// its own implicit transaction, committed when it returns. No row: a rule was not plainly
  /// met and nothing was written. A collision (which the function's row lock makes rare)
  /// leaves the send to `write`, which runs it again.
  func postPlainMessage(_ message: PlainMessage) async throws(StoreError) -> PlainMessagePosted? {
    do {
      let posted = try await pool.withConnection { connection in
        try connection.query(
          """
          SELECT * FROM chat_post_message(?, ?, ?, ?, ?, ?, ?, CAST(? AS TEXT[]),
            CAST(? AS BOOLEAN), ?, ?, CAST(? AS TEXT[]), CAST(? AS TEXT[]))
          """,
          parameters: [
            message.conversationId, message.id, message.senderId, message.clientMessageId,
            message.clientMessageKey, message.text, String(message.sentAtMilliseconds),
            postgresTextArray(message.mentionCandidates), message.push == nil ? "false" : "true",
            message.push?.now ?? "", String(message.push?.windowMilliseconds ?? 0),
            postgresTextArray(message.push?.skippingUsers ?? []),
            postgresTextArray(message.push?.skippingDevices ?? []),
          ]
        ) { row in
          PlainMessagePosted(
            sequence: row.int(0), memberIds: row.stringArray(1), mentions: row.stringArray(2),
            pushesCollapsed: row.int(3), earliestPushDue: row.optionalInt(4).map(Int64.init))
        }.first
      }
      if posted != nil { countCommit() }
      return posted
    } catch let error as PostgresError where error.isConflict {
      return nil
    } catch {
      state.withLock { $0.counts.failedCommits += 1 }
      throw Self.storeError(error)
    }
  }

  /// A write committed, in a transaction of its own.
  private func countCommit() {
    state.withLock {
      $0.counts.commits += 1
      $0.counts.committedWrites += 1
    }
  }

  /// What PostgreSQL (or libpq) said, in the store's words.
  static func storeError(_ error: any Error) -> StoreError {
    switch error {
    case let refusal as StoreError: refusal
    case let postgres as PostgresError where postgres.isConnectionLost: .unreachable
    case let postgres as PostgresError where postgres.isConflict:
      // Still colliding after `writeAttempts`: nothing was kept; a retry may pass.
      .collidedTooOften(sqlState: postgres.sqlState ?? "")
    default: .internal(String(describing: error))
    }
  }

  func textWasReplaced() {
    state.withLock { $0.vacuumOwed = true }
  }

  /// VACUUMs the tables deletes and edits rewrote (messages, media uploads), when any was
  /// stored on this node since the last call. Returns whether it ran.
  func vacuumIfOwed() async -> Bool {
    let owed = state.withLock { state in
      defer { state.vacuumOwed = false }
      return state.vacuumOwed
    }
    guard owed else { return false }
    do {
      try await pool.withConnection { connection in
        try connection.execute("VACUUM (SKIP_LOCKED) messages, media_uploads")
      }
      state.withLock { $0.counts.erasurePasses += 1 }
      return true
    } catch {
      state.withLock {
        $0.vacuumOwed = true
        $0.counts.failedErasures += 1
      }
      return false
    }
  }

  /// Nothing runs in the background: a VACUUM runs inside `vacuumIfOwed`.
  func finishErasure() async {}

  func statistics() -> StoreStatistics {
    state.withLock { state in
      var reported = state.counts
      reported.erasureOwed = state.vacuumOwed
      return reported
    }
  }

  func close() async {
    await pool.shutdown()
  }
}
