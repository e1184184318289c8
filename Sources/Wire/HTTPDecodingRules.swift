/// What decoding requests and decoding responses do differently, for the one state machine of
/// ``HTTPDecoder``: the start line, the end of the head (with the body's framing), and how
/// each problem and message is said. `HTTPRequestRules` and `HTTPResponseRules` are the two.
protocol HTTPDecodingRules<Head>: Sendable {
  associatedtype Head: HTTPDecodableHead

  /// Reads the first line of a message: a request line or a status line.
  mutating func startLine(_ line: ArraySlice<UInt8>) -> HTTPStartLine<Head.Event>

  /// Ends the header section: the head and how its body is framed.
  mutating func head(_ headers: HTTPHeaders) -> HTTPHeadOutcome<Head>

  /// The event that says a head is complete, for a caller that hears of heads before bodies.
  func headEvent(_ head: Head) -> Head.Event?

  /// The event of a whole message.
  func message(_ head: Head, body: [UInt8]) -> Head.Event

  /// A shared problem, said as this direction says it.
  func failure(_ problem: HTTPDecodingProblem) -> Head.Event

  /// A message was given: whether the next one is decoded at once (requests on a connection)
  /// or only when the decoder is told (a response answers one request).
  mutating func startsNextMessage() -> Bool

  /// The next message answers a request with `method` (responses only: a HEAD's answer has no
  /// body; a request's rules ignore it).
  mutating func answer(_ method: HTTPMethod)
}

/// What a start line was.
enum HTTPStartLine<Event> {
  case parsed
  /// An empty line before a request line, which RFC 9112 lets a server ignore.
  case skipped
  case failed(Event)
}

/// How a header section ended.
enum HTTPHeadOutcome<Head: HTTPDecodableHead> {
  case message(Head, HTTPFraming)
  /// An informational response (1xx): dropped; the final response follows.
  case informational
  case failed(Head.Event)
}

/// How a body is delimited (RFC 9112 section 6.3), in both directions.
enum HTTPFraming: Hashable {
  case none
  case length(Int)
  case chunked
  /// A response with neither length nor chunked coding: it ends with the connection.
  case untilClose
}

/// A problem both directions find the same way; each says it in its own error type (a
/// request's is the status to answer with, a response's a kind).
enum HTTPDecodingProblem: Error, Hashable {
  /// The bytes break RFC 9112.
  case malformed(String)
  case startLineTooLong
  case headerLineTooLong
  case trailerLineTooLong
  case tooManyFields
  case sectionTooLarge
  case bodyTooLarge
  case chunkLineTooLong
  /// The chunk size has more hexadecimal digits than any body could need.
  case chunkSizeTooLarge(String)
  /// The input ended before the message was complete.
  case truncated
}

/// What the framing fields of a head declare, before each direction's own checks of the
/// transfer codings.
enum DeclaredFraming {
  case none
  case length(Int)
  /// `Transfer-Encoding`, its codings in order, trimmed (empty ones kept).
  case codings([Substring])

  /// Reads `Content-Length` and `Transfer-Encoding` the same way in both directions: never
  /// both, no `Transfer-Encoding` in HTTP/1.0, exactly one `Content-Length` of digits, no
  /// longer than `bodyLimit`.
  init(_ headers: HTTPHeaders, minorVersion: Int, bodyLimit: Int) throws(HTTPDecodingProblem) {
    let codingFields = headers.values(for: "Transfer-Encoding")
    let lengthFields = headers.values(for: "Content-Length")
    if !codingFields.isEmpty {
      if minorVersion == 0 { throw .malformed("Transfer-Encoding is not allowed in HTTP/1.0.") }
      if !lengthFields.isEmpty { throw .malformed("Both Content-Length and Transfer-Encoding.") }
      self = .codings(
        codingFields.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
          .map { $0.trimmingSpacesAndTabs() })
    } else if !lengthFields.isEmpty {
      switch parseContentLength(lengthFields) {
      case .failure(let error): throw .malformed(error.message)
      case .success(let length):
        if length > bodyLimit { throw .bodyTooLarge }
        self = .length(length)
      }
    } else {
      self = .none
    }
  }
}

extension HTTPHeaders {
  /// Whether the connection stays open after this message by the `Connection` field alone:
  /// HTTP/1.1 unless `close`, HTTP/1.0 only with `keep-alive`.
  func keepsAlive(minorVersion: Int) -> Bool {
    minorVersion >= 1
      ? !containsToken("close", in: "Connection") : containsToken("keep-alive", in: "Connection")
  }
}
