import Wire

/// A blocking keep-alive HTTP/1.1 client for the set-up requests of a load (sign-ins,
/// conversations, metrics): one ``ClientChannel`` on a loop shared by every set-up client, each
/// request waited for on the calling thread. Simple, not fast; never used on a loop's thread.
final class SetupClient {
  /// The loop of every set-up client: started on first use, never stopped.
  private static let sharedLoop = Result { () throws(SystemError) in
    try ClientLoop(name: "chat-load.setup")
  }

  private let loop: ClientLoop
  private let channel: ClientChannel
  private let state: State
  private let host: String
  private let port: Int

  /// Connects to `host` (numeric, or `localhost`) on `port`.
  init(host: String, port: Int) throws(LoadError) {
    let loop: ClientLoop
    do {
      loop = try Self.sharedLoop.get()
    } catch {
      throw LoadError("cannot start the set-up loop: \(error)")
    }
    self.loop = loop
    let numeric = numericHost(host)
    (self.host, self.port) = (numeric, port)
    let connected: Result<ClientChannel, ConnectError>? = loop.wait(until: Self.deadline()) {
      reply in ClientChannel.connect(host: numeric, port: port, on: loop) { reply($0) }
    }
    switch connected {
    case nil: throw LoadError("the connect did not end within 30 s")
    case .success(let channel): self.channel = channel
    case .failure(.unknownHost):
      throw LoadError("--host must be a numeric address or localhost, got \(host)")
    case .failure(let error):
      throw LoadError("cannot connect: \(error)")
    }
    let state = State()
    self.state = state
    let channel = channel
    loop.execute {
      channel.onResponse = { head, body in
        state.answer(.success(SetupResponse(status: head.status.code, body: body)))
      }
      channel.onClose = { failure in state.answer(.failure(LoadError("\(failure)"))) }
    }
  }

  deinit {
    let channel = channel
    loop.execute { channel.close() }
  }

  /// Sends one request and waits for its response (30 s at most).
  func request(
    _ method: HTTPMethod, _ path: String, token: String? = nil, body: String? = nil
  ) throws(LoadError) -> SetupResponse {
    let bytes = try LoadRequest.make(
      method, host: host, port: port, path: path, token: token, json: body)
    let (channel, state) = (channel, state)
    let answer: Result<SetupResponse, LoadError>? = loop.wait(until: Self.deadline()) { reply in
      state.waiter = reply
      channel.send(request: bytes, method: method)
    }
    guard let answer else { throw LoadError("the server did not answer within 30 s") }
    return try answer.get()
  }

  /// When a wait of a set-up step ends: 30 s from now.
  private static func deadline() -> Int64 { monotonicNanoseconds() + 30_000_000_000 }

  /// What the loop's callbacks hand to the request waiting.
  private final class State: @unchecked Sendable {
    // @unchecked: touched only on the loop's thread.
    var waiter: (@Sendable (Result<SetupResponse, LoadError>) -> Void)?

    func answer(_ result: Result<SetupResponse, LoadError>) {
      let waiter = self.waiter
      self.waiter = nil
      waiter?(result)
    }
  }
}

/// One response to a set-up request.
struct SetupResponse: Sendable {
  var status: Int
  var body: [UInt8]

  var text: String { String(decoding: body, as: UTF8.self) }
}

/// `host` as a numeric address: `localhost` is 127.0.0.1.
func numericHost(_ host: String) -> String {
  host == "localhost" ? "127.0.0.1" : host
}
