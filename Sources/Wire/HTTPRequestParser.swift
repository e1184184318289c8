/// A pure HTTP/1.1 request parser: bytes in, events out, no I/O.
///
/// It follows RFC 9112 strictly where leniency lets two parsers disagree about where a request
/// ends (request smuggling): a bare CR or LF, a NUL, obs-fold, whitespace before a colon,
/// `Content-Length` together with `Transfer-Encoding`, several `Content-Length` fields, a
/// coding after `chunked`, or `Transfer-Encoding` in HTTP/1.0 are all a 400. After a
/// ``Event/failure(_:)`` the parser accepts nothing more: the connection must be closed.
///
/// Feed it with ``append(_:)`` and drain it with ``next()`` until that returns nil. Each request
/// gives ``Event/head(_:)`` as soon as its header section is complete (the moment to answer
/// `100 Continue`), then ``Event/request(_:body:)`` once the body is in. Bytes after a complete
/// request stay buffered for the next one.
public struct HTTPRequestParser: Sendable {
  /// Size limits; each one exceeded gives the status in its comment.
  public struct Limits: Sendable, Hashable {
    /// The request line, without its CRLF (414).
    public var requestLine: Int = 8 * 1024
    /// One header field line (431).
    public var headerLine: Int = 8 * 1024
    /// The whole header section (431).
    public var headerSection: Int = 32 * 1024
    /// The number of header fields (431).
    public var headerCount: Int = 100
    /// The body, after removing the chunked coding (413).
    public var body: Int = 64 * 1024
    /// One chunk-size line with its extensions (400).
    public var chunkLine: Int = 4 * 1024

    public init() {}
  }

  /// What the parser found.
  public enum Event: Sendable {
    /// The header section of a request is complete; its body (if any) follows.
    case head(HTTPRequestHead)
    /// A whole request.
    case request(HTTPRequestHead, body: [UInt8])
    /// The request is malformed or over a limit; answer with the error's status and close.
    case failure(HTTPParseError)
  }

  private enum State {
    case requestLine
    case headers
    case headComplete
    case body(remaining: Int)
    case chunkSize
    case chunkData(remaining: Int)
    case chunkDataEnd
    case trailers
    case complete
    case failed(HTTPParseError)
  }

  private enum Line {
    case line(Range<Int>)
    case needMore
    case failure(HTTPParseError)
  }

  public let limits: Limits
  private var buffer: [UInt8] = []
  private var start = 0
  private var scanned = 0
  private var state = State.requestLine
  private var emptyLinesSkipped = 0

  private var method = HTTPMethod.get
  private var target = ""
  private var minorVersion = 1
  private var fields: [HTTPHeaders.Field] = []
  private var sectionBytes = 0
  private var sectionCount = 0
  private var head: HTTPRequestHead?
  private var body: [UInt8] = []

  public init(limits: Limits = Limits()) {
    self.limits = limits
  }

