import CCrypto
import Foundation

/// The opening handshake of RFC 6455 section 4: the key, the accept value and the checks each
/// side makes. No extension and no subprotocol is ever negotiated.
enum WebSocketHandshake {
  static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

  /// `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key`: base64(SHA-1(key + GUID)).
  static func acceptValue(for key: String) -> String {
    let input = Array((key + guid).utf8)
    var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
    _ = input.withUnsafeBufferPointer { SHA1($0.baseAddress, $0.count, &digest) }
    return Data(digest).base64EncodedString()
  }

  /// A fresh random `Sec-WebSocket-Key`: 16 random bytes in base64.
  static func makeKey() -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return Data(bytes).base64EncodedString()
  }

  /// A client's upgrade request for `target` on `hostHeader` with `key`, and `headers` (such
  /// as `Authorization`) after the handshake's own.
  static func request(target: String, hostHeader: String, key: String, headers: HTTPHeaders)
    -> [UInt8]
  {
    var request = "GET \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\n"
    request += "Upgrade: websocket\r\nConnection: Upgrade\r\n"
    request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
    for field in headers.fields { request += "\(field.name): \(field.value)\r\n" }
    request += "\r\n"
    return Array(request.utf8)
  }

  /// What is wrong with a server's `101` to the request with `key`; nil when the socket may
  /// open.
  static func problem(withAnswer headers: HTTPHeaders, toKey key: String) -> String? {
    if !headers.containsToken("websocket", in: "Upgrade") { return "Upgrade is not websocket." }
    if !headers.containsToken("upgrade", in: "Connection") { return "Connection is not Upgrade." }
    if headers["Sec-WebSocket-Accept"] != acceptValue(for: key) {
      return "Sec-WebSocket-Accept does not match the key."
    }
    if headers.contains("Sec-WebSocket-Extensions") { return "An extension was not asked for." }
    if headers.contains("Sec-WebSocket-Protocol") { return "A subprotocol was not asked for." }
    return nil
  }

  /// Why an upgrade request cannot be accepted, as the response to send; nil when it can.
  static func rejection(of head: HTTPRequestHead) -> HTTPResponse? {
    guard head.method == .get, head.minorVersion >= 1 else {
      return .error(.badRequest, code: "bad_request", message: "An upgrade needs GET and HTTP/1.1.")
    }
    guard head.isWebSocketUpgrade else {
      return .error(
        .badRequest, code: "bad_request",
        message: "An upgrade needs Upgrade: websocket and Connection: Upgrade.")
    }
    guard head.headers["Sec-WebSocket-Version"] == "13" else {
      var response = HTTPResponse.error(
        .upgradeRequired, code: "upgrade_required", message: "Only WebSocket version 13.")
      response.headers.add(name: "Sec-WebSocket-Version", value: "13")
      return response
    }
    guard let key = head.headers["Sec-WebSocket-Key"],
      let decoded = Data(base64Encoded: key), decoded.count == 16
    else {
      return .error(
        .badRequest, code: "bad_request", message: "Sec-WebSocket-Key is not 16 bytes in base64.")
    }
    return nil
  }
}
