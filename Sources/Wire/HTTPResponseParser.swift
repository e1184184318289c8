/// A pure HTTP/1.1 response parser: bytes in, one response out, no I/O.
///
/// One parser reads the answer to one request, and must know that request's method: the
/// answer to a HEAD has no body, whatever its headers say. Informational responses (1xx, but
/// not 101) before the final one are read and dropped.
///
/// It is as strict as ``HTTPRequestParser`` wherever leniency lets two parsers disagree about
/// where a response ends (response splitting): a bare CR or LF, a NUL, obs-fold, whitespace
/// before a colon, `Content-Length` together with `Transfer-Encoding`, more than one
/// `Content-Length` (or a list in one), a transfer coding other than `chunked` (the client
/// never asks for one), `Transfer-Encoding` in HTTP/1.0, a status line that is not
/// `HTTP/1.x NNN reason` are all a ``HTTPResponseParseError/Kind/malformed`` failure.
///
/// Feed it with ``append(_:)`` and drain it with ``next()`` until that returns nil (more bytes
/// needed) or an event. When the server closes the connection, call ``finish()``: it ends a
/// body framed by the close, and anything else not yet complete is
/// ``HTTPResponseParseError/Kind/truncated``. The parser gives one event: after
/// ``Event/response(_:body:)`` or ``Event/failure(_:)`` it reads nothing more, and
/// ``bytesAfterResponse`` counts what arrived past the response (on a kept-alive connection, a
/// server bug that makes the connection unusable).
public struct HTTPResponseParser: Sendable {
  /// Size limits; each one exceeded is a ``HTTPResponseParseError/Kind/tooLarge`` failure.
  public struct Limits: Sendable, Hashable {
    /// The status line, without its CRLF.
    public var statusLine: Int = 8 * 1024
    /// One header (or trailer) field line.
    public var headerLine: Int = 8 * 1024
    /// The whole header section; the trailer section has a limit of the same size.
    public var headerSection: Int = 64 * 1024
    /// The number of header fields (and, separately, of trailer fields).
    public var headerCount: Int = 100
    /// The body, after removing the chunked coding.
    public var body: Int = 16 * 1024 * 1024
    /// One chunk-size line with its extensions.
    public var chunkLine: Int = 4 * 1024
    /// Informational (1xx) responses before the final one.
    public var informationalResponses: Int = 8

    public init() {}
  }

  /// What the parser found.
  public enum Event: Sendable {
    /// The whole response.
    case response(HTTPResponseHead, body: [UInt8])
    /// The response is malformed, over a limit, or cut short; close the connection.
    case failure(HTTPResponseParseError)
  }

  private enum State {
    case statusLine
    case headers
    case body(remaining: Int)
    case chunkSize
    case chunkData(remaining: Int)
    case chunkDataEnd
    case trailers
    case untilClose
    case complete
    case delivered
    case failed(HTTPResponseParseError)
  }

  private enum Line {
    case line(Range<Int>)
    case needMore
    case failure(HTTPResponseParseError)
  }

  public let limits: Limits
  /// The method of the request this response answers.
  public let requestMethod: HTTPMethod
  private var buffer: [UInt8] = []
  private var start = 0
  private var scanned = 0
  private var state = State.statusLine
  private var informational = 0

  private var status = HTTPStatus.ok
  private var minorVersion = 1
  private var fields: [HTTPHeaders.Field] = []
  private var sectionBytes = 0
  private var sectionCount = 0
  private var head: HTTPResponseHead?
  private var body: [UInt8] = []

