import ChatDomain
import ChatIdentifiers
import SQLite
import Support

/// What every part of one engine shares: the executor they all run on, the store, the API,
/// the seams and the metrics. Passed to each part's initializer (constructor injection; no
/// container).
struct EngineContext: Sendable {
  let executor: any SerialTaskExecutor
  let me: UserID
  let store: MessageStore
  let api: APIClient
  let clock: any TimeSource
  let random: any RandomSource
  let ids: any MessageIDGenerator
  let log: any LogSink
  let metrics: ClientMetrics
  /// How long every retry loop of the engine waits (one policy: backoff, jitter, Retry-After).
  let retryPolicy: RetryPolicy
  /// Test-only (see `KnownBugs`); empty in apps.
  let knownBugs: KnownBugs
  /// The stale-send rule's clock, and its threshold (nil: a message waits as long as it takes).
  let sendClock: SendClock
  let staleSendAfter: Duration?
  /// Media's seams; nil where the app does not send or fetch media.
  var objects: (any ObjectTransfer)? = nil
  var mediaProcessing: (any MediaProcessing)? = nil

  /// `body`'s answer, or nil when the store failed, which is logged: for the readers of a stream
  /// (a screen's query), where a failed read skips one answer and the next change asks again.
  func readOrLog<T>(_ body: () async throws -> T) async -> T? {
    do {
      return try await body()
    } catch {
      log.write(LogRecord(.error, "store.read_failed", [("error", "\(error)")]))
      return nil
    }
  }

  /// Starts work on the engine's executor.
  @discardableResult
  func spawn(_ operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
    executor.spawn(operation)
  }
}
