import Support

/// The socket open now, for the parts that send frames on it (typing): `LiveConnection` sets
/// it on every connect and clears it on every drop.
///
/// Its own small actor, so the parts that send need no reference to the connection (which
/// holds the router, which holds them): the engine is built in one pass, without cycles.
actor OpenSocket {
  nonisolated let executor: any SerialTaskExecutor
  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

  private var socket: (any LiveSocket)?

  init(executor: any SerialTaskExecutor) {
    self.executor = executor
  }

  func set(_ socket: (any LiveSocket)?) {
    self.socket = socket
  }

  /// Sends one frame; false when there is no open socket or it is gone.
  func send(_ text: String) async -> Bool {
    guard let socket else { return false }
    do {
      try await socket.send(text)
      return true
    } catch {
      return false
    }
  }
}
