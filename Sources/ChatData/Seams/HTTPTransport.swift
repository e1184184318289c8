import Foundation

/// An HTTP request as the API client builds it: a path relative to the server's base URL.
public struct HTTPRequest: Sendable, Equatable {
  public var method: String
  public var path: String
  public var query: [(name: String, value: String)]
  public var headers: [String: String]
  public var body: Data?

  public init(
    method: String, path: String, query: [(name: String, value: String)] = [],
    headers: [String: String] = [:], body: Data? = nil
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.body = body
  }

  public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
    lhs.method == rhs.method && lhs.path == rhs.path
      && lhs.query.elementsEqual(rhs.query, by: { $0 == $1 }) && lhs.headers == rhs.headers
      && lhs.body == rhs.body
  }
}

/// An HTTP response. Header names are lowercased.
public struct HTTPResponse: Sendable, Equatable {
  public var status: Int
  public var headers: [String: String]
  public var body: Data

  public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
    self.status = status
    self.headers = Dictionary(
      headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
    self.body = body
  }
}

/// Why a request got no HTTP response. Each case is temporary for the outbox.
public enum TransportError: Error, Equatable, Sendable {
  /// The server could not be reached (no route, refused, DNS, reset before any reply).
  case offline(String)
  /// No reply in time. The server may have acted on the request: only idempotent requests
  /// (and sends, thanks to the client message ID) are retried.
  case timeout
}

/// The seam to the network for requests and replies. Live: `URLSessionTransport`.
public protocol HTTPTransport: Sendable {
  func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse
}
