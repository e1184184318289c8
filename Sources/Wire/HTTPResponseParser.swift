/// The client's response parser: ``HTTPDecoder`` reading responses.
public typealias HTTPResponseParser = HTTPDecoder<HTTPResponseHead>

/// What ``HTTPResponseParser`` (``HTTPDecoder`` reading responses) gives.
///
/// One parser reads the answer to one request, and must know that request's method: the
/// answer to a HEAD has no body, whatever its headers say. Informational responses (1xx, but
/// not 101) before the final one are read and dropped. A failure is a
/// ``HTTPResponseParseError``: ``HTTPResponseParseError/Kind/malformed`` for anything RFC 9112
/// refuses (a status line that is not `HTTP/1.x NNN reason`, a transfer coding other than
/// `chunked` alone, which the client never asks for, and the rest of ``HTTPDecoder``'s list),
/// ``HTTPResponseParseError/Kind/tooLarge`` over a limit.
///
/// When the server closes the connection, call ``HTTPDecoder/finish()``: it ends a body framed
/// by the close, and anything else not yet complete is
/// ``HTTPResponseParseError/Kind/truncated``. The parser gives one event: after
/// ``response(_:body:)`` or ``failure(_:)`` it reads nothing more until
/// ``HTTPDecoder/expectResponse(to:)`` asks for the next response of a pipelined connection,
/// and ``HTTPDecoder/bytesAfterResponse`` counts what arrived past the response (on a
/// kept-alive connection where nothing else was asked, a server bug that makes the connection
/// unusable).
public enum HTTPResponseEvent: Sendable {
  /// The whole response.
  case response(HTTPResponseHead, body: [UInt8])
  /// The response is malformed, over a limit, or cut short; close the connection.
  case failure(HTTPResponseParseError)
}

extension HTTPDecoder where Head == HTTPResponseHead {
  /// A parser of the response to a request with `requestMethod`.
  public init(requestMethod: HTTPMethod = .get, limits: Limits = Limits()) {
    self.init(
      limits: limits, rules: HTTPResponseRules(requestMethod: requestMethod, limits: limits))
  }

  /// A parser of the answer to a WebSocket upgrade request: `101 Switching Protocols` is its
  /// final response, without a body; what follows belongs to the new protocol
  /// (``takeRemainingBytes()``).
  init(upgradeLimits limits: Limits) {
    var rules = HTTPResponseRules(requestMethod: .get, limits: limits)
    rules.acceptsSwitchingProtocols = true
    self.init(limits: limits, rules: rules)
  }

  /// Bytes received after the end of the response (0 until it is complete).
  public var bytesAfterResponse: Int { bytesWaiting }

  /// The server closed the connection (FIN): parses what is buffered, then ends a body framed
  /// by the close. Anything else not yet complete is ``HTTPResponseParseError/truncated``.
  /// Nil when the event was already given.
  public mutating func finish() -> Event? { finishAtEndOfInput() }

  /// After a response, reads the next one, from the bytes already received and those to come:
  /// the answer to the next request of a pipelined connection, whose method is
  /// `requestMethod`.
  public mutating func expectResponse(to requestMethod: HTTPMethod) {
    resume(answering: requestMethod)
  }
}

/// A response's start line and head (RFC 9112 sections 4 and 6.3): the status line,
/// informational responses, and the body rules of a response.
struct HTTPResponseRules: HTTPDecodingRules {
  /// The method of the request this response answers.
  var requestMethod: HTTPMethod
  /// A 101 is the final response (the answer to an upgrade), not a failure.
  var acceptsSwitchingProtocols = false
  private let informationalLimit: Int
  private let bodyLimit: Int
  private var informational = 0
  private var status = HTTPStatus.ok
  private var minorVersion = 1

  init(requestMethod: HTTPMethod, limits: HTTPResponseParser.Limits) {
    self.requestMethod = requestMethod
    informationalLimit = limits.informationalResponses
    bodyLimit = limits.body
  }