  public init(requestMethod: HTTPMethod = .get, limits: Limits = Limits()) {
    self.requestMethod = requestMethod
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

  /// Bytes received after the end of the response (0 until it is complete).
  public var bytesAfterResponse: Int {
    if case .delivered = state { return buffer.count - start }
    return 0
  }

  /// The response, a failure, or nil when more bytes are needed (or the event was given).
  public mutating func next() -> Event? {
    while true {
      switch state {
      case .failed(let error):
        return .failure(error)
      case .delivered:
        return nil
      case .statusLine:
        switch nextLine(
          limit: limits.statusLine, tooLong: .tooLarge("The status line is too long."))
        {
        case .needMore: return nil
        case .failure(let error): return fail(error)
        case .line(let range):
          if let error = parseStatusLine(range) { return fail(error) }
          state = .headers
        }
      case .headers:
        switch nextLine(limit: limits.headerLine, tooLong: .tooLarge("A header line is too long."))
        {
        case .needMore: return nil
        case .failure(let error): return fail(error)
        case .line(let range):
          if range.isEmpty {
            if let error = finishHead() { return fail(error) }
            continue
          }
          if let error = addField(range, keep: true) { return fail(error) }
        }
      case .body(let remaining):
        let count = min(remaining, buffer.count - start)
        if count == 0 { return nil }
        body.append(contentsOf: buffer[start..<start + count])
        consume(count)
        state = remaining == count ? .complete : .body(remaining: remaining - count)
      case .chunkSize:
        switch nextLine(limit: limits.chunkLine, tooLong: .tooLarge("A chunk line is too long.")) {
        case .needMore: return nil
        case .failure(let error): return fail(error)
        case .line(let range):
          switch parseChunkSize(range) {
          case .failure(let error): return fail(error)
          case .success(0):
            sectionBytes = 0
            sectionCount = 0
            state = .trailers
          case .success(let size):
            if size > limits.body - body.count {
              return fail(.tooLarge("The body is larger than the limit."))
            }
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
          return fail(.malformed("Chunk data is not followed by CRLF."))
        }
        consume(2)
        state = .chunkSize
      case .trailers:
        switch nextLine(limit: limits.headerLine, tooLong: .tooLarge("A trailer line is too long."))
        {
        case .needMore: return nil
        case .failure(let error): return fail(error)
        case .line(let range):
          if range.isEmpty {
            state = .complete
            continue
          }
          if let error = addField(range, keep: false) { return fail(error) }
        }
      case .untilClose:
        let count = buffer.count - start
        if count == 0 { return nil }
        if count > limits.body - body.count {
          return fail(.tooLarge("The body is larger than the limit."))
        }
        body.append(contentsOf: buffer[start...])
        consume(count)
        return nil
      case .complete:
        guard let head else { return fail(.malformed("Internal parser state.")) }
        state = .delivered
        let event = Event.response(head, body: body)
        body = []
        return event
      }
    }
  }

  /// The server closed the connection (FIN): parses what is buffered, then ends a body framed
  /// by the close. Anything else not yet complete is ``HTTPResponseParseError/truncated``.
  /// Nil when the event was already given.
  public mutating func finish() -> Event? {
    if let event = next() { return event }
    switch state {
    case .delivered:
      return nil
    case .untilClose:
      state = .complete
      return next()
    default:
      return fail(.truncated)
    }
  }

  private mutating func fail(_ error: HTTPResponseParseError) -> Event {
    state = .failed(error)
    return .failure(error)
  }

  private mutating func consume(_ count: Int) {
    start += count
    scanned = start
  }

  private mutating func compact() {
    compactHTTPBuffer(&buffer, start: &start, scanned: &scanned)
  }

  /// The next CRLF line (`scanHTTPLine`), its problems said as this parser's errors.
  private mutating func nextLine(limit: Int, tooLong: HTTPResponseParseError) -> Line {
    switch scanHTTPLine(buffer, start: &start, scanned: &scanned, limit: limit) {
    case .line(let range): .line(range)
    case .needMore: .needMore
    case .tooLong: .failure(tooLong)
    case .bareLF: .failure(.malformed("A line ends with LF without CR."))
    }
  }

  /// `HTTP/1.x NNN reason`; the reason may be empty, and so may the space before it.
  private mutating func parseStatusLine(_ range: Range<Int>) -> HTTPResponseParseError? {
    let line = buffer[range]
    let base = range.lowerBound
    guard line.count >= 12, line.starts(with: Array("HTTP/".utf8)), isDigit(buffer[base + 5]),
      buffer[base + 6] == 0x2E, isDigit(buffer[base + 7]), buffer[base + 8] == 0x20
    else {
      return .malformed("The status line does not start with HTTP/1.x and a space.")
    }
    guard buffer[base + 5] == 0x31 else {
      return .malformed("The response is not HTTP/1.x.")
    }
    let digits = buffer[(base + 9)..<(base + 12)]
    guard digits.allSatisfy(isDigit) else {
      return .malformed("The status code is not three digits.")
    }
    let code = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    guard (100...599).contains(code) else {
      return .malformed("The status code is outside 100-599.")
    }
    var reason = ""
    if line.count > 12 {
      guard buffer[base + 12] == 0x20 else {
        return .malformed("The status code is not followed by a space.")
      }
      let reasonBytes = buffer[(base + 13)..<range.upperBound]
      guard reasonBytes.allSatisfy(isFieldValueByte) else {
        return .malformed("The reason phrase has a control character.")
      }
      reason = String(decoding: reasonBytes, as: UTF8.self)
    }
    status = HTTPStatus(code: code, reason: reason)
    minorVersion = Int(buffer[base + 7] - 0x30)
    return nil
  }

  /// Parses `name: value` into `fields` (or only checks it, for trailers).
  private mutating func addField(_ range: Range<Int>, keep: Bool) -> HTTPResponseParseError? {
    sectionCount += 1
    sectionBytes += range.count + 2
    if sectionCount > limits.headerCount {
      return .tooLarge("There are more header fields than the limit.")
    }
    if sectionBytes > limits.headerSection {
      return .tooLarge("The header section is larger than the limit.")
    }
    switch parseFieldLine(buffer[range]) {
    case .failure(let error): return .malformed(error.message)
    case .success(let field):
      if keep { fields.append(fieldStrings(field)) }
      return nil
    }
  }

  /// Ends the header section: skips an informational response, or decides the body's framing
  /// (RFC 9112 section 6.3) and the next state.
  private mutating func finishHead() -> HTTPResponseParseError? {
    if status.code < 200 {
      guard status.code != 101 else {
        return .malformed("101 Switching Protocols was not asked for.")
      }
      informational += 1
      if informational > limits.informationalResponses {
        return .tooLarge("There are more informational responses than the limit.")
      }
      fields = []
      sectionBytes = 0
      sectionCount = 0
      state = .statusLine
      return nil
    }
    let headers = HTTPHeaders(fields)
    let framing: HTTPResponseHead.BodyFraming
    switch Self.framing(
      of: headers, status: status.code, minorVersion: minorVersion,
      requestMethod: requestMethod, bodyLimit: limits.body)
    {
    case .failure(let error): return error
    case .success(let found): framing = found
    }
    let keepAlive =
      framing != .untilClose
      && (minorVersion >= 1
        ? !headers.containsToken("close", in: "Connection")
        : headers.containsToken("keep-alive", in: "Connection"))
    head = HTTPResponseHead(
      status: status, minorVersion: minorVersion, headers: headers, keepAlive: keepAlive,
      framing: framing)
    switch framing {
    case .none, .length(0): state = .complete
    case .length(let length): state = .body(remaining: length)
    case .chunked: state = .chunkSize
    case .untilClose: state = .untilClose
    }
    return nil
  }

  private static func framing(
    of headers: HTTPHeaders, status: Int, minorVersion: Int, requestMethod: HTTPMethod,
    bodyLimit: Int
  ) -> Result<HTTPResponseHead.BodyFraming, HTTPResponseParseError> {
    if requestMethod == .head || status == 204 || status == 304 { return .success(.none) }
    let codingFields = headers.values(for: "Transfer-Encoding")
    let lengthFields = headers.values(for: "Content-Length")
    if !codingFields.isEmpty {
      if minorVersion == 0 {
        return .failure(.malformed("Transfer-Encoding is not allowed in HTTP/1.0."))
      }
      if !lengthFields.isEmpty {
        return .failure(.malformed("Both Content-Length and Transfer-Encoding."))
      }
      let codings = codingFields.flatMap {
        $0.split(separator: ",", omittingEmptySubsequences: false)
      }
      .map { $0.trimmingSpacesAndTabs() }
      guard codings.count == 1, codings[0].equalsIgnoringASCIICase("chunked") else {
        return .failure(.malformed("A transfer coding other than chunked alone."))
      }
      return .success(.chunked)
    }
    if !lengthFields.isEmpty {
      let length: Int
      switch parseContentLength(lengthFields) {
      case .failure(let error): return .failure(.malformed(error.message))
      case .success(let found): length = found
      }
      if length > bodyLimit { return .failure(.tooLarge("The body is larger than the limit.")) }
      return .success(.length(length))
    }
    return .success(.untilClose)
  }

  private func parseChunkSize(_ range: Range<Int>) -> Result<Int, HTTPResponseParseError> {
    parseChunkSizeLine(buffer[range]).mapError {
      $0.isOverLimit ? .tooLarge($0.message) : .malformed($0.message)
    }
  }
}
