import ChatAPI

// The one vocabulary of network faults. The unit tests queue them by hand (`FaultyNetwork`'s
// `failNext` and `disturbEvents`), the demo's network switch draws them at rates
// (`FaultRates`), and the simulation draws them from its seed and runs them on its own
// timeline, where requests travel and time out.

/// A fault the network applies to one HTTP request instead of (or after) delivering it.
public enum HTTPFault: Sendable, Equatable {
  /// A proxy answers with this status; the server never sees the request (503, 429 +
  /// Retry-After, a 4xx).
  case status(Int, retryAfter: Int? = nil)
  /// The request is lost on the way: no reply in time, and the server never saw it.
  case timeout
  /// The network is unreachable: nothing left the device.
  case offline
  /// The server handles the request (a send is committed), then the reply is lost: the
  /// client sees a timeout. The case a client message ID exists for.
  case loseReply
  /// The server handles the request, then the reply waits until the network releases it: a
  /// reply still on its way while other things happen.
  case holdReply
  /// The request waits this long before it leaves.
  case delay(Duration)

  /// What a proxy in the way answers with `status`: the contract's error body, `injector` named
  /// in its message so a failed bubble says who refused it.
  public static func response(
    _ status: Int, code: String, retryAfter: Int? = nil, by injector: String
  ) -> APIResponse {
    var response = APIResponse.json(
      status, ErrorResponse(code: code, message: "injected by \(injector)"))
    if let retryAfter { response.headers["Retry-After"] = String(retryAfter) }
    return response
  }
}

/// Which requests a fault applies to.
public struct RequestMatch: Sendable {
  let test: @Sendable (APIRequest) -> Bool

  public init(_ test: @escaping @Sendable (APIRequest) -> Bool) { self.test = test }

  public func matches(_ request: APIRequest) -> Bool { test(request) }

  public static let any = RequestMatch { _ in true }
  /// `POST …/messages`: sends.
  public static let sends = RequestMatch { $0.method == "POST" && $0.path.hasSuffix("/messages") }
  /// `GET …/messages`: catch-ups and history.
  public static let fetches = RequestMatch { $0.method == "GET" && $0.path.hasSuffix("/messages") }
  public static let receipts = RequestMatch { $0.path.hasSuffix("/receipts") }
  public static let reads = RequestMatch { $0.method == "POST" && $0.path.hasSuffix("/read") }
}

/// What happens to the next live events on a socket, as a test queues it.
public enum EventFault: Sendable, Equatable {
  /// The next `n` events are lost.
  case skip(Int)
  /// The next `n` events arrive twice.
  case duplicate(Int)
  /// The next two events arrive in the opposite order.
  case swapNextTwo
}

/// What happens to one frame on its way down a socket.
public enum FrameFault: Sendable, Equatable {
  /// It never arrives.
  case lose
  /// It arrives twice.
  case duplicate
  /// It arrives after the next frame (or when its holder releases it).
  case holdForNext
}

/// One socket's frames in order, under frame faults: what the device receives for each frame
/// the server sent. A frame held back arrives right after the next one, whatever strikes that
/// one: a reorder loses nothing.
public struct FrameLine: Sendable {
  public private(set) var held: String?

  public init() {}

  /// The frames delivered for `frame`. `fault` is asked only when nothing is held (so a seeded
  /// draw happens exactly when it did before the line existed).
  public mutating func pass(_ frame: String, fault: () -> FrameFault?) -> [String] {
    if let held {
      self.held = nil
      return [frame, held]
    }
    switch fault() {
    case nil: return [frame]
    case .lose: return []
    case .duplicate: return [frame, frame]
    case .holdForNext:
      held = frame
      return []
    }
  }

  /// The frame held back, now on its own (a late delivery), and nothing held after.
  public mutating func releaseHeld() -> String? {
    defer { held = nil }
    return held
  }
}

/// How often faults strike when they are drawn rather than queued: the demo's "flaky" and
/// "slow" switches.
public struct FaultRates: Sendable, Equatable {
  /// Per request or socket opening: lost on the way (`HTTPFault.timeout`; a socket fails to
  /// open).
  public var dropRequest = 0.0
  /// Per request that reached the server: its reply is lost (`HTTPFault.loseReply`).
  public var loseReply = 0.0
  /// Per frame delivered: the socket drops after it.
  public var dropSocket = 0.0
  /// Every request, socket opening and frame waits this long (`HTTPFault.delay`).
  public var delay: Duration = .zero

  public init(
    dropRequest: Double = 0, loseReply: Double = 0, dropSocket: Double = 0,
    delay: Duration = .zero
  ) {
    self.dropRequest = dropRequest
    self.loseReply = loseReply
    self.dropSocket = dropSocket
    self.delay = delay
  }

  /// Nothing drawn: the network as it is.
  public static let none = FaultRates()
}
