/// A complete request, as a handler sees it.
///
/// The body is fully read (up to the configured limit) before the handler runs; a request over
/// the limit never reaches a handler (the server answers 413 itself).
public struct HTTPRequest: Sendable {
  public let method: HTTPMethod
  /// The path as sent, without the query, still percent-encoded (`/v1/conversations/c%201`).
  public let path: String
  /// The raw query after `?`, or nil when there is none.
  public let query: String?
  /// Query parameters in order, percent-decoded (`+` is a space); a pair that does not decode
  /// is left out.
  public let queryItems: [(name: String, value: String)]
  /// Query parameters by name; for a repeated name the first wins.
  public var queryParameters: [String: String] {
    Dictionary(queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
  }
  /// Path parameters filled by a ``Router`` from `{name}` segments, percent-decoded (settable,
  /// so a test can call a handler directly).
  public var pathParameters: [String: String] = [:]
  /// Header fields; look them up without regard to case: `request.headers["authorization"]`.
  public let headers: HTTPHeaders
  public let body: [UInt8]
  /// The peer's numeric IP address.
  public let remoteAddress: String
  /// 0 for HTTP/1.0, 1 for HTTP/1.1.
  public let minorVersion: Int

  /// Whether this is a WebSocket upgrade request; answer it with ``HTTPResponse/webSocket(headers:configuration:_:)``
  /// (or with an error response, such as 401, to refuse it).
  public let isWebSocketUpgrade: Bool

  /// A request made by hand (tests, or a handler calling another).
  public init(
    method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
    remoteAddress: String = "127.0.0.1"
  ) {
    self.init(
      head: HTTPRequestHead(
        method: method, target: target, minorVersion: 1, headers: headers, keepAlive: true,
        expectsContinue: false, framing: body.isEmpty ? .none : .length(body.count)),
      body: body, remoteAddress: remoteAddress)
  }

  init(head: HTTPRequestHead, body: [UInt8], remoteAddress: String) {
    method = head.method
    var target = Substring(head.target)
    if !target.hasPrefix("/"), let schemeEnd = target.range(of: "://") {
      // Absolute form: keep the path and query only.
      let afterAuthority = target[schemeEnd.upperBound...]
      target = afterAuthority.firstIndex(of: "/").map { afterAuthority[$0...] } ?? "/"
    }
    if let mark = target.firstIndex(of: "?") {
      path = String(target[..<mark])
      let query = String(target[target.index(after: mark)...])
      self.query = query
      queryItems = HTTPRequest.parseQuery(query)
    } else {
      path = String(target)
      query = nil
      queryItems = []
    }
    headers = head.headers
    self.body = body
    self.remoteAddress = remoteAddress
    minorVersion = head.minorVersion
    isWebSocketUpgrade = head.isWebSocketUpgrade
  }

  /// The body as UTF-8 text (invalid bytes become U+FFFD).
  public var bodyText: String { String(decoding: body, as: UTF8.self) }

  static func parseQuery(_ query: String) -> [(name: String, value: String)] {
    var items: [(name: String, value: String)] = []
    for pair in query.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = percentDecode(parts[0], plusIsSpace: true) else { continue }
      let value = parts.count > 1 ? percentDecode(parts[1], plusIsSpace: true) : ""
      if let value { items.append((name, value)) }
    }
    return items
  }
}

/// Percent-decodes `text`; nil when an escape is malformed or the bytes are not UTF-8.
public func percentDecode(_ text: Substring, plusIsSpace: Bool) -> String? {
  guard text.utf8.contains(where: { $0 == 0x25 || (plusIsSpace && $0 == 0x2B) }) else {
    return String(text)
  }
  var bytes: [UInt8] = []
  var iterator = text.utf8.makeIterator()
  while let byte = iterator.next() {
    if byte == 0x25 {
      guard let high = iterator.next().flatMap(hexDigit),
        let low = iterator.next().flatMap(hexDigit)
      else { return nil }
      bytes.append(high << 4 | low)
    } else if plusIsSpace && byte == 0x2B {
      bytes.append(0x20)
    } else {
      bytes.append(byte)
    }
  }
  return String(validating: bytes, as: UTF8.self)
}

private func hexDigit(_ byte: UInt8) -> UInt8? {
  switch byte {
  case 0x30...0x39: byte - 0x30
  case 0x41...0x46: byte - 0x41 + 10
  case 0x61...0x66: byte - 0x61 + 10
  default: nil
  }
}
