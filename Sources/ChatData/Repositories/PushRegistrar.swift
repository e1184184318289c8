import ChatAPI
import ChatDomain
import Support

/// The device's push token on the server (`PUT`/`DELETE /v1/devices/me/push`).
///
/// The token the app wants and the one the server confirmed are both kept in the database, so
/// a registration that failed (offline, a restart before the reply) is sent again at the next
/// connect, and a changed token replaces the old one. Sign-out deletes the database: the next
/// sign-in registers afresh.
actor PushRegistrar {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  static let wantedKey = "push.wanted"
  static let registeredKey = "push.registered"

  init(context: EngineContext) {
    self.context = context
  }

  /// Keeps `registration` (nil: none) as the one wanted and tells the server now.
  func want(_ registration: PushRegistration?) async throws(ChatError) {
    do {
      try await context.store.saveSetting(Self.wantedKey, registration.map(Self.encode))
    } catch {
      throw error.chatError
    }
    try await sync()
  }

  /// Tells the server what is wanted when it differs from what it confirmed. A passing
  /// failure is left for the next connect (and thrown for a caller who waits on it). One at
  /// a time, each after the one before has finished and reading what is wanted then: two
  /// overlapping could reach the server in one order and save what it confirmed in the other.
  func sync() async throws(ChatError) {
    let previous = running
    let task = context.executor.spawn { [self] in
      _ = await previous?.value
      return await syncOnce()
    }
    running = task
    try await task.value.get()
  }

  private var running: Task<Result<Void, ChatError>, Never>?

  private func syncOnce() async -> Result<Void, ChatError> {
    do throws(ChatError) {
      try await send()
      return .success(())
    } catch {
      return .failure(error)
    }
  }

  private func send() async throws(ChatError) {
    let wanted: String?
    let registered: String?
    do {
      wanted = try await context.store.setting(Self.wantedKey)
      registered = try await context.store.setting(Self.registeredKey)
    } catch {
      throw error.chatError
    }
    guard wanted != registered else { return }
    do {
      if let wanted, let registration = try? APICoding.decode(PushRegistration.self, from: wanted) {
        try await context.api.registerPush(registration)
      } else {
        try await context.api.removePush()
      }
    } catch {
      context.log.write(LogRecord(.info, "push.register_failed", [("reason", error.label)]))
      throw error.chatError
    }
    do {
      try await context.store.saveSetting(Self.registeredKey, wanted)
    } catch {
      throw error.chatError
    }
    context.log.write(LogRecord(.info, "push.registered", [("on", "\(wanted != nil)")]))
  }

  private static func encode(_ registration: PushRegistration) -> String {
    String(decoding: APICoding.encode(registration), as: UTF8.self)
  }
}
