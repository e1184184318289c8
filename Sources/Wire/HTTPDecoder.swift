/// The message head an ``HTTPDecoder`` decodes, which picks what it gives:
/// ``HTTPRequestHead`` (a server's ``HTTPRequestParser``) or ``HTTPResponseHead`` (a client's
/// ``HTTPResponseParser``). Only these two conform.
public protocol HTTPDecodableHead: Sendable {
  /// What the decoder gives: ``HTTPRequestEvent`` or ``HTTPResponseEvent``.
  associatedtype Event: Sendable
  /// The limits a decoder of such heads has unless told otherwise.
  static var defaultLimits: HTTPDecoder<Self>.Limits { get }
}

/// A pure HTTP/1.1 decoder for both directions, in the shape of swift-nio's
/// `HTTPDecoder<In, Out>`: bytes in, events out, no I/O. ``HTTPRequestParser`` and
/// ``HTTPResponseParser`` are this one type, and one state machine: the header syntax and its
/// limits, `Content-Length` against `chunked`, chunk extensions, trailers, and the defences
/// against smuggling are the same code both ways. What differs, the start line (a request
/// line or a status line) and the body rules (a response to a HEAD, a 1xx, 204 or 304 has no
/// body; one with neither length nor chunked coding ends with the connection), is in the rules
/// of each direction (`HTTPRequestRules`, `HTTPResponseRules`).
///
/// It follows RFC 9112 strictly where leniency lets two parsers disagree about where a message
/// ends (request smuggling, response splitting): a bare CR or LF, a NUL, obs-fold, whitespace
/// before a colon, `Content-Length` together with `Transfer-Encoding`, several `Content-Length`
/// fields, a coding after `chunked`, or `Transfer-Encoding` in HTTP/1.0 are all a failure.
/// After a failure the decoder gives that failure again and takes nothing more: the connection
/// must be closed.
///
/// Feed it with ``append(_:)`` and drain it with ``next()`` until that returns nil (more bytes
/// needed). What each direction gives, and its own members, are on ``HTTPRequestEvent`` and
/// ``HTTPResponseEvent``.
///
/// ## Topics
/// - ``Limits``
/// - ``HTTPRequestParser``, ``HTTPRequestEvent``
/// - ``HTTPResponseParser``, ``HTTPResponseEvent``
public struct HTTPDecoder<Head: HTTPDecodableHead>: Sendable {
  public typealias Event = Head.Event

  /// Size limits, the same in both directions but for their defaults and what going over
  /// them gives: for a request, the status in each comment; for a response, a
  /// ``HTTPResponseParseError/Kind/tooLarge`` failure.
  public struct Limits: Sendable, Hashable {
    /// The request line (414) or the status line, without its CRLF.
    public var startLine: Int = 8 * 1024
    /// One header (or trailer) field line (431).
    public var headerLine: Int = 8 * 1024
    /// The whole header section (431); the trailer section has a limit of the same size.
    public var headerSection: Int
    /// The number of header fields (431), and separately of trailer fields.
    public var headerCount: Int = 100
    /// The body, after removing the chunked coding (413).
    public var body: Int
    /// One chunk-size line with its extensions (400).
    public var chunkLine: Int = 4 * 1024
    /// Informational (1xx) responses before the final one (responses only).
    public var informationalResponses: Int = 8

    /// ``startLine`` by its name in a request.
    public var requestLine: Int {
      get { startLine }
      set { startLine = newValue }
    }
    /// ``startLine`` by its name in a response.
    public var statusLine: Int {
      get { startLine }
      set { startLine = newValue }
    }

    /// The defaults of the direction: ``HTTPDecodableHead/defaultLimits``.
    public init() {
      self = Head.defaultLimits
    }

    init(headerSection: Int, body: Int) {
      self.headerSection = headerSection
      self.body = body
    }
  }

