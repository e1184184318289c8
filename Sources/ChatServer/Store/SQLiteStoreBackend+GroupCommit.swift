import ChatAPI
import SQLite

// Group commit.
//
// A write (`write(_:)`) does not touch the database at once: it joins `pendingWrites` and
// suspends. The first write to join an empty queue schedules one flush as a new job on the
// store's serial executor, behind every job already queued there; so each request that
// reaches the store before the flush runs joins the same batch. Under load, the requests that
// arrive while one batch is being committed (its fsync) are queued behind it and make up the
// next batch: one transaction and one fsync for many acknowledgements.
//
// The flush runs the batch in one transaction, each write inside a savepoint of its own, in
// queue order. A write that throws rolls back its savepoint only: its reply is that error, and
// the writes after it still commit. Sequence numbers are read and bumped inside each write's
// savepoint, so a write that fails gives its number back and the numbers stay hole-free. Only
// after the COMMIT returns are the writers resumed, in queue order; if the COMMIT fails (or
// SQLite ends the transaction itself, e.g. disk full), every write of the batch fails with
// `commitFailed` (a 503) and nothing of it was kept.
//
// Deterministic: the order of a batch is the order in which jobs ran on the serial executor,
// and writers resume in that order; nothing depends on a timer or another thread.

/// A write waiting for the next group commit.
protocol PendingWrite: AnyObject {
  /// Runs the write in a savepoint of its own inside the batch transaction, keeping its
  /// result. Throws only when the batch transaction is lost and the batch must stop.
  func run(in database: SQLiteStoreDatabase) throws
  /// Resumes the writer: with `batchFailure` when the transaction did not commit, else with
  /// the write's own result.
  func complete(batchFailure: StoreError?)
}

private final class PendingWriteOf<Value: Sendable>: PendingWrite {
  private let operation: (any StoreDatabase) throws -> Value
  private let continuation: CheckedContinuation<Result<Value, StoreError>, Never>
  private var result: Result<Value, StoreError>?

  init(
    operation: @escaping (any StoreDatabase) throws -> Value,
    continuation: CheckedContinuation<Result<Value, StoreError>, Never>
  ) {
    self.operation = operation
    self.continuation = continuation
  }

  func run(in sqlite: SQLiteStoreDatabase) throws {
    do {
      result = .success(try sqlite.database.write { _ in try operation(sqlite) })
    } catch let refusal as StoreError {
      result = .failure(refusal)
    } catch {
      result = .failure(.internal(String(describing: error)))
      if sqlite.database.isAutocommit { throw error }
    }
  }

  func complete(batchFailure: StoreError?) {
    let outcome = batchFailure.map { .failure($0) } ?? result
    continuation.resume(returning: outcome ?? .failure(.internal("write never ran")))
  }
}

extension SQLiteStoreBackend {
  /// Queues `operation` for the next group commit and returns its result once that commit is
  /// durable. `operation` runs on this actor, inside a savepoint; throwing a `StoreError` from
  /// it refuses this write alone, leaving no trace in the database.
  func write<Value: Sendable>(
    _ operation: @escaping @Sendable (any StoreDatabase) throws -> Value
  ) async throws(StoreError) -> Value {
    let result = await withCheckedContinuation { continuation in
      pendingWrites.append(PendingWriteOf(operation: operation, continuation: continuation))
      scheduleFlush()
    }
    return try result.get()
  }

  private func scheduleFlush() {
    guard !flushScheduled else { return }
    flushScheduled = true
    executor.spawn { await self.flushPendingWrites() }
  }

  /// Commits up to `maxBatchSize` queued writes in one transaction, then resumes their writers.
  func flushPendingWrites() {
    flushScheduled = false
    let batch = Array(pendingWrites.prefix(maxBatchSize))
    pendingWrites.removeFirst(batch.count)
    if !pendingWrites.isEmpty { scheduleFlush() }
    guard !batch.isEmpty else { return }
    do {
      try database.write { _ in
        for write in batch { try write.run(in: connection) }
      }
    } catch {
      counts.failedCommits += 1
      let failure = StoreError.commitFailed("\(error)")
      for write in batch { write.complete(batchFailure: failure) }
      return
    }
    counts.commits += 1
    counts.committedWrites += batch.count
    for write in batch { write.complete(batchFailure: nil) }
    eraseIfOwed()
  }
}
