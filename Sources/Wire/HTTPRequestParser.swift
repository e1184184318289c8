/// The server's request parser: ``HTTPDecoder`` reading requests.
public typealias HTTPRequestParser = HTTPDecoder<HTTPRequestHead>

/// What ``HTTPRequestParser`` (``HTTPDecoder`` reading requests) gives.
///
/// Each request gives ``head(_:)`` as soon as its header section is complete (the moment to
/// answer `100 Continue`), then ``request(_:body:)`` once the body is in. Bytes after a complete
/// request stay buffered for the next one. A request is refused with the status of its
/// ``HTTPParseError`` (400 for broken syntax; 414, 431, 413 over a limit; 501 for a transfer
/// coding other than chunked; 505; 417), after which the connection must be closed.
public enum HTTPRequestEvent: Sendable {
  /// The header section of a request is complete; its body (if any) follows.
  case head(HTTPRequestHead)
  /// A whole request.
  case request(HTTPRequestHead, body: [UInt8])
  /// The request is malformed or over a limit; answer with the error's status and close.
  case failure(HTTPParseError)
}

extension HTTPDecoder where Head == HTTPRequestHead {
  /// A parser of the requests of one connection.
  public init(limits: Limits = Limits()) {
    self.init(limits: limits, rules: HTTPRequestRules(limits: limits))
  }

  /// Whether bytes of a request not yet complete are buffered (the header timer runs).
  public var hasPartialRequest: Bool { hasPartialMessage }
}

/// A request's start line and head (RFC 9112 sections 3 and 6.3; RFC 9110 sections 7.2 and
/// 10.1.1): the request line, `Host`, the framing of a request body, `Expect`, keep-alive.
struct HTTPRequestRules: HTTPDecodingRules {
  private let bodyLimit: Int
  private var emptyLinesSkipped = 0
  private var method = HTTPMethod.get
  private var target = ""
  private var minorVersion = 1

  init(limits: HTTPRequestParser.Limits) {
    bodyLimit = limits.body
  }

  mutating func startLine(_ line: ArraySlice<UInt8>) -> HTTPStartLine<HTTPRequestEvent> {
    if line.isEmpty {
      // RFC 9112 section 2.2: ignore a few empty lines before the request line.
      emptyLinesSkipped += 1
      return emptyLinesSkipped > 4
        ? .failed(.failure(.badRequest("Too many empty lines."))) : .skipped
    }
    if let error = parseRequestLine(line) { return .failed(.failure(error)) }
    return .parsed
  }