  private enum State {
    case startLine
    case headers
    case body(remaining: Int)
    case chunkSize
    case chunkData(remaining: Int)
    case chunkDataEnd
    case trailers
    /// A response body that ends with the connection.
    case untilClose
    case complete
    /// A decoder of one message at a time gave it, and waits to be told of the next.
    case delivered
    case failed(Event)
  }

  public let limits: Limits
  /// The direction's own rules.
  private var rules: any HTTPDecodingRules<Head>
  private var buffer = ByteBuffer()
  /// How many bytes after the reader index were already searched for a line end, so bytes
  /// arriving one at a time are each looked at once.
  private var scanned = 0
  private var state = State.startLine

  private var fields: [HTTPHeaders.Field] = []
  private var sectionBytes = 0
  private var sectionCount = 0
  /// The head of the message being read, once its header section is complete.
  private(set) var head: Head?
  private var body: [UInt8] = []

  init(limits: Limits, rules: some HTTPDecodingRules<Head>) {
    self.limits = limits
    self.rules = rules
  }

  /// Adds received bytes.
  public mutating func append(_ bytes: UnsafeRawBufferPointer) { buffer.writeBytes(bytes) }

  /// Adds received bytes.
  public mutating func append(contentsOf bytes: some Sequence<UInt8>) { buffer.writeBytes(bytes) }

  /// Removes and returns the bytes not yet decoded: after a protocol switch they belong to the
  /// new protocol.
  public mutating func takeRemainingBytes() -> [UInt8] {
    scanned = 0
    return buffer.readAll()
  }

  /// Bytes buffered and not decoded while the decoder waits (a response decoder after its
  /// response: on a kept-alive connection, a server bug that makes the connection unusable).
  var bytesWaiting: Int {
    if case .delivered = state { return buffer.readableBytes }
    return 0
  }

  /// Whether bytes of a message not yet complete are buffered.
  var hasPartialMessage: Bool {
    if case .startLine = state { return !buffer.isEmpty }
    return true
  }

  /// The next event, or nil when more bytes are needed (or a decoder of one message at a time
  /// gave its message).
  public mutating func next() -> Event? {
    while true {
      switch state {
      case .failed(let event):
        return event
      case .delivered:
        return nil
      case .startLine:
        switch nextLine(limit: limits.startLine, tooLong: .startLineTooLong) {
        case .needMore: return nil
        case .failure(let problem): return fail(problem)
        case .line(let range):
          switch rules.startLine(buffer[range]) {
          case .skipped: continue
          case .failed(let event): return fail(event)
          case .parsed: state = .headers
          }
        }
      case .headers:
        switch nextLine(limit: limits.headerLine, tooLong: .headerLineTooLong) {
        case .needMore: return nil
        case .failure(let problem): return fail(problem)
        case .line(let range):
          if range.isEmpty {
            if let event = finishHead() { return event }
            continue
          }
          if let problem = addField(range, keep: true) { return fail(problem) }
        }
      case .body(let remaining):
        let count = min(remaining, buffer.readableBytes)
        if count == 0 { return nil }
        readBody(count)
        state = remaining == count ? .complete : .body(remaining: remaining - count)
      case .chunkSize:
        switch nextLine(limit: limits.chunkLine, tooLong: .chunkLineTooLong) {
        case .needMore: return nil
        case .failure(let problem): return fail(problem)
        case .line(let range):
          switch parseChunkSizeLine(buffer[range]) {
          case .failure(let error):
            return fail(
              error.isOverLimit ? .chunkSizeTooLarge(error.message) : .malformed(error.message))
          case .success(0):
            sectionBytes = 0
            sectionCount = 0
            state = .trailers
          case .success(let size):
            if size > limits.body - body.count { return fail(.bodyTooLarge) }
            state = .chunkData(remaining: size)
          }
        }
      case .chunkData(let remaining):
        let count = min(remaining, buffer.readableBytes)
        if count == 0 { return nil }
        readBody(count)
        state = remaining == count ? .chunkDataEnd : .chunkData(remaining: remaining - count)
      case .chunkDataEnd:
        if buffer.readableBytes < 2 { return nil }
        let start = buffer.readerIndex
        guard buffer[start] == 0x0D, buffer[start + 1] == 0x0A else {
          return fail(.malformed("Chunk data is not followed by CRLF."))
        }
        buffer.moveReaderIndex(forwardBy: 2)
        scanned = 0
        state = .chunkSize
      case .trailers:
        switch nextLine(limit: limits.headerLine, tooLong: .trailerLineTooLong) {
        case .needMore: return nil
        case .failure(let problem): return fail(problem)
        case .line(let range):
          if range.isEmpty {
            state = .complete
            continue
          }
          if let problem = addField(range, keep: false) { return fail(problem) }
        }
      case .untilClose:
        let count = buffer.readableBytes
        if count == 0 { return nil }
        if count > limits.body - body.count { return fail(.bodyTooLarge) }
        readBody(count)
        return nil
      case .complete:
        guard let head else { return fail(.malformed("Internal parser state.")) }
        let event = rules.message(head, body: body)
        startNextMessage()
        return event
      }
    }
  }

