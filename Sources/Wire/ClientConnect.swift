import Glibc

/// The TCP connect of every client in Wire (the HTTP client and the WebSocket client): one
/// function, so a fix or a TLS step lands in one place.
///
/// The host is resolved with `getaddrinfo` and every address it gives is tried, IPv6 and IPv4,
/// in the resolver's order (which follows RFC 6724's preferences), one after the other: each a
/// non-blocking connect on the loop given up to `timeout`, and the first that succeeds wins. So
/// `localhost` reaches a server that listens on `127.0.0.1` only, after `::1` refuses. When
/// every address fails, the error is the last address's.
///
/// The connection comes back registered on `loop`, with **reading paused and no handler**: the
/// caller installs its handler on the loop's thread, then calls `resumeReading()`, so no byte
/// can arrive before someone is there to take it. A TLS step belongs between the two: the
/// caller of `connect` starts TLS on the returned connection (on its loop), and only then
/// speaks its protocol through it.
enum ClientConnect {
  /// Connects to `host`:`port`.
  ///
  /// - Parameters:
  ///   - timeout: the limit for each address's attempt.
  ///   - deadline: the end of the whole attempt (monotonic milliseconds, as
  ///     `monotonicMilliseconds()`), when the caller has a limit of its own; no address is
  ///     tried past it.
  ///   - loop: the loop the connection will live on.
  /// - Throws: ``ConnectError``; `.cancelled` when the calling task is cancelled.
  static func connect(
    host: String, port: Int, timeout: Duration, deadline: Int64? = nil, on loop: EventLoop
  ) async throws(ConnectError) -> TCPConnection {
    // A numeric address needs no DNS: resolved here, without a hop to another executor.
    var resolved = try addresses(of: host, port: port, flags: AI_NUMERICHOST)
    if resolved == nil { resolved = try await resolve(host: host, port: port) }
    return try await connect(to: resolved ?? [], timeout: timeout, deadline: deadline, on: loop)
  }

  /// Tries each of `addresses` in order, as ``connect(host:port:timeout:deadline:on:)`` does
  /// after resolving.
  static func connect(
    to addresses: [SocketAddress], timeout: Duration, deadline: Int64? = nil,
    on loop: EventLoop
  ) async throws(ConnectError) -> TCPConnection {
    var lastError = ConnectError.unknownHost("", reason: "no address")
    for address in addresses {
      if Task.isCancelled { throw .cancelled }
      let now = monotonicMilliseconds()
      var attemptDeadline = now + timeout.milliseconds
      if let deadline {
        if now >= deadline { throw .timedOut(address: address.text) }
        attemptDeadline = min(attemptDeadline, deadline)
      }
      switch await attempt(address, deadline: attemptDeadline, on: loop) {
      case .success(let connection): return connection
      case .failure(.cancelled): throw .cancelled
      case .failure(let error): lastError = error
      }
    }
    throw lastError
  }

  /// Every address of `host`, in the resolver's order. Off the caller's executor: a name that
  /// is not numeric may block on DNS.
  @concurrent
  static func resolve(host: String, port: Int) async throws(ConnectError)
    -> [SocketAddress]
  {
    try addresses(of: host, port: port, flags: 0) ?? []
  }

  /// `getaddrinfo` with `flags`; nil when `AI_NUMERICHOST` was asked and `host` is a name.
  static func addresses(of host: String, port: Int, flags: Int32) throws(ConnectError)
    -> [SocketAddress]?
  {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    hints.ai_flags = flags
    var result: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, String(port), &hints, &result)
    if status == EAI_NONAME && flags & AI_NUMERICHOST != 0 { return nil }
    guard status == 0 else {
      throw .unknownHost(host, reason: String(cString: gai_strerror(status)))
    }
    defer { freeaddrinfo(result) }
    var addresses: [SocketAddress] = []
    var next = result
    while let info = next {
      if info.pointee.ai_family == AF_INET || info.pointee.ai_family == AF_INET6 {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
          target.copyMemory(
            from: UnsafeRawBufferPointer(
              start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
        }
        addresses.append(SocketAddress(storage: storage))
      }
      next = info.pointee.ai_next
    }
    guard !addresses.isEmpty else { throw .unknownHost(host, reason: "no IPv4 or IPv6 address") }
    return addresses
  }