  /// Adds received bytes.
  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    compact()
    buffer.append(contentsOf: bytes)
  }

  /// Adds received bytes.
  public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
    compact()
    buffer.append(contentsOf: bytes)
  }

  /// Whether bytes of a request not yet complete are buffered (the header timer runs).
  public var hasPartialRequest: Bool {
    if case .requestLine = state { return start < buffer.count }
    return true
  }

  /// Removes and returns the bytes not yet parsed: after a protocol switch they belong to the
  /// new protocol.
  public mutating func takeRemainingBytes() -> [UInt8] {
    let rest = Array(buffer[start...])
    buffer.removeAll()
    start = 0
    scanned = 0
    return rest
  }

  /// The next event, or nil when more bytes are needed.
  public mutating func next() -> Event? {
    while true {
      switch state {
      case .failed(let error):
        return .failure(error)
      case .requestLine:
        switch nextLine(limit: limits.requestLine, tooLong: .requestLineTooLong) {
        case .needMore: return nil
        case .failure(let error): return fail(error)
        case .line(let range):
          if range.isEmpty {
            // RFC 9112 section 2.2: ignore a few empty lines before the request line.
            emptyLinesSkipped += 1
            if emptyLinesSkipped > 4 { return fail(.badRequest("Too many empty lines.")) }
            continue
          }
          if let error = parseRequestLine(range) { return fail(error) }
          state = .headers
        }
      case .headers:
        switch nextLine(limit: limits.headerLine, tooLong: .headerTooLarge) {
        case .needMore: return nil
        case .failure(let error): return fail(error)
        case .line(let range):
          if range.isEmpty {
            switch finishHead() {
            case .failure(let error): return fail(error)
            case .success(let head):
              self.head = head
              state = .headComplete
              return .head(head)
            }
          }
          if let error = addField(range, keep: true) { return fail(error) }
        }
      case .headComplete:
        switch head?.framing ?? .none {
        case .none: state = .complete
        case .length(let length): state = length == 0 ? .complete : .body(remaining: length)
        case .chunked:
          sectionBytes = 0
          sectionCount = 0
          state = .chunkSize
        }
      case .body(let remaining):
        let count = min(remaining, buffer.count - start)
        if count == 0 { return nil }
        body.append(contentsOf: buffer[start..<start + count])
        consume(count)
        state = remaining == count ? .complete : .body(remaining: remaining - count)
      case .chunkSize:
        switch nextLine(limit: limits.chunkLine, tooLong: .badRequest("Chunk line too long.")) {
        case .needMore: return nil
        case .failure(let error): return fail(error)
        case .line(let range):
          switch parseChunkSize(range) {
          case .failure(let error): return fail(error)
          case .success(0): state = .trailers
          case .success(let size):
            if size > limits.body - body.count { return fail(.bodyTooLarge) }
            state = .chunkData(remaining: size)
          }
        }
      case .chunkData(let remaining):
        let count = min(remaining, buffer.count - start)
        if count == 0 { return nil }
        body.append(contentsOf: buffer[start..<start + count])
        consume(count)
        state = remaining == count ? .chunkDataEnd : .chunkData(remaining: remaining - count)
      case .chunkDataEnd:
        if buffer.count - start < 2 { return nil }
        guard buffer[start] == 0x0D, buffer[start + 1] == 0x0A else {
          return fail(.badRequest("Chunk data is not followed by CRLF."))
        }
        consume(2)
        state = .chunkSize
      case .trailers:
        switch nextLine(limit: limits.headerLine, tooLong: .headerTooLarge) {
        case .needMore: return nil
        case .failure(let error): return fail(error)
        case .line(let range):
          if range.isEmpty {
            state = .complete
            continue
          }
          if let error = addField(range, keep: false) { return fail(error) }
        }
      case .complete:
        guard let head else { return fail(.badRequest("Internal parser state.")) }
        let event = Event.request(head, body: body)
        reset()
        return event
      }
    }
  }

  private mutating func fail(_ error: HTTPParseError) -> Event {
    state = .failed(error)
    return .failure(error)
  }

  private mutating func reset() {
    state = .requestLine
    emptyLinesSkipped = 0
    fields = []
    sectionBytes = 0
    sectionCount = 0
    head = nil
    body = []
  }

  private mutating func consume(_ count: Int) {
    start += count
    scanned = start
  }

  private mutating func compact() {
    compactHTTPBuffer(&buffer, start: &start, scanned: &scanned)
  }

  /// The next CRLF line (`scanHTTPLine`), its problems said as this parser's errors.
  private mutating func nextLine(limit: Int, tooLong: HTTPParseError) -> Line {
    switch scanHTTPLine(buffer, start: &start, scanned: &scanned, limit: limit) {
    case .line(let range): .line(range)
    case .needMore: .needMore
    case .tooLong: .failure(tooLong)
    case .bareLF: .failure(.badRequest("A line ends with LF without CR."))
    }
  }

  private mutating func parseRequestLine(_ range: Range<Int>) -> HTTPParseError? {
    guard let firstSpace = buffer[range].firstIndex(of: 0x20) else {
      return .badRequest("The request line has no spaces.")
    }
    let methodBytes = buffer[range.lowerBound..<firstSpace]
    guard !methodBytes.isEmpty, methodBytes.allSatisfy(isTokenByte) else {
      return .badRequest("The method is not a token.")
    }
    let targetStart = firstSpace + 1
    guard let secondSpace = buffer[targetStart..<range.upperBound].firstIndex(of: 0x20) else {
      return .badRequest("The request line has no version.")
    }
    let targetBytes = buffer[targetStart..<secondSpace]
    guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      return .badRequest("The request target is empty or has invalid bytes.")
    }
    let versionBytes = buffer[(secondSpace + 1)..<range.upperBound]
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

  /// Parses `name: value` into `fields` (or only checks it, for trailers).
  private mutating func addField(_ range: Range<Int>, keep: Bool) -> HTTPParseError? {
    sectionCount += 1
    sectionBytes += range.count + 2
    if sectionCount > limits.headerCount { return .tooManyHeaders }
    if sectionBytes > limits.headerSection { return .headersTooLarge }
    switch parseFieldLine(buffer[range]) {
    case .failure(let error): return .badRequest(error.message)
    case .success(let field):
      if keep { fields.append(fieldStrings(field)) }
      return nil
    }
  }

  private func finishHead() -> Result<HTTPRequestHead, HTTPParseError> {
    let headers = HTTPHeaders(fields)
    let hosts = headers.values(for: "Host")
    if hosts.count > 1 { return .failure(.badRequest("More than one Host field.")) }
    if minorVersion >= 1 && hosts.isEmpty {
      return .failure(.badRequest("HTTP/1.1 requires a Host field."))
    }

    var framing = HTTPRequestHead.BodyFraming.none
    let codingFields = headers.values(for: "Transfer-Encoding")
    let lengthFields = headers.values(for: "Content-Length")
    if !codingFields.isEmpty {
      if minorVersion == 0 {
        return .failure(.badRequest("Transfer-Encoding is not allowed in HTTP/1.0."))
      }
      if !lengthFields.isEmpty {
        return .failure(.badRequest("Both Content-Length and Transfer-Encoding."))
      }
      let codings = codingFields.flatMap {
        $0.split(separator: ",", omittingEmptySubsequences: false)
      }
      .map { $0.trimmingSpacesAndTabs() }
      if codings.contains(where: \.isEmpty) {
        return .failure(.badRequest("An empty transfer coding."))
      }
      guard let last = codings.last, last.equalsIgnoringASCIICase("chunked") else {
        return .failure(.badRequest("The last transfer coding is not chunked."))
      }
      if codings.count > 1 {
        if codings.dropLast().contains(where: { $0.equalsIgnoringASCIICase("chunked") }) {
          return .failure(.badRequest("Chunked is applied more than once."))
        }
        return .failure(.unsupportedTransferCoding)
      }
      framing = .chunked
    } else if !lengthFields.isEmpty {
      let length: Int
      switch parseContentLength(lengthFields) {
      case .failure(let error): return .failure(.badRequest(error.message))
      case .success(let found): length = found
      }
      if length > limits.body { return .failure(.bodyTooLarge) }
      framing = .length(length)
    }

    var expectsContinue = false
    if let expectation = headers["Expect"] {
      guard expectation.equalsIgnoringASCIICase("100-continue") else {
        return .failure(.unsupportedExpectation)
      }
      expectsContinue = minorVersion >= 1
    }

    let keepAlive =
      minorVersion >= 1
      ? !headers.containsToken("close", in: "Connection")
      : headers.containsToken("keep-alive", in: "Connection")
    return .success(
      HTTPRequestHead(
        method: method, target: target, minorVersion: minorVersion, headers: headers,
        keepAlive: keepAlive, expectsContinue: expectsContinue, framing: framing))
  }

  private func parseChunkSize(_ range: Range<Int>) -> Result<Int, HTTPParseError> {
    parseChunkSizeLine(buffer[range]).mapError { .badRequest($0.message) }
  }
}
