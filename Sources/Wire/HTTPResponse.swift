/// What a handler answers: a status, headers and a body, or a WebSocket upgrade.
///
/// The server adds `Content-Length` (and `Connection: close` when the connection will close);
/// a handler sets neither.
public struct HTTPResponse: Sendable {
  public var status: HTTPStatus
  public var headers: HTTPHeaders
  public var body: [UInt8]
  /// For an answer to `HEAD`, which carries no body: the `Content-Length` the same `GET` would
  /// have (nil: the body's, usually empty, length).
  public var headContentLength: Int?
  /// Set by ``webSocket(headers:configuration:_:)``.
  let upgrade: WebSocketUpgrade?

  public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
    upgrade = nil
  }

  /// A `text/plain; charset=utf-8` response.
  public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: ["Content-Type": "text/plain; charset=utf-8"],
      body: Array(text.utf8))
  }

  /// The error shape of API.md: `{ "error": { "code": …, "message": … } }`.
  public static func error(_ status: HTTPStatus, code: String, message: String) -> HTTPResponse {
    let body = "{\"error\":{\"code\":\(jsonString(code)),\"message\":\(jsonString(message))}}"
    return HTTPResponse(
      status: status, headers: ["Content-Type": "application/json; charset=utf-8"],
      body: Array(body.utf8))
  }

  /// Accepts a WebSocket upgrade. Check the request first (its `Authorization` header, say) and
  /// answer an error response instead to refuse it.
  ///
  /// The server then checks the handshake headers (answering 400, or 426 for a version other
  /// than 13), sends `101 Switching Protocols` with `headers` added, and runs `handler` as a
  /// task with the open socket. When `handler` returns, the socket is closed with 1000 if it
  /// is still open, so keep `handler` running for as long as the socket should live (typically
  /// `for await message in socket.messages { … }`).
  ///
  /// - Parameter configuration: limits and keep-alive for this socket; the server's
  ///   ``HTTPServer/Configuration/webSocket`` when nil.
  public static func webSocket(
    headers: HTTPHeaders = [:], configuration: WebSocketConfiguration? = nil,
    _ handler: @escaping @Sendable (WebSocket) async -> Void
  ) -> HTTPResponse {
    HTTPResponse(
      status: .switchingProtocols, headers: headers,
      upgrade: WebSocketUpgrade(configuration: configuration, handler: handler))
  }

  private init(status: HTTPStatus, headers: HTTPHeaders, upgrade: WebSocketUpgrade) {
    self.status = status
    self.headers = headers
    self.body = []
    self.upgrade = upgrade
  }

  /// The response's bytes on the wire.
  func serialized(
    includeBody: Bool, keepAlive: Bool, minorVersion: Int, date: String? = nil
  ) -> [UInt8] {
    var head = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
    if let date { head += "Date: \(date)\r\n" }
    for field in headers.fields {
      if field.name.equalsIgnoringASCIICase("content-length")
        || field.name.equalsIgnoringASCIICase("connection")
        || field.name.equalsIgnoringASCIICase("transfer-encoding")
      {
        continue
      }
      head += "\(field.name): \(field.value)\r\n"
    }
    let mayHaveBody = status.code >= 200 && status.code != 204 && status.code != 304
    if mayHaveBody {
      head += "Content-Length: \(includeBody ? body.count : headContentLength ?? body.count)\r\n"
    }
    if !keepAlive {
      head += "Connection: close\r\n"
    } else if minorVersion == 0 {
      head += "Connection: keep-alive\r\n"
    }
    head += "\r\n"
    var bytes = Array(head.utf8)
    if includeBody && mayHaveBody {
      bytes.append(contentsOf: body)
    }
    return bytes
  }
}

/// The part of a response that asks for a protocol switch.
struct WebSocketUpgrade: Sendable {
  let configuration: WebSocketConfiguration?
  let handler: @Sendable (WebSocket) async -> Void
}

/// `text` as a JSON string literal, quotes included.
func jsonString(_ text: String) -> String {
  var result = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": result += "\\\""
    case "\\": result += "\\\\"
    case "\n": result += "\\n"
    case "\r": result += "\\r"
    case "\t": result += "\\t"
    case _ where scalar.value < 0x20:
      let hex = String(scalar.value, radix: 16)
      result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    default: result.unicodeScalars.append(scalar)
    }
  }
  return result + "\""
}