  /// One address: the socket is created here; the loop waits for it to turn writable.
  private static func attempt(_ address: SocketAddress, deadline: Int64, on loop: EventLoop) async
    -> Result<TCPConnection, ConnectError>
  {
    let attempt: ConnectAttempt
    switch ConnectAttempt.make(address, deadline: deadline, on: loop) {
    case .failure(let error): return .failure(error)
    case .success(let made): attempt = made
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        loop.execute { attempt.start { continuation.resume(returning: $0) } }
      }
    } onCancel: {
      loop.execute { attempt.cancel() }
    }
  }
}

/// One address's non-blocking connect, on the loop: over when the socket turns writable
/// (`SO_ERROR` says how it went), closes, or the deadline passes.
///
/// Reading stays paused the whole time, so an error or a hang-up shows up as writability
/// with `SO_ERROR` set, and a byte the server sends at once waits in the kernel for the
/// connection's real handler.
final class ConnectAttempt: ConnectionHandler, @unchecked Sendable {
  // @unchecked: created on the caller's thread, then touched only on the loop's thread.
  typealias Outcome = Result<TCPConnection, ConnectError>

  private let connection: TCPConnection
  private let address: String
  private let deadline: Int64
  /// Told the outcome once, on the loop's thread.
  private var completion: ((Outcome) -> Void)?
  private var cancelled = false

  init(connection: TCPConnection, address: String, deadline: Int64) {
    self.connection = connection
    self.address = address
    self.deadline = deadline
  }

  /// A non-blocking connect to `address` begun, for `start` on `loop` (deadline in the loop's
  /// monotonic milliseconds).
  static func make(_ address: SocketAddress, deadline: Int64, on loop: EventLoop) -> Result<
    ConnectAttempt, ConnectError
  > {
    let fd: Int32
    do {
      fd = try Socket.startConnect(to: address)
    } catch {
      return .failure(.connect(to: address.text, errno: (error as? SystemError)?.errno ?? EIO))
    }
    return .success(
      ConnectAttempt(
        connection: TCPConnection(
          fd: fd, loop: loop, remoteAddress: address.description, maxBufferedBytes: 1 << 20,
          writeTimeout: 30_000),
        address: address.text, deadline: deadline))
  }

  /// Registers the socket and waits; `completion` hears the outcome, on the loop's thread.
  func start(_ completion: @escaping (Outcome) -> Void) {
    self.completion = completion
    guard !cancelled else {
      // Cancelled before the loop got to it: the cancel job ran first.
      finish(.failure(.cancelled))
      Glibc.close(connection.fd)
      return
    }
    connection.pauseReading()
    connection.handler = self
    do {
      try connection.register()
    } catch {
      finish(.failure(.failed(address: address, error as? SystemError ?? SystemError("epoll_ctl"))))
      Glibc.close(connection.fd)
    }
  }

  /// Gives up; does nothing once the attempt is over.
  func cancel() {
    cancelled = true
    guard completion != nil else { return }
    finish(.failure(.cancelled))
    connection.close()
  }

  func writeDrained(on connection: TCPConnection) {
    guard completion != nil else { return }
    let error = Socket.pendingError(connection.fd)
    guard error == 0 else {
      finish(.failure(.connect(to: address, errno: error)))
      connection.close()
      return
    }
    connection.handler = nil
    finish(.success(connection))
  }

  func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {}

  func peerClosed(on connection: TCPConnection) {
    finish(.failure(.connect(to: address, errno: ECONNRESET)))
    connection.close()
  }

  func tick(now: Int64, on connection: TCPConnection) {
    if now >= deadline {
      finish(.failure(.timedOut(address: address)))
      connection.close()
    }
  }

  func closed(on connection: TCPConnection) {
    let code = connection.lastError != 0 ? connection.lastError : ECONNRESET
    finish(.failure(.connect(to: address, errno: code)))
  }

  private func finish(_ outcome: Outcome) {
    let completion = self.completion
    self.completion = nil
    completion?(outcome)
  }
}

extension SocketAddress {
  /// `host:port`, with an IPv6 host in brackets.
  var text: String {
    family == AF_INET6 ? "[\(description)]:\(port)" : "\(description):\(port)"
  }
}
