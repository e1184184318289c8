/// NATS's client protocol (docs.nats.io, "Client Protocol"): lines of text ending in CRLF, and
/// a message's payload counted in bytes after its `MSG` line. What a server sends is read by
/// `NATSParser`; what a client sends is made by `NATSCommand`.
///
/// Only what a relay needs: `INFO`, `MSG`, `PING`, `PONG`, `+OK`, `-ERR` in; `CONNECT`, `PUB`,
/// `SUB`, `PING`, `PONG` out. No headers (`HMSG`: the client says `"headers": false`), no
/// reply subjects sent.
public enum NATSOperation: Equatable, Sendable {
  /// The server's `INFO` (JSON), first on each connection and again when the cluster changes.
  case info(String)
  /// A message on a subject this client subscribed to, with the subscription's id.
  case message(subject: String, subscription: String, payload: [UInt8])
  case ping
  case pong
  case ok
  /// The server's error, e.g. `'Authorization Violation'`; most close the connection.
  case error(String)
}

/// What a server sent that breaks the protocol (or a limit): the connection is dropped.
public struct NATSProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
  public var reason: String
  public var description: String { "NATS protocol error: \(reason)" }
}

/// Reads operations out of the bytes a server sends, however they are split.
public struct NATSParser: Sendable {
  /// A control line longer than this is refused (the server's own default is 4 KiB).
  static let maxLineBytes = 64 << 10
  /// A payload larger than this is refused (the server's default `max_payload` is 1 MiB).
  static let maxPayloadBytes = 64 << 20

  private var buffer: [UInt8] = []
  private var start = 0

  public init() {}

  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    buffer.append(contentsOf: bytes)
  }

  public mutating func append(_ bytes: [UInt8]) {
    buffer.append(contentsOf: bytes)
  }

  /// The next whole operation, or nil until more bytes come.
  public mutating func next() throws(NATSProtocolError) -> NATSOperation? {
    guard let lineEnd = findCRLF(from: start) else {
      if buffer.count - start > Self.maxLineBytes {
        throw NATSProtocolError(reason: "a line longer than \(Self.maxLineBytes) bytes")
      }
      return nil
    }
    let line = String(decoding: buffer[start..<lineEnd], as: UTF8.self)
    let (verb, rest) = Self.split(line)
    let afterLine = lineEnd + 2
    let operation: NATSOperation
    switch verb.uppercased() {
    case "MSG":
      let fields = rest.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count == 3 || fields.count == 4, let count = Int(fields.last!), count >= 0,
        count <= Self.maxPayloadBytes
      else { throw NATSProtocolError(reason: "a malformed MSG line: \(line.prefix(200))") }
      let payloadEnd = afterLine + count
      guard buffer.count >= payloadEnd + 2 else { return nil }
      guard buffer[payloadEnd] == 13, buffer[payloadEnd + 1] == 10 else {
        throw NATSProtocolError(reason: "a payload not followed by CRLF")
      }
      operation = .message(
        subject: String(fields[0]), subscription: String(fields[1]),
        payload: Array(buffer[afterLine..<payloadEnd]))
      consume(upTo: payloadEnd + 2)
      return operation
    case "INFO": operation = .info(rest)
    case "PING": operation = .ping
    case "PONG": operation = .pong
    case "+OK": operation = .ok
    case "-ERR": operation = .error(rest)
    default: throw NATSProtocolError(reason: "an unknown operation: \(line.prefix(200))")
    }
    consume(upTo: afterLine)
    return operation
  }

  private func findCRLF(from index: Int) -> Int? {
    var index = index
    while index + 1 < buffer.count {
      if buffer[index] == 13 && buffer[index + 1] == 10 { return index }
      index += 1
    }
    return nil
  }

  private mutating func consume(upTo end: Int) {
    start = end
    // Drop what was read once it is most of the buffer: the copy stays rare.
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    } else if start > 64 << 10 && start * 2 > buffer.count {
      buffer.removeFirst(start)
      start = 0
    }
  }

  /// "MSG a b 3" → ("MSG", "a b 3"); the verb ends at the first space or tab.
  private static func split(_ line: String) -> (String, String) {
    guard let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return (line, "") }
    let rest = line[line.index(after: space)...].drop { $0 == " " || $0 == "\t" }
    return (String(line[..<space]), String(rest))
  }
}

/// What a client sends.
public enum NATSCommand {
  /// `CONNECT`: no `+OK` for each command (`verbose: false`), none of this client's own
  /// messages back (`echo: false`), no headers.
  public static func connect(name: String, tlsRequired: Bool) -> [UInt8] {
    let json =
      #"{"verbose":false,"pedantic":false,"tls_required":\#(tlsRequired),"name":"\#(name)","#
      + #""lang":"swift","version":"1","protocol":1,"echo":false,"headers":false}"#
    return Array("CONNECT \(json)\r\n".utf8)
  }

  public static func subscribe(_ subject: String, id: String) -> [UInt8] {
    Array("SUB \(subject) \(id)\r\n".utf8)
  }

  public static func publish(_ subject: String, _ payload: [UInt8]) -> [UInt8] {
    Array("PUB \(subject) \(payload.count)\r\n".utf8) + payload + [13, 10]
  }

  public static let ping = Array("PING\r\n".utf8)
  public static let pong = Array("PONG\r\n".utf8)
}