  /// `HTTP/1.x NNN reason`; the reason may be empty, and so may the space before it.
  mutating func startLine(_ line: ArraySlice<UInt8>) -> HTTPStartLine<HTTPResponseEvent> {
    let base = line.startIndex
    guard line.count >= 12, line.starts(with: Array("HTTP/".utf8)), isDigit(line[base + 5]),
      line[base + 6] == 0x2E, isDigit(line[base + 7]), line[base + 8] == 0x20
    else {
      return failed("The status line does not start with HTTP/1.x and a space.")
    }
    guard line[base + 5] == 0x31 else { return failed("The response is not HTTP/1.x.") }
    let digits = line[(base + 9)..<(base + 12)]
    guard digits.allSatisfy(isDigit) else { return failed("The status code is not three digits.") }
    let code = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    guard (100...599).contains(code) else { return failed("The status code is outside 100-599.") }
    var reason = ""
    if line.count > 12 {
      guard line[base + 12] == 0x20 else {
        return failed("The status code is not followed by a space.")
      }
      let reasonBytes = line[(base + 13)...]
      guard reasonBytes.allSatisfy(isFieldValueByte) else {
        return failed("The reason phrase has a control character.")
      }
      reason = String(decoding: reasonBytes, as: UTF8.self)
    }
    status = HTTPStatus(code: code, reason: reason)
    minorVersion = Int(line[base + 7] - 0x30)
    return .parsed
  }

  private func failed(_ message: String) -> HTTPStartLine<HTTPResponseEvent> {
    .failed(.failure(.malformed(message)))
  }

  /// Skips an informational response, or decides the body's framing (RFC 9112 section 6.3).
  mutating func head(_ headers: HTTPHeaders) -> HTTPHeadOutcome<HTTPResponseHead> {
    if status.code < 200 && !(status.code == 101 && acceptsSwitchingProtocols) {
      guard status.code != 101 else {
        return .failed(.failure(.malformed("101 Switching Protocols was not asked for.")))
      }
      informational += 1
      if informational > informationalLimit {
        return .failed(
          .failure(.tooLarge("There are more informational responses than the limit.")))
      }
      return .informational
    }
    let framing: HTTPFraming
    do {
      framing = try bodyFraming(headers)
    } catch {
      return .failed(failure(error))
    }
    let keepAlive = framing != .untilClose && headers.keepsAlive(minorVersion: minorVersion)
    let head = HTTPResponseHead(
      status: status, minorVersion: minorVersion, headers: headers, keepAlive: keepAlive,
      framing: framing.responseFraming)
    return .message(head, framing)
  }

  private func bodyFraming(_ headers: HTTPHeaders) throws(HTTPDecodingProblem) -> HTTPFraming {
    if requestMethod == .head || status.code == 204 || status.code == 304 || status.code == 101 {
      return .none
    }
    switch try DeclaredFraming(headers, minorVersion: minorVersion, bodyLimit: bodyLimit) {
    case .none: return .untilClose
    case .length(let length): return .length(length)
    case .codings(let codings):
      guard codings.count == 1, codings[0].equalsIgnoringASCIICase("chunked") else {
        throw .malformed("A transfer coding other than chunked alone.")
      }
      return .chunked
    }
  }

  func headEvent(_ head: HTTPResponseHead) -> HTTPResponseEvent? { nil }

  func message(_ head: HTTPResponseHead, body: [UInt8]) -> HTTPResponseEvent {
    .response(head, body: body)
  }

  func failure(_ problem: HTTPDecodingProblem) -> HTTPResponseEvent {
    let error: HTTPResponseParseError =
      switch problem {
      case .malformed(let message): .malformed(message)
      case .chunkSizeTooLarge(let message): .tooLarge(message)
      case .startLineTooLong: .tooLarge("The status line is too long.")
      case .headerLineTooLong: .tooLarge("A header line is too long.")
      case .trailerLineTooLong: .tooLarge("A trailer line is too long.")
      case .tooManyFields: .tooLarge("There are more header fields than the limit.")
      case .sectionTooLarge: .tooLarge("The header section is larger than the limit.")
      case .bodyTooLarge: .tooLarge("The body is larger than the limit.")
      case .chunkLineTooLong: .tooLarge("A chunk line is too long.")
      case .truncated: .truncated
      }
    return .failure(error)
  }

  mutating func startsNextMessage() -> Bool {
    informational = 0
    return false
  }

  mutating func answer(_ method: HTTPMethod) {
    requestMethod = method
  }
}

extension HTTPFraming {
  /// The framing as ``HTTPResponseHead`` tells it.
  fileprivate var responseFraming: HTTPResponseHead.BodyFraming {
    switch self {
    case .none: .none
    case .length(let length): .length(length)
    case .chunked: .chunked
    case .untilClose: .untilClose
    }
  }
}