  /// Ends a body that ends with the connection (the peer's FIN), and returns the message; any
  /// other message not yet complete is the `truncated` problem. Nil when there was nothing to
  /// end (the message was already given).
  mutating func finishAtEndOfInput() -> Event? {
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

  /// Reads the next message, the answer to a request with `method`, from the bytes already
  /// buffered and those to come, after a decoder of one message at a time gave one.
  mutating func resume(answering method: HTTPMethod) {
    guard case .delivered = state else { return }
    rules.answer(method)
    state = .startLine
  }

  private mutating func readBody(_ count: Int) {
    body.append(contentsOf: buffer.readSlice(length: count))
    scanned = 0
  }

  private mutating func startNextMessage() {
    fields = []
    sectionBytes = 0
    sectionCount = 0
    head = nil
    body = []
    state = rules.startsNextMessage() ? .startLine : .delivered
  }

  private mutating func fail(_ problem: HTTPDecodingProblem) -> Event {
    fail(rules.failure(problem))
  }

  private mutating func fail(_ event: Event) -> Event {
    state = .failed(event)
    return event
  }

  /// The next CRLF line, its problems said as the shared problems.
  private mutating func nextLine(limit: Int, tooLong: HTTPDecodingProblem) -> LineResult {
    switch buffer.readHTTPLine(limit: limit, scanned: &scanned) {
    case .line(let range): .line(range)
    case .needMore: .needMore
    case .tooLong: .failure(tooLong)
    case .bareLF: .failure(.malformed("A line ends with LF without CR."))
    }
  }

  private enum LineResult {
    case line(Range<Int>)
    case needMore
    case failure(HTTPDecodingProblem)
  }

  /// Parses `name: value` into `fields` (or only checks it, for trailers).
  private mutating func addField(_ range: Range<Int>, keep: Bool) -> HTTPDecodingProblem? {
    sectionCount += 1
    sectionBytes += range.count + 2
    if sectionCount > limits.headerCount { return .tooManyFields }
    if sectionBytes > limits.headerSection { return .sectionTooLarge }
    switch parseFieldLine(buffer[range]) {
    case .failure(let error): return .malformed(error.message)
    case .success(let field):
      if keep { fields.append(fieldStrings(field)) }
      return nil
    }
  }

  /// Ends the header section: the direction's rules make the head and its framing, or skip an
  /// informational response. Returns the event to give now, if any.
  private mutating func finishHead() -> Event? {
    switch rules.head(HTTPHeaders(fields)) {
    case .failed(let event):
      return fail(event)
    case .informational:
      fields = []
      sectionBytes = 0
      sectionCount = 0
      state = .startLine
      return nil
    case .message(let head, let framing):
      self.head = head
      switch framing {
      case .none, .length(0): state = .complete
      case .length(let length): state = .body(remaining: length)
      case .chunked: state = .chunkSize
      case .untilClose: state = .untilClose
      }
      return rules.headEvent(head)
    }
  }
}
