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
