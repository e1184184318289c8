import Postgres
import Support
import Synchronization

/// A node's connections to one PostgreSQL database: `size` of them, each on a thread of its
/// own (libpq blocks), handed out one request at a time, the longest waiting first.
///
/// A connection that was lost (PostgreSQL restarted, a network cut) is dropped and the next
/// request through its slot connects anew: a node recovers by itself once the database is
/// back. Until then requests fail with a `PostgresError` whose `isConnectionLost` holds, which
/// the store answers as 503 `unavailable` (clients retry).
final class PostgresPool: Sendable {
  private let slots: [PostgresSlot]
  private let free: Mutex<(idle: [Int], waiting: [CheckedContinuation<Int, Never>])>

  /// Connections open when first needed (the store's migrations connect first, so a wrong URL
  /// fails the start with libpq's reason).
  init(url: String, size: Int) {
    precondition(size >= 1)
    slots = (0..<size).map { PostgresSlot(url: url, index: $0) }
    free = Mutex((Array(0..<size), []))
  }

  /// Runs `body` on a free connection, on that connection's thread.
  func withConnection<T: Sendable>(
    _ body: @escaping @Sendable (PostgresConnection) throws -> T
  ) async throws -> T {
    let index = await checkOut()
    defer { checkIn(index) }
    return try await slots[index].run(body)
  }

  /// Stops every connection's thread (their connections close).
  func shutdown() async {
    for slot in slots { await slot.close() }
  }

  private func checkOut() async -> Int {
    await withCheckedContinuation { continuation in
      let index = free.withLock { state -> Int? in
        if let index = state.idle.popLast() { return index }
        state.waiting.append(continuation)
        return nil
      }
      if let index { continuation.resume(returning: index) }
    }
  }

  private func checkIn(_ index: Int) {
    let waiter = free.withLock { state -> CheckedContinuation<Int, Never>? in
      if state.waiting.isEmpty {
        state.idle.append(index)
        return nil
      }
      return state.waiting.removeFirst()
    }
    waiter?.resume(returning: index)
  }
}

/// One connection of a pool, on its own thread.
private actor PostgresSlot {
  let url: String
  nonisolated let executor: ThreadExecutor
  private var connection: PostgresConnection?

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }

  init(url: String, index: Int) {
    self.url = url
    self.executor = ThreadExecutor(name: "chat-server.postgres.\(index)")
  }

  func run<T: Sendable>(_ body: @Sendable (PostgresConnection) throws -> T) throws -> T {
    if connection?.isConnected != true {
      connection = nil
      connection = try PostgresConnection(url: url)
    }
    guard let connection else { throw PostgresError(message: "no connection", sqlState: "08003") }
    do {
      return try body(connection)
    } catch let error as PostgresError where error.isConnectionLost || !connection.isConnected {
      self.connection = nil
      throw error
    }
  }

  func close() {
    connection?.close()
    connection = nil
    executor.shutdown()
  }
}
