/// A WebSocket close status code (RFC 6455 section 7.4).
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public let rawValue: UInt16

  public init(rawValue: UInt16) {
    self.rawValue = rawValue
  }

  /// 1000: the purpose of the connection is fulfilled.
  public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
  /// 1001: the server is shutting down, or the client navigates away.
  public static let goingAway = WebSocketCloseCode(rawValue: 1001)
  /// 1002: the peer broke the protocol.
  public static let protocolError = WebSocketCloseCode(rawValue: 1002)
  /// 1003: a kind of data this endpoint does not accept (here: binary messages, by default).
  public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
  /// 1005: the close frame had no code. Only reported, never sent.
  public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
  /// 1006: the connection ended without a close frame. Only reported, never sent.
  public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
  /// 1007: a text message or close reason that is not valid UTF-8.
  public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
  /// 1008: a message that breaks this endpoint's policy (for example a consumer too slow).
  public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
  /// 1009: a message larger than the configured limit.
  public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
  /// 1010: the client needed an extension the server did not negotiate.
  public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
  /// 1011: the server met an unexpected condition.
  public static let internalError = WebSocketCloseCode(rawValue: 1011)

  /// Whether the code may appear in a close frame: 1000–1003, 1007–1014 (registered with
  /// IANA) and 3000–4999 (libraries and applications). 1004–1006 and 1015 are reserved and
  /// never sent; anything else is a protocol error.
  public var isAllowedOnWire: Bool {
    switch rawValue {
    case 1000...1003, 1007...1014, 3000...4999: true
    default: false
    }
  }

  public var description: String { String(rawValue) }
}