  private mutating func parseRequestLine(_ line: ArraySlice<UInt8>) -> HTTPParseError? {
    guard let firstSpace = line.firstIndex(of: 0x20) else {
      return .badRequest("The request line has no spaces.")
    }
    let methodBytes = line[..<firstSpace]
    guard !methodBytes.isEmpty, methodBytes.allSatisfy(isTokenByte) else {
      return .badRequest("The method is not a token.")
    }
    let targetStart = firstSpace + 1
    guard let secondSpace = line[targetStart...].firstIndex(of: 0x20) else {
      return .badRequest("The request line has no version.")
    }
    let targetBytes = line[targetStart..<secondSpace]
    guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      return .badRequest("The request target is empty or has invalid bytes.")
    }
    let versionBytes = line[(secondSpace + 1)...]
    guard versionBytes.count == 8, versionBytes.starts(with: Array("HTTP/".utf8)) else {
      return .badRequest("The HTTP version is malformed.")
    }
    let major = versionBytes[versionBytes.startIndex + 5]
    let dot = versionBytes[versionBytes.startIndex + 6]
    let minor = versionBytes[versionBytes.startIndex + 7]
    guard isDigit(major), dot == 0x2E, isDigit(minor) else {
      return .badRequest("The HTTP version is malformed.")
    }
    guard major == 0x31 else { return .versionNotSupported }
    method = HTTPMethod(rawValue: String(decoding: methodBytes, as: UTF8.self))
    target = String(decoding: targetBytes, as: UTF8.self)
    minorVersion = Int(minor - 0x30)
    guard
      target.hasPrefix("/") || (target == "*" && method == .options)
        || target.lowercased().hasPrefix("http://") || target.lowercased().hasPrefix("https://")
    else {
      return .badRequest("The request target form is not supported.")
    }
    return nil
  }

  mutating func head(_ headers: HTTPHeaders) -> HTTPHeadOutcome<HTTPRequestHead> {
    switch makeHead(headers) {
    case .success(let (head, framing)): .message(head, framing)
    case .failure(let error): .failed(.failure(error))
    }
  }

  private func makeHead(_ headers: HTTPHeaders) -> Result<
    (HTTPRequestHead, HTTPFraming), HTTPParseError
  > {
    let hosts = headers.values(for: "Host")
    if hosts.count > 1 { return .failure(.badRequest("More than one Host field.")) }
    if minorVersion >= 1 && hosts.isEmpty {
      return .failure(.badRequest("HTTP/1.1 requires a Host field."))
    }
    let framing: HTTPRequestHead.BodyFraming
    do {
      switch try DeclaredFraming(headers, minorVersion: minorVersion, bodyLimit: bodyLimit) {
      case .none: framing = .none
      case .length(let length): framing = .length(length)
      case .codings(let codings):
        if let error = Self.refusal(of: codings) { return .failure(error) }
        framing = .chunked
      }
    } catch {
      return .failure(Self.error(for: error))
    }

    var expectsContinue = false
    if let expectation = headers["Expect"] {
      guard expectation.equalsIgnoringASCIICase("100-continue") else {
        return .failure(.unsupportedExpectation)
      }
      expectsContinue = minorVersion >= 1
    }
    let head = HTTPRequestHead(
      method: method, target: target, minorVersion: minorVersion, headers: headers,
      keepAlive: headers.keepsAlive(minorVersion: minorVersion),
      expectsContinue: expectsContinue, framing: framing)
    switch framing {
    case .none: return .success((head, .none))
    case .length(let length): return .success((head, .length(length)))
    case .chunked: return .success((head, .chunked))
    }
  }

  /// Why a request's transfer codings are refused: a server must understand every coding, and
  /// this one knows only `chunked`, which must come last, once.
  private static func refusal(of codings: [Substring]) -> HTTPParseError? {
    if codings.contains(where: \.isEmpty) { return .badRequest("An empty transfer coding.") }
    guard let last = codings.last, last.equalsIgnoringASCIICase("chunked") else {
      return .badRequest("The last transfer coding is not chunked.")
    }
    guard codings.count > 1 else { return nil }
    if codings.dropLast().contains(where: { $0.equalsIgnoringASCIICase("chunked") }) {
      return .badRequest("Chunked is applied more than once.")
    }
    return .unsupportedTransferCoding
  }

  func headEvent(_ head: HTTPRequestHead) -> HTTPRequestEvent? { .head(head) }

  func message(_ head: HTTPRequestHead, body: [UInt8]) -> HTTPRequestEvent {
    .request(head, body: body)
  }

  func failure(_ problem: HTTPDecodingProblem) -> HTTPRequestEvent {
    .failure(Self.error(for: problem))
  }

  /// A shared problem as the status the server answers with.
  private static func error(for problem: HTTPDecodingProblem) -> HTTPParseError {
    switch problem {
    case .malformed(let message), .chunkSizeTooLarge(let message): .badRequest(message)
    case .startLineTooLong: .requestLineTooLong
    case .headerLineTooLong, .trailerLineTooLong: .headerTooLarge
    case .tooManyFields: .tooManyHeaders
    case .sectionTooLarge: .headersTooLarge
    case .bodyTooLarge: .bodyTooLarge
    case .chunkLineTooLong: .badRequest("Chunk line too long.")
    case .truncated: .badRequest("The connection closed before the request was complete.")
    }
  }

  mutating func startsNextMessage() -> Bool {
    emptyLinesSkipped = 0
    return true
  }

  mutating func answer(_ method: HTTPMethod) {}
}
