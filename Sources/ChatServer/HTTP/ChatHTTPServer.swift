import ChatAPI
import Wire

/// The reference server on the network: `Wire`'s HTTP server in front of a `ChatService`.
///
/// Every request becomes an `APIRequest` for `ChatService.handle(_:)`; the `/v1/live` upgrade
/// goes to `ChatService.openLive(_:)`, which checks the token before anything is upgraded, and
/// the accepted subscription is bridged to the socket both ways until either side ends.
public final class ChatHTTPServer: Sendable {
  public let service: ChatService
  private let server: HTTPServer

  /// The largest body the network layer reads (at least). The service's own limit (64 KiB by
  /// default) is checked after the token, as API.md's precedence puts 401 before 413; so the
  /// network layer must read bodies somewhat larger than that limit to let the service answer.
  /// Beyond this, the network layer answers 413 itself, before any token is looked at.
  public static let networkBodyLimit = 1 << 20

  /// - Parameter configuration: where to listen and Wire's limits; its body limit is raised to
  ///   `networkBodyLimit` when lower.
  public init(service: ChatService, configuration: HTTPServer.Configuration) {
    self.service = service
    var configuration = configuration
    configuration.limits.body = max(configuration.limits.body, Self.networkBodyLimit)
    // Requests the network layer answers itself still get their log line and metric.
    configuration.onRejected = { [executor = service.executor] rejection in
      executor.spawn {
        await service.recordRejected(
          method: rejection.method, status: rejection.status.code, code: rejection.code)
      }
    }
    // So do failed TLS handshakes (a stalled one, a client that refused the certificate).
    configuration.onTLSFailure = { [executor = service.executor] failure in
      executor.spawn { await service.recordTLSFailure(code: failure.error.code) }
    }
    server = HTTPServer(configuration: configuration) { request in
      await Self.respond(to: request, service: service)
    }
  }

  /// Starts listening; returns the bound port (an ephemeral one for port 0).
  public func start() throws -> Int {
    try server.start()
  }

  /// Stops accepting, lets requests in flight finish (held long polls answer at once),
  /// closes sockets with 1001.
  public func shutdown() async {
    await service.endLongPolls()
    await server.shutdown()
  }

  static func respond(to request: Wire.HTTPRequest, service: ChatService) async
    -> Wire.HTTPResponse
  {
    let apiRequest = APIRequest(request)
    guard request.isWebSocketUpgrade, request.path == "/v1/live" else {
      return Wire.HTTPResponse(await service.handle(apiRequest))
    }
    switch await service.openLive(apiRequest) {
    case .refused(let response):
      return Wire.HTTPResponse(response)
    case .accepted(let subscription):
      return .webSocket { socket in await bridge(subscription, socket) }
    }
  }

  /// Service events → text frames; text frames → the service; the first side to end closes
  /// the other.
  static func bridge(_ subscription: LiveSubscription, _ socket: WebSocket) async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for await event in subscription.events {
          do {
            try socket.send(text: event)
          } catch {
            break
          }
        }
        // The service ended the subscription: the client reconnects (after a refresh, or a
        // new sign-in, when the frame says so) and catches up.
        let frame = closeFrame(for: subscription.closure)
        socket.close(code: frame.code, reason: frame.reason)
      }
      group.addTask {
        for await text in socket.messages { await subscription.receive(text) }
      }
      await group.next()
      // Before the cancel below, which closes the subscription too (without a reason).
      if socket.peerStoppedReading { await subscription.peerStoppedReading() }
      socket.close(code: .goingAway)
      group.cancelAll()
    }
    await subscription.close()
  }

  /// 4001, an application code (RFC 6455 7.4.2): the socket's authorization ended. The
  /// reason says whether a refresh will do (`token expired`) or only a new sign-in
  /// (`signed out`).
  public static let authorizationEnded = WebSocketCloseCode(rawValue: 4001)

  /// The close frame of a subscription the service ended.
  static func closeFrame(for closure: LiveClosure?) -> (code: WebSocketCloseCode, reason: String) {
    switch closure {
    case .tokenExpired: (authorizationEnded, "token expired")
    case .signedOut: (authorizationEnded, "signed out")
    case .fellBehind: (.policyViolation, "fell behind")
    case .catchUp, nil: (.policyViolation, "subscription ended")
    }
  }
}

extension APIRequest {
  init(_ request: Wire.HTTPRequest) {
    self.init(
      method: request.method.rawValue, path: request.path,
      query: QueryItems(request.queryItems),
      headers: HeaderFields(request.headers.fields.map { ($0.name, $0.value) }),
      body: request.body, peerAddress: request.remoteAddress)
  }
}

extension Wire.HTTPResponse {
  init(_ response: APIResponse) {
    var headers: HTTPHeaders = [:]
    for header in response.headers { headers.add(name: header.name, value: header.value) }
    self.init(status: HTTPStatus(code: response.status), headers: headers, body: response.body)
  }
}
