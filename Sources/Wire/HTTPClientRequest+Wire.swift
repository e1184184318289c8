/// A request checked and written out: where it goes and its bytes on the wire.
struct PreparedRequest: Sendable {
  let key: HTTPConnectionPool.Key
  let method: HTTPMethod
  let bytes: [UInt8]
  /// The request asked for `Connection: close`.
  let closesConnection: Bool

  init(_ request: HTTPClientRequest) throws(HTTPClientError) {
    let url = try ClientURL(request.url)
    guard !request.method.rawValue.isEmpty, request.method.rawValue.utf8.allSatisfy(isTokenByte)
    else {
      throw HTTPClientError(.invalidRequest("the method is not a token"), progress: .notSent)
    }
    var head = "\(request.method.rawValue) \(url.target) HTTP/1.1\r\n"
    if !request.headers.contains("Host") { head += "Host: \(url.hostHeader)\r\n" }
    for field in request.headers.fields {
      if field.name.equalsIgnoringASCIICase("content-length")
        || field.name.equalsIgnoringASCIICase("transfer-encoding")
      {
        continue
      }
      guard !field.name.isEmpty, field.name.utf8.allSatisfy(isTokenByte) else {
        throw HTTPClientError(.invalidRequest("a header name is not a token"), progress: .notSent)
      }
      guard field.value.utf8.allSatisfy(isFieldValueByte) else {
        throw HTTPClientError(
          .invalidRequest("the value of \(field.name) has a control character"),
          progress: .notSent)
      }
      head += "\(field.name): \(field.value)\r\n"
    }
    // RFC 9110 section 8.6: a body, or a method that defines one, gets its length (0 included).
    if !request.body.isEmpty || [.post, .put, .patch].contains(request.method) {
      head += "Content-Length: \(request.body.count)\r\n"
    }
    head += "\r\n"
    var bytes = Array(head.utf8)
    bytes.append(contentsOf: request.body)
    key = HTTPConnectionPool.Key(host: url.host, port: url.port, secure: url.secure)
    method = request.method
    self.bytes = bytes
    closesConnection = request.headers.containsToken("close", in: "Connection")
  }
}

/// The parts of an `http://` or `https://` URL a request needs.
struct ClientURL: Sendable {
  var host: String
  var port: Int
  /// `https`: over TLS, the server's certificate verified for `host`.
  var secure: Bool
  /// The authority as written, for the `Host` field.
  var hostHeader: String
  /// The origin-form target: the path and query.
  var target: String

  init(_ text: String) throws(HTTPClientError) {
    func invalid() -> HTTPClientError {
      HTTPClientError(.invalidURL(text), progress: .notSent)
    }
    guard let schemeEnd = text.range(of: "://") else { throw invalid() }
    let scheme = text[..<schemeEnd.lowerBound].lowercased()
    guard scheme == "http" || scheme == "https" else {
      guard !scheme.isEmpty, scheme.utf8.allSatisfy(isTokenByte) else { throw invalid() }
      throw HTTPClientError(.unsupportedScheme(scheme), progress: .notSent)
    }
    secure = scheme == "https"
    var rest = text[schemeEnd.upperBound...]
    if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    var target = String(rest[authorityEnd...])
    if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
    guard !authority.isEmpty, !authority.contains("@"),
      target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
    else { throw invalid() }
    var hostPart = Substring(authority)
    var port = secure ? 443 : 80
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { throw invalid() }
      hostPart = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      if after.hasPrefix(":") {
        guard let value = Int(after.dropFirst()), (1...65535).contains(value) else {
          throw invalid()
        }
        port = value
      } else if !after.isEmpty {
        throw invalid()
      }
    } else if let colon = authority.lastIndex(of: ":") {
      hostPart = authority[..<colon]
      guard let value = Int(authority[authority.index(after: colon)...]),
        (1...65535).contains(value)
      else { throw invalid() }
      port = value
    }
    guard !hostPart.isEmpty, hostPart.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw invalid()
    }
    host = String(hostPart)
    self.port = port
    hostHeader = String(authority)
    self.target = target
  }
}
