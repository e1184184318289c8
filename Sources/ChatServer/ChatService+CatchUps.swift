import ChatAPI

/// Catch-up work in flight is bounded (issue 38). After a restart or a network blip every
/// device reconnects and catches up at once: a `/v1/sync` and a page of each conversation it
/// missed. Each read waits its turn at the store (on SQLite, behind the group commits), so
/// without a bound the queue, the memory it holds and every answer's wait grow with the crowd.
/// Past `ServerConfiguration.maxCatchUpsInFlight` a catch-up read is answered at once with 503
/// `unavailable` and a `Retry-After` of 1 to 3 seconds drawn at random: the devices refused
/// together come back spread out, and the engine waits that long (its retry policy honours
/// the header). Counted in `chat_catch_ups_shed_total`.
extension ChatService {
  func admittingCatchUp<Value: Sendable>(_ read: () async throws -> Value) async throws -> Value {
    guard catchUpsInFlight < configuration.maxCatchUpsInFlight else {
      metrics.catchUpsShed += 1
      throw ServiceError(
        .unavailable, "The server is catching many devices up at once; try again shortly.",
        retryAfterSeconds: Int.random(in: 1...3, using: &random))
    }
    catchUpsInFlight += 1
    defer { catchUpsInFlight -= 1 }
    return try await read()
  }
}
